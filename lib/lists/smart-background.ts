/**
 * Bounded work per request (contract §7.6): a smart-list create or filter change whose filter matches
 * more than EVALUATE_AT_ONCE companies not yet in the list answers at once, with the counters of the
 * first EVALUATE_AT_ONCE; the rest is left to this worker, noted by a job item written before the request
 * evaluates anything (so a request that dies still leaves the job). Each run takes the next
 * EVALUATE_AT_ONCE companies of every noted list through the one evaluation (`evaluateSmartLists`:
 * entering is add-if-absent, so a company written twice counts once) until none is left; the counters
 * grow run by run. A list is evaluated against its filters as they are when the run reads it; a job of a
 * list deleted meanwhile is dropped, a pending list (still being created) waits for the next run.
 * Scheduled in the stack every minute; the local stage runs it every second.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { StorageAccess } from '../storage/access';
import { queryAll } from '../storage/batch';
import { dynamodb, isConditionFailed, send, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { listOfKey } from '../storage/keys';
import * as partitions from '../storage/partitions';
import { candidatesForList, evaluateSmartLists } from './smart';
import { boundedCandidates } from './smart-bounds';
import { getList } from './store/lists';
import { getAllMembers } from './store/members';

/** What the worker touches: its jobs, the lists, the filter profiles, and what an evaluation writes. */
export const evaluateSmartListsStorage = {
  GetItem: [partitions.accountLists],
  BatchGetItem: [partitions.accountLists, partitions.listMembers],
  Query: [partitions.smartListEvaluations, partitions.listMembers, partitions.filterProfiles],
  UpdateItem: [partitions.accountLists],
  PutItem: [partitions.accountLists, partitions.listMembers, partitions.listOrder],
  DeleteItem: [
    partitions.smartListEvaluations,
    partitions.accountLists,
    partitions.listMembers,
    partitions.listOrder,
  ],
  BatchWriteItem: [partitions.listMembers, partitions.listOrder],
} as const satisfies StorageAccess;

/** One run of the worker: the next companies of every noted list. Returns how many entered. */
export async function evaluateDeferredSmartLists(
  now = new Date(),
): Promise<{ lists: number; entered: number }> {
  const jobs = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.smartListEvaluations() },
  });
  let entered = 0;
  for (const job of jobs) {
    const { accountId, listId } = listOfKey(job['sk'] as string);
    const list = await getList(accountId, listId, { consistent: true });
    if (list?.pending) continue;
    let done = !list?.filters;
    if (list?.filters) {
      const candidates = await candidatesForList(list.filters, await getAllMembers(accountId, listId));
      const { now: batch, deferred } = boundedCandidates(list.filters, candidates);
      entered += (
        await evaluateSmartLists([{ list: { ...list, filters: list.filters }, candidates: batch }], now)
      ).entered;
      done = deferred === 0;
    }
    if (done) await finishJob(accountId, listId, job['filters'] as string);
  }
  return { lists: jobs.length, entered };
}

/** Drops a job, unless a filter change noted a new one meanwhile (its filters differ). */
async function finishJob(accountId: string, listId: number, filters: string): Promise<void> {
  try {
    await send(() =>
      dynamodb().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys.smartListEvaluation(accountId, listId),
          ConditionExpression: 'filters = :filters',
          ExpressionAttributeValues: { ':filters': filters },
        }),
      ),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}
