/**
 * Batch reads and writes within DynamoDB's limits (BatchGetItem ≤ 100 keys, BatchWriteItem ≤ 25
 * items), issued in parallel, with their leftovers (UnprocessedKeys / UnprocessedItems) retried
 * with bounded exponential backoff and full jitter. Leftovers still there after the last attempt
 * mean the table is throttling: the request answers 503, never a partial result.
 */
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { UnavailableError } from '../http/errors';
import { dynamodb, send } from './client';

type Key = Record<string, unknown>;
type Item = Record<string, unknown>;

export const BATCH_GET_LIMIT = 100;
export const BATCH_WRITE_LIMIT = 25;
const MAX_ATTEMPTS = 6;
const BASE_DELAY_MS = 25;
const MAX_DELAY_MS = 1000;

/** Reads items by key; keys may repeat. Missing items are simply absent from the result. */
export async function batchGet(table: string, keys: Key[], projection?: string[]): Promise<Item[]> {
  const unique = [...new Map(keys.map((key) => [JSON.stringify(key), key])).values()];
  const pages = await Promise.all(
    chunk(unique, BATCH_GET_LIMIT).map((part) => batchGetChunk(table, part, projection)),
  );
  return pages.flat();
}

async function batchGetChunk(table: string, keys: Key[], projection?: string[]): Promise<Item[]> {
  const items: Item[] = [];
  let pending = keys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === MAX_ATTEMPTS) throw new UnavailableError();
    if (attempt > 0) await backoff(attempt);
    const names = projection && Object.fromEntries(projection.map((p, i) => [`#p${i}`, p]));
    const result = await send(() =>
      dynamodb.send(
        new BatchGetCommand({
          RequestItems: {
            [table]: {
              Keys: pending,
              ...(names
                ? { ProjectionExpression: Object.keys(names).join(','), ExpressionAttributeNames: names }
                : {}),
            },
          },
        }),
      ),
    );
    items.push(...(result.Responses?.[table] ?? []));
    pending = (result.UnprocessedKeys?.[table]?.Keys as Key[] | undefined) ?? [];
  }
  return items;
}

/** Puts items, 25 per request, `concurrency` requests at a time. */
export async function batchPut(table: string, items: Item[], concurrency = 8): Promise<void> {
  const parts = chunk(items, BATCH_WRITE_LIMIT);
  let next = 0;
  const worker = async () => {
    while (next < parts.length) await batchPutChunk(table, parts[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, parts.length) }, worker));
}

async function batchPutChunk(table: string, items: Item[]): Promise<void> {
  let pending = items.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === MAX_ATTEMPTS) throw new UnavailableError();
    if (attempt > 0) await backoff(attempt);
    const result = await send(() =>
      dynamodb.send(new BatchWriteCommand({ RequestItems: { [table]: pending } })),
    );
    pending = (result.UnprocessedItems?.[table] as typeof pending | undefined) ?? [];
  }
}

function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

export function chunk<T>(items: T[], size: number): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < items.length; i += size) parts.push(items.slice(i, i + size));
  return parts;
}
