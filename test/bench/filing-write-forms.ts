/**
 * `npm run bench:filings -- --write-forms`: DynamoDB Local's CPU an item for the forms a filing import's
 * writes could take, each on fresh items, alternated over three rounds (the machine's load moves between
 * minutes; the rounds show how far one form's figure moves):
 *
 * - the update feed's addition (lib/updates/store.ts `feedAddition`, made by lib/storage/transactions.ts
 *   `batchAdd`): `SET u<id> = if_not_exists(u<id>, :v)` in a TransactWriteItems of 50 and of 25 items,
 *   each alone in an UpdateItem, and a Put conditional on the item's absence in a transaction of 50 —
 *   the forms that keep two imports' additions to one feed (a Put in BatchWriteItem, the reference,
 *   would lose one);
 * - a company item's size: BatchWriteItem puts of a feed-sized item and of items holding their periods
 *   as 3 texts of 300 and of 750 bytes, or one of 2,250 (a filing-imported company: 3 periods of ~750).
 *
 * Whether a form or a size costs DynamoDB Local CPU, which bounds the import, or only write units.
 */
import {
  BatchWriteItemCommand,
  DynamoDBClient,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import os from 'node:os';

const ITEMS = 3_000;
const ROUNDS = 3;
const IN_FLIGHT = 4;

type Item = Record<string, AttributeValue>;

export async function writeForms(): Promise<void> {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const { benchDynamoDb, dynamoDbLocalCpuMs } = await import('./local-dynamodb');
  const { endpoint, stop } = await benchDynamoDb({ log: console.error });
  const TableName = `write-forms-${Date.now()}`;
  await ensureTable(endpoint, TableName);
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const key = (i: number): Item => ({ pk: { S: `COMPANY#BE#${1_000_000_000 + i}` }, sk: { S: 'UPDATES' } });
  const update = (i: number): AttributeValue => ({
    L: [{ S: 'F' }, { S: '2022-06-30' }, { N: String(2021 + (i % 3)) }],
  });
  const attribute = (i: number) => `u${10n ** 18n + BigInt(i)}`;
  const addition = (i: number) => ({
    TableName,
    Key: key(i),
    UpdateExpression: 'SET #a0 = if_not_exists(#a0, :a0), #a1 = if_not_exists(#a1, :a1)',
    ExpressionAttributeNames: { '#a0': 'entity', '#a1': attribute(i) },
    ExpressionAttributeValues: { ':a0': { S: 'UpdateFeed' }, ':a1': update(i) },
  });
  const feed = (i: number): Item => ({ ...key(i), entity: { S: 'UpdateFeed' }, [attribute(i)]: update(i) });
  const withPeriods =
    (count: number, bytes: number) =>
    (i: number): Item => ({
      ...feed(i),
      periods: { L: Array.from({ length: count }, (_, n) => ({ S: `{"n":${n}}`.padEnd(bytes, ' ') })) },
    });
  const inGroups = (ids: number[], size: number, send: (group: number[]) => Promise<unknown>) =>
    inFlight(
      Array.from({ length: Math.ceil(ids.length / size) }, (_, g) => ids.slice(g * size, (g + 1) * size)),
      send,
    );
  const transacted = (size: number, action: (i: number) => object) => (ids: number[]) =>
    inGroups(ids, size, (group) =>
      client.send(new TransactWriteItemsCommand({ TransactItems: group.map(action) })),
    );
  const batched = (item: (i: number) => Item) => (ids: number[]) =>
    inGroups(ids, 25, (group) =>
      client.send(
        new BatchWriteItemCommand({
          RequestItems: { [TableName]: group.map((i) => ({ PutRequest: { Item: item(i) } })) },
        }),
      ),
    );
  const forms: Record<string, (ids: number[]) => Promise<void>> = {
    'feed: if_not_exists, transactions of 50': transacted(50, (i) => ({ Update: addition(i) })),
    'feed: if_not_exists, transactions of 25': transacted(25, (i) => ({ Update: addition(i) })),
    'feed: if_not_exists, UpdateItem each': (ids) =>
      inFlight(ids, (i) => client.send(new UpdateItemCommand(addition(i)))),
    'feed: Put if absent, transactions of 50': transacted(50, (i) => ({
      Put: { TableName, Item: feed(i), ConditionExpression: 'attribute_not_exists(pk)' },
    })),
    'feed: Put in BatchWriteItem (loses)': batched(feed),
    'item with 3 periods of 300 bytes': batched(withPeriods(3, 300)),
    'item with 3 periods of 750 bytes': batched(withPeriods(3, 750)),
    'item with 1 text of 2,250 bytes': batched(withPeriods(1, 2250)),
  };
  let next = 0;
  const fresh = (count: number) => Array.from({ length: count }, () => next++);
  const figures = new Map<string, number[]>();
  try {
    // DynamoDB Local's first requests of each form warm it up: not counted.
    for (const send of Object.values(forms)) await send(fresh(500));
    for (let round = 0; round < ROUNDS; round++)
      for (const [form, send] of Object.entries(forms)) {
        const before = dynamoDbLocalCpuMs(endpoint);
        await send(fresh(ITEMS));
        figures.set(form, [...(figures.get(form) ?? []), (dynamoDbLocalCpuMs(endpoint) - before) / ITEMS]);
      }
    console.log(`DynamoDB Local's CPU an item, ms, ${ROUNDS} rounds (load ${os.loadavg()[0]!.toFixed(1)}):`);
    for (const [form, ms] of figures)
      console.log(`  ${form.padEnd(42)} ${ms.map((x) => x.toFixed(3)).join('  ')}`);
  } finally {
    client.destroy();
    stop();
  }
}

/** `send` for each of `work`, `IN_FLIGHT` at a time. */
async function inFlight<T>(work: T[], send: (one: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < work.length) await send(work[next++]!);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}
