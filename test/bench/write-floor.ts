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
import { jfrPhase } from './jfr';
import { dynamoDbLocalCpuMs } from './local-dynamodb';
import { middleMedian } from './statistics';

/**
 * Items a second and DynamoDB Local's own CPU (ms) an item, for one kind of write request: the median
 * of its measured rounds (each figure's own), and the rounds themselves.
 */
export interface WriteRate {
  itemsPerSecond: number;
  javaMsPerItem: number;
  rounds?: RoundRate[];
}

/** One round's items a second and DynamoDB Local's CPU (ms) an item. */
export interface RoundRate {
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
/** Measured rounds of each kind, taking turns: a round says as much of its seconds as of DynamoDB Local. */
export const FLOOR_ROUNDS = 5;
const KINDS = ['batch', 'transaction', 'update', 'read'] as const;

/**
 * Every kind of request, after a warm-up round of each, in `FLOOR_ROUNDS` rounds that take turns (batch,
 * transaction, update, read, batch, …) on a table of its own: each kind's figures are the median of its
 * rounds, so that one round disturbed (another process, DynamoDB Local's memory growing) does not
 * set them, and the kinds are measured over the same seconds.
 */
export async function measureWriteFloor(endpoint: string, items = 3_000): Promise<WriteFloor> {
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
    // Round r's items are numbered from its own block: the batch round's are read back by the read round.
    const round = (kind: (typeof KINDS)[number], r: number) => {
      const from = (KINDS.indexOf(kind === 'read' ? 'batch' : kind) + r * KINDS.length) * items;
      if (kind === 'read') return readRound(client, endpoint, table, from, items);
      // One request an item: a tenth as many items keeps its rounds as short as the others.
      return writeRound(
        client,
        endpoint,
        table,
        kind,
        from,
        kind === 'update' ? Math.ceil(items / 10) : items,
      );
    };
    const rounds = new Map<(typeof KINDS)[number], RoundRate[]>(KINDS.map((kind) => [kind, []]));
    for (let r = 0; r <= FLOOR_ROUNDS; r++)
      for (const kind of KINDS) {
        const measured =
          kind === 'batch' && r === 1
            ? await jfrPhase(endpoint, 'floor-batch', () => round(kind, r))
            : await round(kind, r);
        // Round 0 warms each kind up.
        if (r > 0) rounds.get(kind)!.push(measured);
      }
    const [batch, transaction, update, read] = KINDS.map((kind) => medianRate(rounds.get(kind)!));
    return { batch: batch!, transaction: transaction!, update: update!, read: read! };
  } finally {
    client.destroy();
  }
}

/** The median rate and the median CPU an item of these rounds (each its own median), the rounds kept. */
export function medianRate(rounds: RoundRate[]): WriteRate {
  return {
    itemsPerSecond: middleMedian(rounds.map((round) => round.itemsPerSecond)),
    javaMsPerItem: middleMedian(rounds.map((round) => round.javaMsPerItem)),
    rounds,
  };
}

/**
 * The floors measured just before and just after a run: what DynamoDB Local could do over the minutes
 * the run took. Each kind's figures are the median of both floors' rounds together (the mean of the two
 * when a floor has no rounds): one round alone says as much of the minute it ran in as of DynamoDB Local
 * (docs/benchmarks.md, "Financial filings").
 */
export function bracketingFloor(before: WriteFloor, after: WriteFloor): WriteFloor {
  const both = (a: WriteRate, b: WriteRate): WriteRate =>
    a.rounds?.length && b.rounds?.length
      ? medianRate([...a.rounds, ...b.rounds])
      : {
          itemsPerSecond: (a.itemsPerSecond + b.itemsPerSecond) / 2,
          javaMsPerItem: (a.javaMsPerItem + b.javaMsPerItem) / 2,
        };
  return {
    batch: both(before.batch, after.batch),
    transaction: both(before.transaction, after.transaction),
    update: both(before.update, after.update),
    read: both(before.read, after.read),
  };
}

/** The lowest and highest of a figure over a kind's rounds (`a–b`). */
const spread = (rounds: RoundRate[], figure: (round: RoundRate) => number, digits: number) => {
  const values = rounds.map(figure);
  const text = (value: number) => (digits ? value.toFixed(digits) : String(Math.round(value)));
  return `${text(Math.min(...values))}–${text(Math.max(...values))}`;
};

/**
 * A floor as the benches print it: medians of the rounds for batch / transaction / update, rates and
 * CPU an item, and how far the batched rounds went from each other.
 */
export const floorLine = (floor: WriteFloor) =>
  `${Math.round(floor.batch.itemsPerSecond)} / ${Math.round(floor.transaction.itemsPerSecond)} / ` +
  `${Math.round(floor.update.itemsPerSecond)} items/s, CPU an item ${floor.batch.javaMsPerItem.toFixed(2)} / ` +
  `${floor.transaction.javaMsPerItem.toFixed(2)} / ${floor.update.javaMsPerItem.toFixed(2)} ms` +
  (floor.batch.rounds?.length
    ? `; medians of ${floor.batch.rounds.length} rounds each, the batched rounds ` +
      `${spread(floor.batch.rounds, (round) => round.itemsPerSecond, 0)} items/s, ` +
      `${spread(floor.batch.rounds, (round) => round.javaMsPerItem, 2)} ms`
    : '');

/**
 * The most companies a second DynamoDB Local takes for writes split like the import's (items per
 * company through BatchWriteItem and through TransactWriteItems), if nothing else used the machine;
 * with `readKeys` (keys a company reads in BatchGetItem requests), its reads too at the read floor's
 * rate: priced only in a ceiling that says so, beside the writes-only one (the import counts no reads).
 */
export function companiesPerSecondCeiling(floor: WriteFloor, perCompany: WriteSplit, readKeys = 0): number {
  const secondsPerCompany =
    perCompany.batchItems / floor.batch.itemsPerSecond +
    perCompany.transactionItems / floor.transaction.itemsPerSecond +
    (perCompany.updateItems ?? 0) / floor.update.itemsPerSecond +
    readKeys / floor.read.itemsPerSecond;
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

/** One import run against its ceiling: its share, and the CPU (ms) a filing of DynamoDB Local and of the command. */
export interface JudgedRun {
  /** Percent of the ceiling of the floors around the run. */
  share: number;
  /** DynamoDB Local's CPU a filing in the run. */
  javaMs: number;
  /** The items the run wrote a filing, at the floor's CPU an item. */
  floorMs: number;
  /** The import command's CPU a filing. */
  commandMs: number;
}

/**
 * Runs of the same import, each judged against the floors measured around it: each run's share and
 * the median of them, with DynamoDB Local's CPU a filing against the floor's price of its items. One
 * run's share says as much of its minute as of the import (the floor moves by a third between runs).
 */
export function runsLine(runs: JudgedRun[]): string {
  const each = (figure: (run: JudgedRun) => number, digits: number, unit = '') => {
    const values = runs.map(figure);
    const text = (value: number) => `${value.toFixed(digits)}${unit}`;
    return `${values.map(text).join(', ')} (median ${text(middleMedian(values))})`;
  };
  return (
    `${runs.length} runs, shares of their ceilings ${each((run) => run.share, 0, ' %')}; DynamoDB Local's CPU ` +
    `a filing ${each((run) => run.javaMs, 3, ' ms')}, over the floor's price of its items ` +
    `${each((run) => run.javaMs / run.floorMs, 2)}; the import command ${each((run) => run.commandMs, 3, ' ms')}`
  );
}
