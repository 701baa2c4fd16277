/**
 * Batch reads and writes within DynamoDB's limits (BatchGetItem ≤ 100 keys, BatchWriteItem ≤ 25
 * items), issued in parallel, with their leftovers (UnprocessedKeys / UnprocessedItems) retried
 * with bounded exponential backoff and full jitter. Leftovers still there after the last attempt
 * mean the table is throttling: StorageUnavailableError (503 to a caller), never a partial result.
 */
import {
  BatchGetItemCommand,
  GetItemCommand,
  QueryCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { forEachLimited } from '../concurrency';
import { marshall } from '@aws-sdk/util-dynamodb';
import { itemFromAttributes } from './attribute-values';
import { dynamodb, send, tableName } from './client';
import { StorageUnavailableError } from './errors';
import { assertOneActionPerItem, uniqueKey } from './one-action-per-item';

type Key = Record<string, unknown>;
type Item = Record<string, unknown>;

export const BATCH_GET_LIMIT = 100;
export const BATCH_WRITE_LIMIT = 25;
const MAX_ATTEMPTS = 6;
const BASE_DELAY_MS = 25;
const MAX_DELAY_MS = 1000;

export interface ReadOptions {
  /** Only these attributes (names may be reserved words: they go through placeholders). */
  projection?: readonly string[];
  /** Strongly consistent reads (twice the read cost): for read-then-write paths such as the import. */
  consistent?: boolean;
}

/**
 * The keys without repeats, in the order of their first use (as a Map keeps them). A loop, not an
 * arrow handed to `map`: code run for every key of a request is kept out of closures made per request,
 * which V8 compiles again and again (`--trace-opt` on a warm process shows it).
 */
function uniqueKeys(keys: Key[]): Key[] {
  const unique = new Map<string, Key>();
  for (const key of keys) unique.set(uniqueKey(key), key);
  return [...unique.values()];
}

/**
 * BatchGetItem requests one read sends at once: a read of thousands of keys (a list's members, an
 * import's batch) goes in waves rather than opening a connection per 100 keys, which a loaded table
 * endpoint answers late or not at all.
 */
const BATCH_GETS_IN_FLIGHT = 16;

/** Reads items by key; keys may repeat. Missing items are simply absent from the result. */
export async function batchGet(table: string, keys: Key[], options: ReadOptions = {}): Promise<Item[]> {
  const parts = chunk(uniqueKeys(keys), BATCH_GET_LIMIT);
  if (parts.length === 1) return batchGetChunk(table, parts[0]!, options);
  const pages: Item[][] = new Array(parts.length);
  await forEachLimited(
    parts.map((part, index) => ({ part, index })),
    BATCH_GETS_IN_FLIGHT,
    async ({ part, index }) => {
      pages[index] = await batchGetChunk(table, part, options);
    },
  );
  return pages.flat();
}

/**
 * Reads one item by key, or undefined. The single read of most GET functions, so it takes the short way:
 * the low-level GetItem with the key marshalled and the item unmarshalled here. The document client's
 * GetCommand wraps the same command and resolves the client's middleware stack twice per call, a
 * visible share of a single GET's CPU (docs/benchmarks.md).
 */
export async function getItem(table: string, key: Key, options: ReadOptions = {}): Promise<Item | undefined> {
  const { Item } = await send(() =>
    dynamodb().send(
      new GetItemCommand({
        TableName: table,
        Key: marshall(key),
        ...(options.projection ? projection(options.projection) : {}),
        ...(options.consistent ? { ConsistentRead: true } : {}),
      }),
    ),
  );
  return Item ? itemFromAttributes(Item) : undefined;
}

/**
 * A ProjectionExpression over placeholders (`name` and many other words are reserved in DynamoDB).
 * Built once per attribute list (the stores' lists are constants): the SDK only reads it.
 */
export function projection(attributes: readonly string[]): Projection {
  let built = projections.get(attributes);
  if (!built) {
    const names = Object.fromEntries(attributes.map((attribute, i) => [`#p${i}`, attribute]));
    built = Object.freeze({
      ProjectionExpression: Object.keys(names).join(','),
      ExpressionAttributeNames: Object.freeze(names),
    });
    projections.set(attributes, built);
  }
  return built;
}

interface Projection {
  readonly ProjectionExpression: string;
  readonly ExpressionAttributeNames: Readonly<Record<string, string>>;
}

const projections = new WeakMap<readonly string[], Projection>();

/**
 * One BatchGetItem of ≤ 100 keys and its leftovers, the short way as `getItem`: the low-level command,
 * keys marshalled and items unmarshalled here (the document client's BatchGetCommand resolves the
 * middleware stack twice per call). Leftover keys come back marshalled and are sent again as they are.
 */
async function batchGetChunk(table: string, keys: Key[], options: ReadOptions): Promise<Item[]> {
  const items: Item[] = [];
  let pending: Record<string, AttributeValue>[] = [];
  for (const key of keys) pending.push(marshall(key));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === MAX_ATTEMPTS) throw new StorageUnavailableError();
    if (attempt > 0) await backoff(attempt);
    const result = await send(() =>
      dynamodb().send(
        new BatchGetItemCommand({
          RequestItems: {
            [table]: {
              Keys: pending,
              ...(options.projection ? projection(options.projection) : {}),
              ...(options.consistent ? { ConsistentRead: true } : {}),
            },
          },
        }),
      ),
    );
    for (const item of result.Responses?.[table] ?? []) items.push(itemFromAttributes(item));
    pending = result.UnprocessedKeys?.[table]?.Keys ?? [];
  }
  return items;
}

/** Puts items, 25 per request, `concurrency` requests at a time. */
export function batchPut(table: string, items: Item[], concurrency = 8): Promise<void> {
  return batchWrite(
    table,
    items.map((Item) => ({ PutRequest: { Item } })),
    concurrency,
  );
}

/** Deletes items by key (absent ones are no error), 25 per request, `concurrency` requests at a time. */
export function batchDelete(table: string, keys: Key[], concurrency = 8): Promise<void> {
  const unique = uniqueKeys(keys);
  return batchWrite(
    table,
    unique.map((Key) => ({ DeleteRequest: { Key } })),
    concurrency,
  );
}

export type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Key } };

/**
 * Puts and deletes together, 25 per request, `concurrency` requests at a time. No two may name one
 * item: BatchWriteItem refuses that within a request, and across requests sent at once the last to
 * arrive would win by chance.
 */
export async function batchWrite(
  table: string,
  requests: WriteRequest[],
  concurrency: number,
): Promise<void> {
  assertOneActionPerItem('BatchWriteItem', requests.map(requestKey));
  await forEachLimited(chunk(requests, BATCH_WRITE_LIMIT), concurrency, (part) =>
    batchWriteChunk(table, part),
  );
}

const requestKey = (request: WriteRequest): Key =>
  'PutRequest' in request ? request.PutRequest.Item : request.DeleteRequest.Key;

async function batchWriteChunk(table: string, requests: WriteRequest[]): Promise<void> {
  let pending = requests;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === MAX_ATTEMPTS) throw new StorageUnavailableError();
    if (attempt > 0) await backoff(attempt);
    const result = await send(() =>
      dynamodb().send(new BatchWriteCommand({ RequestItems: { [table]: pending } })),
    );
    pending = (result.UnprocessedItems?.[table] as WriteRequest[] | undefined) ?? [];
  }
}

/** Waits before retry `attempt` (1, 2, …): full jitter under a ceiling that doubles, bounded. */
export function backoff(attempt: number, baseMs = BASE_DELAY_MS, maxMs = MAX_DELAY_MS): Promise<void> {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

/** What a `retrying` attempt answers when it must be tried again. */
export const AGAIN = Symbol('again');

/**
 * Runs `attempt` until it answers something other than AGAIN, with `backoff` between tries (none
 * before the first). Past `maxAttempts` the storage is too busy: StorageUnavailableError (503), never
 * a silently dropped write.
 */
export async function retrying<T>(
  attempt: (n: number) => Promise<T | typeof AGAIN>,
  { maxAttempts = MAX_ATTEMPTS, baseMs = BASE_DELAY_MS, maxMs = MAX_DELAY_MS } = {},
): Promise<T> {
  for (let n = 0; n < maxAttempts; n++) {
    if (n > 0) await backoff(n, baseMs, maxMs);
    const result = await attempt(n);
    if (result !== AGAIN) return result;
  }
  throw new StorageUnavailableError();
}

export function chunk<T>(items: T[], size: number): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < items.length; i += size) parts.push(items.slice(i, i + size));
  return parts;
}

export interface QueryOptions {
  /** At most this many items (each page asks for what is still missing). */
  limit?: number;
  /** Stop once the items read so far are enough (checked after each page). */
  until?: (items: Item[]) => boolean;
}

/**
 * Every item a Query matches, page after page (LastEvaluatedKey), or the first `limit` of them, or
 * until `until` says enough. Never on a request path for an unbounded partition without a bound.
 */
export async function queryAll(
  input: Omit<QueryInput, 'ExclusiveStartKey'>,
  { limit, until }: QueryOptions = {},
): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const missing = limit === undefined ? undefined : limit - items.length;
    if (missing !== undefined && missing <= 0) break;
    // `input.Limit` is a page size (items evaluated per page); `limit` caps the items returned.
    const pageLimit = missing === undefined ? input.Limit : Math.min(missing, input.Limit ?? missing);
    const page = await queryPage({ ...input, Limit: pageLimit, ExclusiveStartKey: startKey });
    items.push(...page.items);
    startKey = page.lastKey;
  } while (startKey && !until?.(items));
  return items;
}

/** A Query as the stores write it: values as plain values (the legacy KeyConditions and QueryFilter are not used). */
export type QueryInput = Omit<QueryCommandInput, 'KeyConditions' | 'QueryFilter'>;

/**
 * One page of a Query, the short way as `getItem`: the low-level command, the values and start key
 * marshalled and the items converted here (the document client's QueryCommand resolves the middleware
 * stack twice per call). `lastKey` is where the next page starts, absent after the last.
 */
export async function queryPage(
  input: QueryInput,
): Promise<{ items: Item[]; lastKey?: Key; scanned: number }> {
  const { ExpressionAttributeValues: values, ExclusiveStartKey: startKey, ...rest } = input;
  const page = await send(() =>
    dynamodb().send(
      new QueryCommand({
        ...rest,
        ...(values ? { ExpressionAttributeValues: marshall(values, { removeUndefinedValues: true }) } : {}),
        ...(startKey ? { ExclusiveStartKey: marshall(startKey) } : {}),
      }),
    ),
  );
  const items: Item[] = [];
  for (const item of page.Items ?? []) items.push(itemFromAttributes(item));
  // `scanned`: the items the Query evaluated, before a FilterExpression kept `items` of them.
  const scanned = page.ScannedCount ?? items.length;
  return page.LastEvaluatedKey
    ? { items, lastKey: itemFromAttributes(page.LastEvaluatedKey), scanned }
    : { items, scanned };
}

/**
 * Every item of these partitions (a sharded family of notes or marks), strongly consistent: one Query
 * each, all at once.
 */
export async function queryPartitions(
  partitionKeys: string[],
  input: Pick<QueryInput, 'ProjectionExpression' | 'ExpressionAttributeNames'> = {},
  options: { limit?: number } = {},
): Promise<Item[]> {
  const partitions = await Promise.all(
    partitionKeys.map((pk) =>
      queryAll(
        {
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
          ...input,
        },
        options,
      ),
    ),
  );
  return partitions.flat();
}
