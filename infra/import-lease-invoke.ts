/**
 * The import engine's steps under the stage's import lease (lib/import/lease.ts): the split and the
 * partitions. A step that finds it held by another run fails with ImportLeaseHeld, having done nothing,
 * and waits its turn: tried again up to every 5 minutes, some hours in all, within the run's 12 hours.
 * Throttles wait for a slot first (capacity.ts); the caller's retry of any other failure comes after.
 * The state after the partitions frees it (`releaseImportLease`).
 */
import { Duration } from 'aws-cdk-lib';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { JitterType, JsonPath, TaskInput, type RetryProps } from 'aws-cdk-lib/aws-stepfunctions';
import type { LambdaInvokeProps } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { IMPORT_LEASE_HELD } from '../lib/import/lease';
import { SlotWaitingInvoke } from './capacity';

export const IMPORT_LEASE_RETRY: RetryProps = {
  errors: [IMPORT_LEASE_HELD],
  maxAttempts: 100,
  interval: Duration.seconds(30),
  backoffRate: 1.5,
  maxDelay: Duration.minutes(5),
  jitterStrategy: JitterType.FULL,
};

export class ImportLeaseInvoke extends SlotWaitingInvoke {
  constructor(scope: Construct, id: string, props: LambdaInvokeProps) {
    super(scope, id, props);
    this.addRetry(IMPORT_LEASE_RETRY);
  }
}

/** The state after the partitions: the completion's worker, asked only to free the run's import lease. */
export const releaseImportLease = (scope: Construct, complete: LambdaFunction, retry: RetryProps) =>
  new SlotWaitingInvoke(scope, 'ReleaseImportLease', {
    lambdaFunction: complete,
    payload: TaskInput.fromObject({ run: JsonPath.stringAt('$$.Execution.Name'), releaseImportLease: true }),
    payloadResponseOnly: true,
    resultPath: JsonPath.DISCARD,
  }).addRetry(retry);
