/**
 * A smart list's evaluation left to the background worker (contract §7.6): one job item per list
 * (`keys.smartListEvaluation`), written by the create or filter change that left work over (before it
 * writes any member, so a request that dies still leaves its job), and taken turn by turn by the worker
 * (lib/lists/smart-background.ts) under a lease.
 *
 * A job holds the filters it evaluates (a newer filter change writes the job again, cursor reset: what
 * an older turn then writes is refused by its conditions), where it stands (`cursor`: the NEW members
 * still to check for leaving, then the filter profiles still to read for entering), when its last turn
 * ended (`turnAt`, the worker's order between accounts) and, while a worker holds it, the lease
 * (`leaseToken`, `leaseUntil`): a conditional write takes it, only where none is held or the one held
 * has expired (a worker that crashed), so two workers never evaluate the same list at once.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '../../storage/batch';
import {
  cancellationReasons,
  conditionHeld,
  dynamodb,
  isConditionFailed,
  send,
  tableName,
} from '../../storage/client';
import { sendTransaction } from '../../storage/transactions';
import * as keys from '../../storage/keys';
import { listOfKey } from '../../storage/keys';
import type { Item } from './model';
import type { Segment, SweepAt } from './profiles';

/** Where an evaluation stands: each part absent once done. */
export interface JobCursor {
  /** The list's NEW members still to check for leaving, after `key` (absent: from the first). */
  leave?: { key?: Item };
  /**
   * The filter profiles still to read for entering: segment `shard` of the sweep `via` after `key`
   * (smart-candidates.ts; absent: every profile of the filters' countries, `everyProfile`).
   */
  enter?: SweepAt & { via?: Segment[] };
}

export interface EvaluationJob {
  accountId: string;
  listId: number;
  /** The filters evaluated (JSON, as the list item stores them). */
  filters: string;
  cursor: JobCursor;
  /** When its last turn ended (ms); 0 before its first. */
  turnAt: number;
  /** When it was noted (ms). */
  notedAt: number;
  /** Until when a worker holds it (ms); 0 when none does. */
  leaseUntil: number;
}

/** A job held by a worker: its token proves it in every write. */
export interface HeldJob extends EvaluationJob {
  token: string;
}

/**
 * Notes (or notes again, for new filters) a list's evaluation for the worker: cursor and lease reset,
 * `turnAt` kept (a filter change does not move an account ahead of the others). Only while the list's
 * filters are still `filters` (checked in the same transaction): false when a newer filter change got
 * there first, whose job this must not overwrite.
 */
export async function noteJob(
  accountId: string,
  listId: number,
  filters: string,
  cursor: JobCursor,
): Promise<boolean> {
  try {
    await sendTransaction([
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.list(accountId, listId),
          ConditionExpression: 'filters = :filters',
          ExpressionAttributeValues: { ':filters': filters },
        },
      },
      {
        Update: {
          TableName: tableName(),
          Key: keys.smartListEvaluation(accountId, listId),
          UpdateExpression:
            'SET entity = :entity, filters = :filters, #cursor = :cursor, notedAt = :at REMOVE leaseToken, leaseUntil',
          ExpressionAttributeNames: { '#cursor': 'cursor' },
          ExpressionAttributeValues: {
            ':entity': 'SmartListEvaluation',
            ':filters': filters,
            ':cursor': JSON.stringify(cursor),
            ':at': Date.now(),
          },
        },
      },
    ]);
    return true;
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** Every job (one partition: the lists whose evaluation goes on), consistent. */
export async function getJobs(): Promise<EvaluationJob[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.smartListEvaluations() },
    ConsistentRead: true,
  });
  return items.map((item) => ({
    ...listOfKey(item['sk'] as string),
    filters: item['filters'] as string,
    // A job noted before cursors existed starts from the first profile.
    cursor:
      typeof item['cursor'] === 'string'
        ? (JSON.parse(item['cursor']) as JobCursor)
        : { enter: { shard: 0 } },
    turnAt: Number(item['turnAt'] ?? 0),
    notedAt: Number(item['notedAt'] ?? 0),
    leaseUntil: Number(item['leaseUntil'] ?? 0),
  }));
}

/**
 * Takes the job's lease for `leaseMs`: only if no worker holds it (or its lease expired) and it still
 * evaluates the filters read. Null when another worker or a newer filter change got there first.
 */
export async function takeLease(job: EvaluationJob, leaseMs: number): Promise<HeldJob | null> {
  const token = randomUUID();
  const now = Date.now();
  const taken = await conditionHeld(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.smartListEvaluation(job.accountId, job.listId),
        UpdateExpression: 'SET leaseToken = :token, leaseUntil = :until',
        ConditionExpression: 'filters = :filters AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
        ExpressionAttributeValues: {
          ':token': token,
          ':until': now + leaseMs,
          ':filters': job.filters,
          ':now': now,
        },
      }),
    ),
  );
  return taken ? { ...job, token, leaseUntil: now + leaseMs } : null;
}

/** The condition that a held job is still this worker's (for a transaction that ends it). */
export const heldCondition = (job: HeldJob) => ({
  expression: 'leaseToken = :token AND filters = :jobFilters',
  values: { ':token': job.token, ':jobFilters': job.filters },
});

/**
 * Ends a turn: the cursor moves on, `turnAt` is now, the lease is released — if the job is still this
 * worker's. False when it is not (taken over past its lease, or noted again for new filters).
 */
export function endTurn(job: HeldJob, cursor: JobCursor): Promise<boolean> {
  const { expression, values } = heldCondition(job);
  return conditionHeld(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.smartListEvaluation(job.accountId, job.listId),
        UpdateExpression: 'SET #cursor = :cursor, turnAt = :now REMOVE leaseToken, leaseUntil',
        ConditionExpression: expression,
        ExpressionAttributeNames: { '#cursor': 'cursor' },
        ExpressionAttributeValues: { ...values, ':cursor': JSON.stringify(cursor), ':now': Date.now() },
      }),
    ),
  );
}

/** Drops a held job whose list is gone or evaluates other filters now. */
export async function dropJob(job: HeldJob): Promise<void> {
  const { expression, values } = heldCondition(job);
  try {
    await send(() =>
      dynamodb().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys.smartListEvaluation(job.accountId, job.listId),
          ConditionExpression: expression,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}
