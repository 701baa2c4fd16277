/**
 * Background workers, in a nested stack of their own: no route invokes them (scheduled jobs and the
 * steps of the import engine). Each has its function and its alarm, and a scheduled one its EventBridge
 * rule and an output of the stage naming the function to run it now. The import engine's state machines
 * are here too, over the bucket the stage keeps (infra/import-engine.ts).
 */
import { CfnOutput, Duration, NestedStack, Validations } from 'aws-cdk-lib';
import type { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { workers, type Worker, type WorkerId } from '../lib/routes';
import type { AlarmTarget } from './alarms';
import { QUEUE_WORKERS, workerBounds } from './capacity';
import { ApiFunction } from './function';
import { ImportEngine, type ImportStore } from './import-engine';

export interface WorkersProps {
  stage: string;
  table: TableV2;
  removalPolicy: RemovalPolicy;
  alarms: AlarmTarget;
  /** The import's bucket and undelivered-events queue, which the stage keeps. */
  importStore: ImportStore;
  legalEntitySecret: ISecret;
  /** Partitions imported (and lookalike shards computed) at once. */
  importConcurrency: number;
}

export class Workers extends NestedStack {
  /** The workers' functions, by worker id. */
  readonly functions: Record<WorkerId, NodejsFunction>;
  readonly importEngine: ImportEngine;

  /** `scope` is the stage's stack: the outputs for operators are its own. */
  constructor(scope: Stack, id: string, props: WorkersProps) {
    super(scope, id, {
      description: `company-data ${props.stage}: background workers and the import engine`,
    });
    const { table, removalPolicy, alarms } = props;
    this.functions = {} as Record<WorkerId, NodejsFunction>;
    // Each worker bounded, so the routes keep their share of the account's concurrency (capacity.ts).
    const bounds = workerBounds(props.importConcurrency);
    for (const [workerId, worker] of Object.entries(workers) as [WorkerId, Worker][]) {
      const { function: job } = new ApiFunction(this, `${workerId}Function`, {
        name: workerId,
        entry: worker.entry,
        table,
        storage: worker.storage,
        memorySize: worker.memoryMb,
        timeout: Duration.minutes(worker.timeoutMinutes),
        removalPolicy,
        alarms,
        ...(QUEUE_WORKERS.includes(workerId) ? {} : { reservedConcurrentExecutions: bounds[workerId] }),
      });
      this.functions[workerId] = job;
      if (!worker.schedule) continue;
      const rule = new Rule(this, `${workerId}Schedule`, {
        schedule: Schedule.cron(worker.schedule),
        targets: [new LambdaFunction(job, { retryAttempts: 2 })],
      });
      Validations.of(rule).acknowledge({
        id: 'Serverless-EventBusDLQ',
        reason:
          'A schedule of an idempotent job: an event EventBridge could not deliver after its retries is ' +
          'the same run as the next one, and a failed run raises the alarm of its function.',
      });
      new CfnOutput(scope, `${workerId}FunctionName`, {
        value: job.functionName,
        description: `Run it now: aws lambda invoke --function-name <this> --invocation-type Event /dev/null`,
      });
    }

    const fns = this.functions;
    this.importEngine = new ImportEngine(this, 'ImportEngine', {
      split: fns.importSplit,
      partition: fns.importPartition,
      complete: fns.importComplete,
      lookalikesPlan: fns.lookalikesPlan,
      lookalikesShard: fns.lookalikesShard,
      lookalikesFinish: fns.lookalikesFinish,
      // Weekly, as a safety net: the import already recomputes what it touches before it returns.
      lookalikesSchedule: { weekDay: 'SUN', hour: '3', minute: '0' },
      legalEntitySecret: props.legalEntitySecret,
      maxConcurrency: props.importConcurrency,
      store: props.importStore,
      removalPolicy,
    });
    new CfnOutput(scope, 'LookalikesStateMachineArn', {
      value: this.importEngine.lookalikesStateMachine.stateMachineArn,
      description:
        'Recompute every lookalike list now: aws stepfunctions start-execution --state-machine-arn <this>',
    });
  }
}
