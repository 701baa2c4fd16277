/**
 * What a process writes and consumes, for an import's cost figures (`npm run import`, the benches):
 * counters on the storage client's middleware stack, apart from lib/storage/client.ts so the functions,
 * which never count, do not bundle them.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { extendClient } from './client';

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand']);
const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);
let counting = false;
let asking = false;
const capacity = { read: 0, write: 0 };

/**
 * From now on this process counts the items and requests it writes, for an import's cost figures, and
 * with `askCapacity` asks DynamoDB what each read and write consumed (ReturnConsumedCapacity). Asking is
 * free on AWS, where the answer is the bill; DynamoDB Local answers it with a third job an item (its
 * table's description read and parsed again), which makes its writes about half as dear again
 * (docs/benchmarks.md, "Inside DynamoDB Local"). A function answering requests never turns counting on.
 */
export function countWrites({ askCapacity }: { askCapacity: boolean }): void {
  if (askCapacity && !asking) {
    asking = true;
    extendClient(askForCapacity);
  }
  if (counting) return;
  counting = true;
  extendClient(addCounters);
}

/** Read and write capacity units consumed so far; null unless `countWrites` was asked to ask for them. */
export const capacitySoFar = (): { read: number; write: number } | null => (asking ? { ...capacity } : null);

/** Items and write requests sent by this process, per command (`PutItemCommand`, `BatchWriteItemCommand`…). */
export interface WriteCount {
  requests: number;
  items: number;
}

const writeCounts = new Map<string, WriteCount>();

/**
 * What this process has written since `countWrites()`, per command: the import reports items and requests per changed
 * company from it. A BatchWriteItem counts its items, a TransactWriteItems its actions, a single write 1;
 * leftovers (UnprocessedItems) sent again count again, as they cost again.
 */
export function writesSoFar(): Map<string, WriteCount> {
  return new Map([...writeCounts].map(([command, count]) => [command, { ...count }]));
}

/** Counts a write command's items and request; false for anything that is not a write. */
function countWrite(command: string, input: Record<string, unknown>): boolean {
  let items: number;
  if (command === 'BatchWriteItemCommand') {
    const requests = (input['RequestItems'] ?? {}) as Record<string, unknown[]>;
    items = Object.values(requests).reduce((sum, list) => sum + list.length, 0);
  } else if (command === 'TransactWriteItemsCommand') {
    items = (input['TransactItems'] as unknown[] | undefined)?.length ?? 0;
  } else if (
    command === 'PutItemCommand' ||
    command === 'UpdateItemCommand' ||
    command === 'DeleteItemCommand'
  ) {
    items = 1;
  } else {
    return false;
  }
  const count = writeCounts.get(command) ?? { requests: 0, items: 0 };
  count.requests++;
  count.items += items;
  writeCounts.set(command, count);
  return true;
}

/**
 * The write and capacity counters (countWrites). Put on the client's stack only once a process turns
 * counting on: the SDK resolves its whole middleware stack again for every call (sorts it, wraps each
 * middleware), so a middleware that only checks a flag still costs every request its share.
 */
function addCounters(base: DynamoDBClient): void {
  base.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      const write = countWrite(command, args.input as Record<string, unknown>);
      if (!(write || READS.has(command))) return next(args);
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const units = [consumed ?? []].flat() as Array<{ CapacityUnits?: number }>;
      capacity[write ? 'write' : 'read'] += units.reduce((sum, u) => sum + (u.CapacityUnits ?? 0), 0);
      return result;
    },
    // Once per call (the SDK's retries of an attempt come later): what the caller asked to write.
    { step: 'build', name: 'writeCounter' },
  );
}

/** Every read and write asks DynamoDB what it consumed; the counter above adds up the answers. */
function askForCapacity(base: DynamoDBClient): void {
  base.middlewareStack.add(
    (next, context) => (args) => {
      // Asked for before the request is serialised.
      if (WRITES.has(context.commandName ?? '') || READS.has(context.commandName ?? '')) {
        (args.input as Record<string, unknown>)['ReturnConsumedCapacity'] = 'TOTAL';
      }
      return next(args);
    },
    { step: 'initialize', name: 'capacityRequest' },
  );
}
