/**
 * Background workers: no route invokes them (scheduled jobs and the steps of the import engine). Each has
 * its function, and a scheduled one its EventBridge rule and an output naming the function to run it now.
 */
import { CfnOutput, Duration, Validations } from 'aws-cdk-lib';
import type { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { workers, type Worker, type WorkerId } from '../lib/routes';
import { ApiFunction } from './function';

/** The workers' functions, by worker id; they are added to `functions` too. */
export function addWorkers(
  scope: Stack,
  {
    table,
    removalPolicy,
    functions,
  }: { table: TableV2; removalPolicy: RemovalPolicy; functions: Record<string, IFunction> },
): Record<WorkerId, NodejsFunction> {
  const workerFunctions = {} as Record<WorkerId, NodejsFunction>;
  for (const [workerId, worker] of Object.entries(workers) as [WorkerId, Worker][]) {
    const { function: job } = new ApiFunction(scope, `${workerId}Function`, {
      entry: worker.entry,
      table,
      storage: worker.storage,
      memorySize: worker.memoryMb,
      timeout: Duration.minutes(worker.timeoutMinutes),
      removalPolicy,
    });
    workerFunctions[workerId] = job;
    functions[workerId] = job;
    if (!worker.schedule) continue;
    const rule = new Rule(scope, `${workerId}Schedule`, {
      schedule: Schedule.cron(worker.schedule),
      targets: [new LambdaFunction(job, { retryAttempts: 2 })],
    });
    Validations.of(rule).acknowledge({
      id: 'Serverless-EventBusDLQ',
      reason:
        'A schedule of an idempotent job: an event EventBridge could not deliver after its retries is ' +
        'the same run as the next one, and a failed run raises the function Errors alarm.',
    });
    new CfnOutput(scope, `${workerId}FunctionName`, {
      value: job.functionName,
      description: `Run it now: aws lambda invoke --function-name <this> --invocation-type Event /dev/null`,
    });
  }
  return workerFunctions;
}
