/**
 * The deliveries log of a webhook endpoint (contract §12): one item per attempt, newest first in its
 * partition, kept 30 days. A page is one Query of `offset + limit` items; `total` counts the
 * partition's attempts (keys only: about 5,000 attempts a 1 MB page), as attempts expire by TTL and no
 * counter could follow them.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { EVENT_RETENTION_MS } from '../events/event';
import type { Page } from '../http/pagination';
import { batchPut, queryAll } from '../storage/batch';
import { dynamodb, send, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import type { DeliveryAnswer } from './schemas';

export interface Attempt {
  accountId: string;
  webhookId: string;
  eventId: string;
  attempt: number;
  atMs: number;
  status: DeliveryAnswer['status'];
  responseStatus: number | null;
  durationMs: number | null;
  nextAttemptAtMs: number | null;
}

export async function logAttempts(attempts: Attempt[]): Promise<void> {
  await batchPut(
    tableName(),
    attempts.map((a) => ({
      ...keys.webhookDelivery(a.accountId, a.webhookId, a.atMs, a.eventId, a.attempt),
      entity: 'WebhookDelivery',
      eventId: a.eventId,
      attempt: a.attempt,
      at: new Date(a.atMs).toISOString(),
      status: a.status,
      responseStatus: a.responseStatus,
      durationMs: a.durationMs,
      nextAttemptAt: a.nextAttemptAtMs === null ? null : new Date(a.nextAttemptAtMs).toISOString(),
      ttl: Math.ceil((a.atMs + EVENT_RETENTION_MS) / 1000),
    })),
  );
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
