/**
 * Where webhook endpoints are kept (contract §12; key patterns in lib/storage/keys.ts): one item per
 * endpoint in its account's partition, beside a count of them, and a listing entry for the delivery
 * fan-out. Creating and deleting move the count in the same transaction, so two creations racing for
 * an account's fifth place cannot both win. Secrets are stored sealed (lib/webhooks/secrets.ts).
 */
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getItem, queryAll } from '../storage/batch';
import {
  cancellationReasons,
  conditionHeld,
  dynamodb,
  isConditionFailed,
  send,
  tableName,
} from '../storage/client';
import * as keys from '../storage/keys';

/** §12: at most this many endpoints per account. */
export const MAX_WEBHOOKS = 5;

export interface SealedSecret {
  sealed: string;
  /** When a rotated-out secret stops signing (ISO); absent for the current one. */
  until?: string;
}

export interface StoredWebhook {
  accountId: string;
  id: string;
  url: string;
  description: string | null;
  enabled: boolean;
  createdAt: string;
  /**
   * The user who created it (its events are those this user sees, §12); absent on endpoints created
   * before creators were recorded, which see shared lists only.
   */
  createdBy?: string;
  /** The current secret first, then rotated-out ones still signing. */
  secrets: SealedSecret[];
  /** The account's feed position deliveries were queued up to (lib/events/store.ts numbers). */
  cursor: number;
  /** Since when every delivery failed (ISO), for the 5-day rule; absent while any succeeds. */
  failingSince?: string;
}

type Item = Record<string, unknown>;

function toWebhook(item: Item): StoredWebhook {
  return {
    accountId: String(item['accountId']),
    id: String(item['id']),
    url: String(item['url']),
    description: (item['description'] as string | null | undefined) ?? null,
    enabled: item['enabled'] === true,
    createdAt: String(item['createdAt']),
    ...(typeof item['createdBy'] === 'string' ? { createdBy: item['createdBy'] } : {}),
    secrets: (item['secrets'] as SealedSecret[] | undefined) ?? [],
    cursor: Number(item['cursor'] ?? 0),
    ...(typeof item['failingSince'] === 'string' ? { failingSince: item['failingSince'] } : {}),
  };
}

function webhookItem(w: StoredWebhook): Item {
  return { ...keys.webhook(w.accountId, w.id), entity: 'Webhook', ...w };
}

export class WebhookLimitError extends Error {
  override readonly name = 'WebhookLimitError';
}

/** Adds an endpoint unless the account has MAX_WEBHOOKS already (WebhookLimitError). */
export async function putNewWebhook(webhook: StoredWebhook): Promise<void> {
  try {
    await send(() =>
      dynamodb().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName(),
                Key: keys.webhookCount(webhook.accountId),
                UpdateExpression: 'SET entity = :entity ADD n :one',
                ConditionExpression: 'attribute_not_exists(n) OR n < :max',
                ExpressionAttributeValues: { ':entity': 'WebhookCount', ':one': 1, ':max': MAX_WEBHOOKS },
              },
            },
            {
              Put: {
                TableName: tableName(),
                Item: webhookItem(webhook),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: tableName(),
                Item: {
                  ...keys.webhookListing(webhook.accountId, webhook.id),
                  entity: 'WebhookListing',
                  accountId: webhook.accountId,
                  webhookId: webhook.id,
                },
              },
            },
          ],
        }),
      ),
    );
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') throw new WebhookLimitError();
    throw error;
  }
}

export async function getWebhook(
  accountId: string,
  webhookId: string,
  { consistent = false } = {},
): Promise<StoredWebhook | null> {
  const item = await getItem(tableName(), keys.webhook(accountId, webhookId), { consistent });
  return item ? toWebhook(item) : null;
}

/** The account's endpoints, oldest first (their ids are random: by creation time, then id). */
export async function getWebhooks(accountId: string, { consistent = false } = {}): Promise<StoredWebhook[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :webhook)',
    ExpressionAttributeValues: { ':pk': keys.webhooks(accountId), ':webhook': 'WEBHOOK#' },
    ...(consistent ? { ConsistentRead: true } : {}),
  });
  return items
    .map(toWebhook)
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
}

export type WebhookChanges = Partial<
  Pick<StoredWebhook, 'url' | 'description' | 'enabled' | 'secrets' | 'cursor' | 'failingSince' | 'createdBy'>
> & { clearFailing?: true };

/**
 * Sets fields of an endpoint that still exists; answers it as it is now, or null when it is gone.
 * `expected`: only if these fields still hold these values (a rotation read the secrets it replaces;
 * the fan-out moves the cursor from where it read it) — else null as well, and the caller reads again.
 */
export async function updateWebhook(
  accountId: string,
  webhookId: string,
  changes: WebhookChanges,
  expected: Partial<Pick<StoredWebhook, 'cursor' | 'secrets'>> = {},
): Promise<StoredWebhook | null> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const conditions = ['attribute_exists(pk)'];
  for (const [field, value] of Object.entries(changes)) {
    if (field === 'clearFailing' || value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  }
  for (const [field, value] of Object.entries(expected)) {
    names[`#${field}`] = field;
    values[`:was_${field}`] = value;
    conditions.push(`#${field} = :was_${field}`);
  }
  if (changes.clearFailing) names['#failingSince'] = 'failingSince';
  const update =
    (sets.length > 0 ? `SET ${sets.join(', ')}` : '') + (changes.clearFailing ? ' REMOVE #failingSince' : '');
  if (update.trim() === '') return getWebhook(accountId, webhookId, { consistent: true });
  try {
    const { Attributes } = await send(() =>
      dynamodb().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhook(accountId, webhookId),
          UpdateExpression: update.trim(),
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return toWebhook(Attributes!);
  } catch (error) {
    if (isConditionFailed(error)) return null;
    throw error;
  }
}

/**
 * Takes the endpoint's test slot at `atMs` unless a test was sent less than `intervalMs` before (§12:
 * one a minute). Answers null when taken, else when the last test was sent (ms); null too when the
 * endpoint is gone (the caller read it first and answers 404 on its own).
 */
export async function claimTestSlot(
  accountId: string,
  webhookId: string,
  atMs: number,
  intervalMs: number,
): Promise<number | null> {
  const claimed = await conditionHeld(() =>
    send(() =>
      dynamodb().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhook(accountId, webhookId),
          UpdateExpression: 'SET lastTestAtMs = :at',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(lastTestAtMs) OR lastTestAtMs <= :since)',
          ExpressionAttributeValues: { ':at': atMs, ':since': atMs - intervalMs },
        }),
      ),
    ),
  );
  if (claimed) return null;
  const item = await getItem(tableName(), keys.webhook(accountId, webhookId), { consistent: true });
  return typeof item?.['lastTestAtMs'] === 'number' ? item['lastTestAtMs'] : null;
}

/** Deletes an endpoint, its listing entry and its place in the count; false when it was not there. */
export async function deleteWebhook(accountId: string, webhookId: string): Promise<boolean> {
  try {
    await send(() =>
      dynamodb().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: tableName(),
                Key: keys.webhook(accountId, webhookId),
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
            { Delete: { TableName: tableName(), Key: keys.webhookListing(accountId, webhookId) } },
            {
              Update: {
                TableName: tableName(),
                Key: keys.webhookCount(accountId),
                UpdateExpression: 'ADD n :minus',
                ExpressionAttributeValues: { ':minus': -1 },
              },
            },
          ],
        }),
      ),
    );
    return true;
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** Every endpoint of the service (the delivery fan-out; never on a request path). */
export async function getAllWebhookListings(): Promise<Array<{ accountId: string; webhookId: string }>> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.webhookListings() },
    ConsistentRead: true,
  });
  return items.map((i) => ({ accountId: String(i['accountId']), webhookId: String(i['webhookId']) }));
}
