/**
 * The bound on an account's smart lists (contract §7.6): together they hold at most
 * `smartListConfig.maxCompanies()` companies, every state counted, a company in two lists twice.
 *
 * The account's count item (`keys.listCount`, beside its count of lists) holds `smartCompanies`: the
 * sum over its smart lists of what each holds against the bound. A list holds its companies (the sum
 * of its counters), except while an evaluation of it runs (a create or filter change whose rest is
 * left to the worker): then its item carries `held`, the companies its filters were found to reach
 * when the evaluation was accepted, and it holds max(`held`, its companies). So a create that is
 * accepted keeps its place while the worker fills it, and two creates side by side cannot both take
 * the last places: every write that moves `smartCompanies` up is conditional on the bound, in the same
 * transaction as the list item it accounts for (a create, a filter change, a claim of flips). Leaving
 * companies and deleted lists move it down. When an evaluation ends, `held` goes and the count is
 * trued to the list's companies (`settleHold`).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { smartListConfig } from '../../config';
import { backoff, getItem, queryAll } from '../../storage/batch';
import { cancellationReasons, dynamodb, isConditionFailed, send, tableName } from '../../storage/client';
import { StorageUnavailableError } from '../../storage/errors';
import * as keys from '../../storage/keys';
import { sendTransaction } from '../../storage/transactions';
import { ensureListCount } from './list-ids';
import { companiesOf, CONFLICT_RETRIES, REVISION, revisionCondition, type Item } from './model';
import { NO_INTENT, settleExpired } from './flip-intents';
import { readListCounts } from './contact-counts';

/** The account's count item's attribute: companies its smart lists hold. */
export const SMART_COMPANIES = 'smartCompanies';
/** The list item's attribute while an evaluation of it runs: the companies it holds at least. */
export const HELD = 'held';

/** Companies an account's smart lists hold together, at most (§7.6). */
export const MAX_SMART_COMPANIES = 1_000_000;

/** The bound as configured (MAX_SMART_COMPANIES unless a test lowers it). */
export const maxSmartCompanies = (): number =>
  Math.floor(smartListConfig.maxCompanies() ?? MAX_SMART_COMPANIES);

/** What a list holds against the bound: `held` while an evaluation runs (never below its companies). */
export const holdOf = (companies: number, held: number | null): number =>
  held === null ? companies : Math.max(held, companies);

/**
 * The transaction action that moves the account's count by `delta`: conditional on the bound when it
 * grows, and on the count being there (`ensureSmartCount`) always.
 */
export function accountHoldUpdate(accountId: string, delta: number) {
  const grows = delta > 0;
  return {
    Update: {
      TableName: tableName(),
      Key: keys.listCount(accountId),
      UpdateExpression: 'ADD #s :d',
      ConditionExpression: grows ? 'attribute_exists(#s) AND #s <= :room' : 'attribute_exists(#s)',
      ExpressionAttributeNames: { '#s': SMART_COMPANIES },
      ExpressionAttributeValues: { ':d': delta, ...(grows ? { ':room': maxSmartCompanies() - delta } : {}) },
    },
  };
}

interface CountUpdate {
  Update: {
    TableName: string;
    Key: keys.Key;
    UpdateExpression: string;
    ConditionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Item;
  };
}

/**
 * The account's count item updated by `update` (its count of lists: an `ADD` of its own) and its count
 * of smart-list companies moved by `delta`, in one action (a transaction names an item once).
 */
export function withHold(update: CountUpdate, delta: number): CountUpdate {
  const hold = accountHoldUpdate(update.Update.Key.pk.slice('ACCOUNT#'.length), delta).Update;
  return {
    Update: {
      ...update.Update,
      UpdateExpression: `${update.Update.UpdateExpression}, ${hold.UpdateExpression.slice('ADD '.length)}`,
      ConditionExpression: [update.Update.ConditionExpression, hold.ConditionExpression]
        .filter(Boolean)
        .join(' AND '),
      ExpressionAttributeNames: {
        ...update.Update.ExpressionAttributeNames,
        ...hold.ExpressionAttributeNames,
      },
      ExpressionAttributeValues: {
        ...update.Update.ExpressionAttributeValues,
        ...hold.ExpressionAttributeValues,
      },
    },
  };
}

/** The companies the account's smart lists hold now (0 for an account without the count yet). */
export async function smartCompaniesOf(accountId: string): Promise<number> {
  const item = await getItem(tableName(), keys.listCount(accountId), { consistent: true });
  return Number(item?.[SMART_COMPANIES] ?? 0);
}

/**
 * Makes sure the account's count exists before anything moves it: an account whose smart lists predate
 * it has them summed once (one Query of its list items). Every write that moves the count asks for it
 * to exist, so none can land between the sum and its write.
 */
export async function ensureSmartCount(accountId: string): Promise<void> {
  const item = await getItem(tableName(), keys.listCount(accountId), { consistent: true });
  if (item?.[SMART_COMPANIES] !== undefined) return;
  if (!item) await ensureListCount(accountId);
  const { pk, skPrefix } = keys.accountLists(accountId);
  const lists = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
    ConsistentRead: true,
  });
  const held = lists
    .filter((list) => list['type'] === 'SMART')
    .reduce((n, list) => n + holdOf(companiesOf(list), heldOf(list)), 0);
  try {
    await send(() =>
      dynamodb().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.listCount(accountId),
          UpdateExpression: 'SET #s = :n',
          ConditionExpression: 'attribute_not_exists(#s)',
          ExpressionAttributeNames: { '#s': SMART_COMPANIES },
          ExpressionAttributeValues: { ':n': held },
        }),
      ),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}

/** A list item's `held` (null: no evaluation runs). */
export const heldOf = (item: Item | undefined): number | null =>
  item?.[HELD] === undefined ? null : Number(item[HELD]);

/**
 * Ends a list's evaluation: `held` leaves the list item and the account's count is trued to the
 * list's companies, in one transaction, conditional on the list's revision as read, no flips in flight
 * and its filters still `filters` (a newer filter change has its own evaluation: false, nothing done).
 * `job` (the evaluation's job item, with its condition) goes in the same transaction. True when
 * settled (or when there was nothing to settle).
 */
export async function settleHold(
  accountId: string,
  listId: number,
  filters: string,
  job?: { key: keys.Key; condition?: { expression: string; values: Item } },
): Promise<boolean> {
  for (let attempt = 0; attempt < CONFLICT_RETRIES.maxAttempts; attempt++) {
    if (attempt > 0) await backoff(attempt, CONFLICT_RETRIES.baseMs, CONFLICT_RETRIES.maxMs);
    const [list] = await readListCounts([{ accountId, listId, refs: [] }]);
    if (!list || list.filters !== filters) return false;
    if (list.intent) {
      await settleExpired(accountId, listId, list.intent);
      continue;
    }
    const jobDelete = job && {
      Delete: {
        TableName: tableName(),
        Key: job.key,
        ...(job.condition
          ? {
              ConditionExpression: job.condition.expression,
              ExpressionAttributeValues: job.condition.values,
            }
          : {}),
      },
    };
    if (list.held === null && !jobDelete) return true;
    const { condition, values } = revisionCondition(list.revision);
    const delta = list.companies - holdOf(list.companies, list.held);
    try {
      await sendTransaction([
        {
          Update: {
            TableName: tableName(),
            Key: keys.list(accountId, listId),
            UpdateExpression: `REMOVE ${HELD} ADD ${REVISION} :one`,
            ConditionExpression: `${condition} AND ${NO_INTENT} AND filters = :filters`,
            ExpressionAttributeValues: { ...values, ':one': 1, ':filters': filters },
          },
        },
        ...(delta === 0 ? [] : [accountHoldUpdate(accountId, delta)]),
        ...(jobDelete ? [jobDelete] : []),
      ]);
      return true;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      // The job is another evaluation's now (a newer filter change, another worker): not ours to end.
      if (jobDelete && reasons[reasons.length - 1] === 'ConditionalCheckFailed') return false;
    }
  }
  throw new StorageUnavailableError();
}
