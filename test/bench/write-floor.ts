/**
 * What DynamoDB Local itself can write on this machine, measured in the same run as the import it
 * judges: small items (the size of most derived items) in BatchWriteItem and in TransactWriteItems
 * requests of 25, 8 requests in flight, into a table made like the service's (its indexes included).
 * Nothing of the project's code runs here but the table definition: this is the floor no import can
 * beat, whatever it does between its writes.
 *
 * The import prints how many of its items went through each kind of request; with the floor's rates
 * that gives the most companies a second DynamoDB Local could take if the import cost nothing, so the
 * bench can say how near the import comes to it, and why a budget above it cannot be met here.
 */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DynamoDBClient,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { dynamoDbLocalCpuMs } from './local-dynamodb';

/** Items a second and DynamoDB Local's own CPU (ms) an item, for one kind of write request. */
export interface WriteRate {
  itemsPerSecond: number;
  javaMsPerItem: number;
}

export interface WriteFloor {
  batch: WriteRate;
  transaction: WriteRate;
  /**
   * The same small items as one UpdateItem request each (a string set `ADD`, as a match index's), 8 in
   * flight: what an idempotent update costs sent alone rather than in a TransactWriteItems of 25.
   */
  update: WriteRate;
  /** Reads by key in BatchGetItem requests of 100 (items/s, ms an item): what an unchanged re-import does per company. */
  read: WriteRate;
}

export const ITEMS_PER_REQUEST = 25;
export const IN_FLIGHT = 8;

/** Measures both kinds of request, each after a warm-up round, on a table of its own. */
export async function measureWriteFloor(endpoint: string, items = 10_000): Promise<WriteFloor> {
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const table = `write-floor-${randomUUID()}`;
  await ensureTable(endpoint, table);
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    // One request an item: a tenth as many items keeps its rounds as short as the others.
    const round = (kind: 'batch' | 'transaction' | 'update', from: number) =>
      writeRound(client, endpoint, table, kind, from, kind === 'update' ? Math.ceil(items / 10) : items);
    await round('batch', 0);
    const batch = await round('batch', items);
    await round('transaction', 2 * items);
    const transaction = await round('transaction', 3 * items);
    await round('update', 4 * items);
    const update = await round('update', 5 * items);
    // The batch rounds' items, read back by key.
    await readRound(client, endpoint, table, 0, items);
    const read = await readRound(client, endpoint, table, items, items);
    return { batch, transaction, update, read };
  } finally {
    client.destroy();
  }
}

/**
 * The most companies a second DynamoDB Local takes for writes split like the import's (items per
 * company through BatchWriteItem and through TransactWriteItems), if nothing else used the machine.
 */
export function companiesPerSecondCeiling(floor: WriteFloor, perCompany: WriteSplit): number {
  const secondsPerCompany =
    perCompany.batchItems / floor.batch.itemsPerSecond +
    perCompany.transactionItems / floor.transaction.itemsPerSecond +
    (perCompany.updateItems ?? 0) / floor.update.itemsPerSecond;
  return secondsPerCompany > 0 ? 1 / secondsPerCompany : Infinity;
}

/** Items per company through BatchWriteItem, TransactWriteItems and single UpdateItem requests. */
export interface WriteSplit {
  batchItems: number;
  transactionItems: number;
  updateItems?: number;
}

/** The import's `writes:` line → items per changed company through each kind of request. */
export function importWriteSplit(writesLine: string): Required<WriteSplit> {
  const figure = (request: string) => Number(new RegExp(`${request} ([\\d.]+) /`).exec(writesLine)?.[1] ?? 0);
  return {
    batchItems: figure('BatchWriteItem'),
    transactionItems: figure('TransactWriteItems'),
    updateItems: figure('UpdateItem'),
  };
}

const KEYS_PER_READ = 100;

/** Writes `count` floor items from `from` on, in requests of 25 of one kind (an update: one a request). */
function writeRound(
  client: DynamoDBClient,
  endpoint: string,
  table: string,
  kind: 'batch' | 'transaction' | 'update',
  from: number,
  count: number,
): Promise<WriteRate> {
  const perRequest = kind === 'update' ? 1 : ITEMS_PER_REQUEST;
  return timedRound(endpoint, from, count, perRequest, async (first, end) => {
    if (kind === 'update') {
      const { pk, sk, data } = floorItem(first);
      await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: { pk, sk },
          UpdateExpression: 'ADD #m :m SET entity = :e',
          ExpressionAttributeNames: { '#m': 'members' },
          ExpressionAttributeValues: { ':m': { SS: [data.S.slice(0, 40)] }, ':e': { S: 'FLOOR' } },
        }),
      );
      return;
    }
    const items = range(first, end).map(floorItem);
    if (kind === 'transaction') {
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: items.map((Item) => ({ Put: { TableName: table, Item } })),
        }),
      );
      return;
    }
    const answer = await client.send(
      new BatchWriteItemCommand({
        RequestItems: { [table]: items.map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
    // DynamoDB Local does not throttle; a partial answer would make the floor flatter than it is.
    if (Object.keys(answer.UnprocessedItems ?? {}).length) throw new Error('write floor: unprocessed items');
  });
}

/** Reads back `count` floor items by key from `from` on, in BatchGetItem requests of 100. */
function readRound(
  client: DynamoDBClient,
  endpoint: string,
  table: string,
  from: number,
  count: number,
): Promise<WriteRate> {
  return timedRound(endpoint, from, count, KEYS_PER_READ, async (first, end) => {
    const Keys = range(first, end).map((i) => {
      const { pk, sk } = floorItem(i);
      return { pk, sk };
    });
    const answer = await client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys } } }));
    if (Object.keys(answer.UnprocessedKeys ?? {}).length) throw new Error('read floor: unprocessed keys');
  });
}

/**
 * Items `from` … `from + count - 1` cut into requests of `perRequest`, IN_FLIGHT at once: the rate and
 * DynamoDB Local's CPU an item.
 */
async function timedRound(
  endpoint: string,
  from: number,
  count: number,
  perRequest: number,
  request: (first: number, end: number) => Promise<void>,
): Promise<WriteRate> {
  const javaBefore = dynamoDbLocalCpuMs(endpoint);
  const started = process.hrtime.bigint();
  let next = from;
  const end = from + count;
  const worker = async () => {
    while (next < end) {
      const first = next;
      next += perRequest;
      await request(first, Math.min(first + perRequest, end));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    itemsPerSecond: count / seconds,
    javaMsPerItem: (dynamoDbLocalCpuMs(endpoint) - javaBefore) / count,
  };
}

const range = (first: number, end: number) => Array.from({ length: end - first }, (_, i) => first + i);

/** About 170 bytes, like a match-index, search or lookalike-features item: most of what an import writes. */
function floorItem(i: number) {
  return {
    pk: { S: `FLOOR#${i % 1009}` },
    sk: { S: `ITEM#${String(i).padStart(9, '0')}` },
    entity: { S: 'FLOOR' },
    data: { S: `${i}:`.padEnd(90, 'x') },
  };
}

/** What DynamoDB Local spent on one kind of recorded request, replayed. */
export interface ReplayedKind {
  operation: string;
  requests: number;
  /** Items written (a batch's or transaction's entries) or keys read; 1 for a single-item request. */
  items: number;
  bytes: number;
  /** Requests DynamoDB Local refused (a condition that failed on the replay's table, say). */
  refused: number;
  /** What DynamoDB Local answered the first refused request. */
  refusal?: string;
  javaMs: number;
}

const WRITE_OPERATIONS = new Set([
  'BatchWriteItem',
  'TransactWriteItems',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
]);
const READ_OPERATIONS = new Set(['BatchGetItem', 'GetItem', 'Query', 'TransactGetItems']);

/**
 * Recorded requests of an import (test/bench/recording-proxy.ts) sent again, as recorded, to a table of
 * their own made like the service's: first the writes, one kind of request after another, each in its
 * recorded order, IN_FLIGHT at once (the same items through the same kinds of request), then the reads
 * (on the items as the writes left them). A condition that held in the import may fail here (a
 * transaction replayed before the batch that wrote what it checks): such requests are counted as refused. DynamoDB
 * Local's CPU for each kind of request says how much of what it spent on the import was the items
 * written, request by request, and how much the reads; against the floor's small items, how much the
 * items' size and shape cost.
 */
export async function replayRequests(
  endpoint: string,
  recorded: ReadonlyArray<{ operation: string; body: string; headers: Record<string, string> }>,
  fromTable: string,
  /** Makes the replay's table hold what the recorded run's held before it (its companies, say). */
  prepare: (table: string) => Promise<void> = async () => undefined,
): Promise<{ writes: ReplayedKind[]; reads: ReplayedKind[] }> {
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const table = `replay-${randomUUID()}`;
  await ensureTable(endpoint, table);
  await prepare(table);
  // A transaction's idempotency token names its first sending: sent again with another table it is refused.
  const renamed = (body: string) => {
    const input = JSON.parse(body.split(JSON.stringify(fromTable)).join(JSON.stringify(table))) as Record<
      string,
      unknown
    >;
    delete input['ClientRequestToken'];
    return JSON.stringify(input);
  };
  const phase = async (operations: Set<string>) => {
    const kinds = new Map<string, ReplayedKind>();
    for (const request of recorded.filter((r) => operations.has(r.operation))) {
      const kind = kinds.get(request.operation) ?? {
        operation: request.operation,
        requests: 0,
        items: 0,
        bytes: 0,
        refused: 0,
        javaMs: 0,
      };
      kinds.set(request.operation, kind);
    }
    // One kind at a time, each in its recorded order, so DynamoDB Local's CPU is told apart per kind.
    for (const kind of kinds.values()) {
      const requests = recorded.filter((r) => r.operation === kind.operation);
      const javaBefore = dynamoDbLocalCpuMs(endpoint);
      let next = 0;
      const worker = async () => {
        while (next < requests.length) {
          const request = requests[next++]!;
          const body = renamed(request.body);
          const headers = Object.fromEntries(
            Object.entries(request.headers).filter(([name]) => !['host', 'content-length'].includes(name)),
          );
          const answer = await fetch(endpoint, { method: 'POST', headers, body });
          const text = await answer.text();
          kind.requests++;
          kind.items += itemsOf(request.operation, request.body);
          kind.bytes += Buffer.byteLength(body);
          if (!answer.ok && kind.refused++ === 0) kind.refusal = text.slice(0, 300);
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      kind.javaMs = dynamoDbLocalCpuMs(endpoint) - javaBefore;
    }
    return [...kinds.values()];
  };
  const writes = await phase(WRITE_OPERATIONS);
  const reads = await phase(READ_OPERATIONS);
  return { writes, reads };
}

/** Items a request writes or keys it reads (1 for a single-item request or a query). */
function itemsOf(operation: string, body: string): number {
  const input = JSON.parse(body) as {
    RequestItems?: Record<string, unknown[] | { Keys: unknown[] }>;
    TransactItems?: unknown[];
  };
  if (operation === 'BatchWriteItem')
    return Object.values(input.RequestItems ?? {}).reduce((n, list) => n + (list as unknown[]).length, 0);
  if (operation === 'BatchGetItem')
    return Object.values(input.RequestItems ?? {}).reduce(
      (n, read) => n + (read as { Keys: unknown[] }).Keys.length,
      0,
    );
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems')
    return input.TransactItems?.length ?? 0;
  return 1;
}
