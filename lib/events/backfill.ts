/**
 * The backfill of the watched lists' index (`WATCHED_LISTS`, lib/events/watched.ts): a STATIC list
 * whose notifications were enabled before the index existed is not in it, and the import would derive
 * no event for its companies. The list store keeps the index in the transactions that create, change
 * and delete a list, so once every older list is filed it stays right; this files them.
 *
 * A parallel Scan of the whole table for lists (a job's tool, run by an operator: no Lambda may Scan),
 * and for each STATIC list with notifications on and no entry, its entry put in a transaction
 * conditional on the list being so still (a list disabled or deleted meanwhile is left out, the way
 * its own change would leave it). Idempotent: run again, it finds every entry there. At the end it
 * records its run beside the entries (`BACKFILL`), which the import checks for each batch (one item of
 * the partition it reads anyway) and warns about while absent. A new table records it when created:
 * no list there predates the index.
 */
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { watchedListItem } from '../lists/store/lists';
import { cancellationReasons, dynamodb, send, tableName } from '../storage/client';
import { transactWrite } from '../storage/transactions';
import { getItem } from '../storage/batch';
import * as keys from '../storage/keys';
import { forEachLimited } from '../concurrency';
import { watchedLists } from './watched';

const SCAN_SEGMENTS = 4;
const WRITES_IN_FLIGHT = 8;

export interface Backfilled {
  /** STATIC lists with notifications on. */
  watched: number;
  /** Of those, the ones whose entry was missing and is now put. */
  added: number;
}

export async function backfillWatchedLists(now: () => Date = () => new Date()): Promise<Backfilled> {
  const filed = (await watchedLists()).lists;
  const found = await scanWatchedLists();
  let added = 0;
  await forEachLimited(
    found.filter((list) => !filed.has(`${list.accountId}#${list.listId}`)),
    WRITES_IN_FLIGHT,
    async ({ accountId, listId }) => {
      if (await fileList(accountId, listId)) added++;
    },
  );
  await send(() =>
    dynamodb().send(
      new PutCommand({ TableName: tableName(), Item: backfillRecord(now(), found.length, added) }),
    ),
  );
  return { watched: found.length, added };
}

/** Whether the backfill ran on this table (or the table was created with its index): its record, one read. */
export async function backfillRan(): Promise<boolean> {
  return (await getItem(tableName(), keys.watchedListsBackfill(), { consistent: true })) !== undefined;
}

/**
 * The record of a backfill's run; `at: null` is a new table's (infra/local/dynamodb.ts), which has no
 * list to file: the same item whenever a table is made, so that two tables filled alike are alike.
 */
export function backfillRecord(at: Date | null, watched: number, added: number) {
  return {
    ...keys.watchedListsBackfill(),
    entity: 'WatchedListsBackfill',
    at: at === null ? 'created with the table' : at.toISOString(),
    watched,
    added,
  };
}

/** Every STATIC list with notifications on, by a parallel Scan filtered to them. */
async function scanWatchedLists(): Promise<Array<{ accountId: string; listId: number }>> {
  const segments = await Promise.all(
    Array.from({ length: SCAN_SEGMENTS }, async (_, segment) => {
      const lists: Array<{ accountId: string; listId: number }> = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await send(() =>
          dynamodb().send(
            new ScanCommand({
              TableName: tableName(),
              Segment: segment,
              TotalSegments: SCAN_SEGMENTS,
              FilterExpression: 'entity = :list AND #type = :static AND notificationsEnabled = :on',
              ProjectionExpression: 'accountId, #id',
              ExpressionAttributeNames: { '#type': 'type', '#id': 'id' },
              ExpressionAttributeValues: { ':list': 'List', ':static': 'STATIC', ':on': true },
              ExclusiveStartKey: startKey,
            }),
          ),
        );
        for (const item of page.Items ?? []) {
          lists.push({ accountId: String(item['accountId']), listId: Number(item['id']) });
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return lists;
    }),
  );
  return segments.flat();
}

/**
 * The list's entry, if the list is still a STATIC one with notifications on; whether it was put.
 * Conflicts and throttling are tried again (`transactWrite`): only the list's own state may leave it out.
 */
async function fileList(accountId: string, listId: number): Promise<boolean> {
  try {
    await transactWrite([
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.list(accountId, listId),
          ConditionExpression: '#type = :static AND notificationsEnabled = :on',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: { ':static': 'STATIC', ':on': true },
        },
      },
      { Put: { TableName: tableName(), Item: watchedListItem(accountId, listId) } },
    ]);
    return true;
  } catch (error) {
    // Disabled or deleted since the Scan: its own change decided (and wrote or removed the entry).
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}
