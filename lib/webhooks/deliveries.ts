/**
 * The deliveries log of a webhook endpoint (contract §12): one entry per attempt, newest first in its
 * partition, kept 30 days. An attempt made is `delivered` or `failed` (with `nextAttemptAt` when a
 * retry is due); the retry queued after it has an entry of its own, `pending` (`at` when it was queued,
 * `nextAttemptAt` when it is due), which the attempt's entry replaces when it is made. A retry dropped
 * before it is made (endpoint disabled, event no longer visible to the endpoint) leaves no entry, and the
 * failed attempt before it says no attempt is coming (`nextAttemptAt: null`).
 *
 * The replacement is atomic for readers at the cost of two plain writes: the attempt's entry is written
 * first and its `pending` entry removed after, and a reader leaves out a `pending` entry whose attempt's
 * entry it has read, so it shows one of the two, never both (docs/notifications.md says why not a
 * transaction). An attempt is made when its retry is due, after its `pending` entry's time, so its entry
 * is the newer of the two: read before it newest first, after it oldest first.
 *
 * A page is a Query of `offset + limit` entries (more only while a replaced `pending` entry is among
 * them); `total` counts the partition's attempts (reading event, attempt number and status: about 5,000
 * entries a 1 MB page), as entries expire by TTL and no counter could follow them.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { EVENT_RETENTION_MS } from '../events/event';
import type { Page } from '../http/pagination';
import { batchWrite, queryAll, queryPage, type WriteRequest } from '../storage/batch';
import { dynamodb, isConditionFailed, send, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import type { DeliveryAnswer } from './schemas';

/** Where an entry is: its endpoint, event, attempt and time. */
export interface EntryKey {
  accountId: string;
  webhookId: string;
  eventId: string;
  attempt: number;
  atMs: number;
}

export interface Attempt extends EntryKey {
  status: DeliveryAnswer['status'];
  responseStatus: number | null;
  durationMs: number | null;
  nextAttemptAtMs: number | null;
}

type Item = Record<string, unknown>;

const keyOf = (e: EntryKey) => keys.webhookDelivery(e.accountId, e.webhookId, e.atMs, e.eventId, e.attempt);

/** Changes of the log: entries written, entries removed (a `pending` one its attempt replaces). */
export interface LogChanges {
  put: Attempt[];
  remove: EntryKey[];
}

/**
 * Writes the entries, then removes the others (25 a request): an attempt's entry is stored before the
 * `pending` entry it replaces is removed, and readers leave that entry out while both are stored. A
 * removal of an entry written here is not made (an attempt made the very millisecond its retry was
 * queued has its key). Written again, the same changes change nothing.
 */
export async function writeLog({ put, remove }: LogChanges): Promise<void> {
  const id = (k: { pk: string; sk: string }) => `${k.pk}\n${k.sk}`;
  const written = new Set(put.map((a) => id(keyOf(a))));
  const puts: WriteRequest[] = put.map((a) => ({
    PutRequest: {
      Item: {
        ...keyOf(a),
        entity: 'WebhookDelivery',
        eventId: a.eventId,
        attempt: a.attempt,
        at: new Date(a.atMs).toISOString(),
        status: a.status,
        responseStatus: a.responseStatus,
        durationMs: a.durationMs,
        nextAttemptAt: a.nextAttemptAtMs === null ? null : new Date(a.nextAttemptAtMs).toISOString(),
        ttl: Math.ceil((a.atMs + EVENT_RETENTION_MS) / 1000),
      },
    },
  }));
  const removals: WriteRequest[] = remove
    .map(keyOf)
    .filter((k) => !written.has(id(k)))
    .map((Key) => ({ DeleteRequest: { Key } }));
  if (puts.length > 0) await batchWrite(tableName(), puts, 4);
  if (removals.length > 0) await batchWrite(tableName(), removals, 4);
}

/** A failed attempt whose retry was dropped: no attempt is coming (if its entry is still kept). */
export async function closeAttempt(entry: EntryKey): Promise<void> {
  try {
    await send(() =>
      dynamodb().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keyOf(entry),
          UpdateExpression: 'SET nextAttemptAt = :none',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':none': null },
        }),
      ),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}

export async function getDeliveries(
  accountId: string,
  webhookId: string,
  page: { limit: number; offset: number },
): Promise<Page<DeliveryAnswer>> {
  const pk = keys.webhookDeliveries(accountId, webhookId);
  const wanted = page.offset + page.limit;
  const [items, total] = await Promise.all([
    queryAll(
      {
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        Limit: wanted,
      },
      { until: (read) => withoutReplaced(read).length >= wanted },
    ),
    countAttempts(pk),
  ]);
  return {
    data: withoutReplaced(items)
      .slice(page.offset, wanted)
      .map((i) => ({
        eventId: String(i['eventId']),
        attempt: Number(i['attempt']),
        at: String(i['at']),
        status: i['status'] as DeliveryAnswer['status'],
        responseStatus: (i['responseStatus'] as number | null | undefined) ?? null,
        durationMs: (i['durationMs'] as number | null | undefined) ?? null,
        nextAttemptAt: (i['nextAttemptAt'] as string | null | undefined) ?? null,
      })),
    pagination: { limit: page.limit, offset: page.offset, total },
  };
}

/** An attempt in the log: its event and number (a retry's `pending` entry has the attempt's). */
const attemptOf = (item: Item) => `${String(item['eventId'])}#${Number(item['attempt'])}`;

/** Entries read newest first, without each `pending` entry whose attempt's entry came before it. */
function withoutReplaced(newestFirst: Item[]): Item[] {
  const made = new Set<string>();
  return newestFirst.filter((item) => {
    if (item['status'] !== 'pending') {
      made.add(attemptOf(item));
      return true;
    }
    return !made.has(attemptOf(item));
  });
}

/**
 * The partition's attempts, read oldest first: a `pending` entry comes before its attempt's, which
 * then counts for both. Only the `pending` entries not yet matched are held.
 */
async function countAttempts(pk: string): Promise<number> {
  let total = 0;
  const pending = new Set<string>();
  let startKey: Item | undefined;
  do {
    const page = await queryPage({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: 'eventId, attempt, #status',
      ExpressionAttributeNames: { '#status': 'status' },
      ScanIndexForward: false,
      ExclusiveStartKey: startKey,
    });
    for (const item of page.items) {
      const attempt = attemptOf(item);
      if (item['status'] === 'pending') {
        pending.add(attempt);
        total++;
      } else if (!pending.delete(attempt)) total++;
    }
    startKey = page.lastKey;
  } while (startKey);
  return total;
}
