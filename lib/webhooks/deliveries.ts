/**
 * The deliveries log of a webhook endpoint (contract §12): one entry per attempt, newest first in its
 * partition, kept 30 days. An attempt made is `delivered` or `failed` (with `nextAttemptAt` when a
 * retry is due); the retry queued after it has an entry of its own, `pending` (`at` when it was queued,
 * `nextAttemptAt` when it is due), which the attempt's entry replaces when it is made. A retry dropped
 * before it is made (endpoint disabled, event no longer visible to the endpoint) leaves no entry, and the
 * failed attempt before it says no attempt is coming (`nextAttemptAt: null`).
 *
 * A page is one Query of `offset + limit` items; `total` counts the partition's entries (keys only:
 * about 5,000 entries a 1 MB page), as entries expire by TTL and no counter could follow them.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { EVENT_RETENTION_MS } from '../events/event';
import type { Page } from '../http/pagination';
import { batchWrite, queryAll, type WriteRequest } from '../storage/batch';
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

const keyOf = (e: EntryKey) => keys.webhookDelivery(e.accountId, e.webhookId, e.atMs, e.eventId, e.attempt);

/** Changes of the log: entries written, entries removed (a `pending` one its attempt replaces). */
export interface LogChanges {
  put: Attempt[];
  remove: EntryKey[];
}

/** Writes the entries and removes the others, 25 a request. */
export async function writeLog({ put, remove }: LogChanges): Promise<void> {
  const requests: WriteRequest[] = [
    ...put.map((a) => ({
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
    })),
    ...remove.map((k) => ({ DeleteRequest: { Key: keyOf(k) } })),
  ];
  if (requests.length > 0) await batchWrite(tableName(), requests, 4);
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
  const [items, total] = await Promise.all([
    queryAll(
      {
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
      },
      { limit: page.offset + page.limit },
    ),
    countAttempts(pk),
  ]);
  return {
    data: items.slice(page.offset).map((i) => ({
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

async function countAttempts(pk: string): Promise<number> {
  let total = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await send(() =>
      dynamodb().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          Select: 'COUNT',
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    total += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return total;
}
