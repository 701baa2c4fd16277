/**
 * An import's own write requests, replayed through the write floor's harness (test/bench/write-floor.ts):
 * the import records each write request's body as sent (`RECORD_WRITES=<file>`,
 * lib/storage/write-counts.ts); here they are sent again, in their order, IN_FLIGHT at once, into a
 * fresh table of DynamoDB Local, with nothing else running against it. DynamoDB Local's CPU then splits
 * what it spent during the import into
 *
 * - the **items' shape**: the replay as recorded against the floor's small puts of the same number of
 *   items through the same kinds of request, itself split by replaying variants — without the index
 *   attributes (`gsi1pk`/`gsi1sk`), without conditions, and with every action a floor-sized put under the
 *   same key in the same requests;
 * - **everything else**: the import's run against the exact replay — its reads, its request pattern in
 *   time, and its own CPU taking one of the two cores.
 *
 * It also counts the recording by item kind (test/bench/write-kinds.ts).
 *
 *   npx tsx test/bench/write-replay.ts RECORDING COMPANIES    the breakdown by kind, no replay
 */
import { BatchWriteItemCommand, DynamoDBClient, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { dynamoDbLocalCpuMs } from './local-dynamodb';
import { IN_FLIGHT } from './write-floor';
import {
  actionsOf,
  countActions,
  formatBreakdown,
  keyOf,
  mentions,
  perCompany,
  type KindCount,
  type RecordedRequest,
  type Wire,
} from './write-kinds';

/** The items the replay sends at most: a prefix of the recording, so four variants stay minutes. */
export const REPLAY_ITEMS = 60_000;

export interface Recording {
  /** Every item kind's figures over the whole recording (`breakdown` makes them per company). */
  kinds: Map<string, KindCount>;
  /** The recording's first requests, up to `REPLAY_ITEMS` items: what the replays send. */
  prefix: RecordedRequest[];
  prefixItems: number;
}

/**
 * Reads a recording line by line (a big import's is hundreds of MB): its counts by item kind, and its
 * first requests up to `maxItems` items.
 */
export async function readRecording(file: string, maxItems = REPLAY_ITEMS): Promise<Recording> {
  const kinds = new Map<string, KindCount>();
  const prefix: RecordedRequest[] = [];
  let prefixItems = 0;
  let prefixFull = false;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    const request = { command: line.slice(0, tab), body: JSON.parse(line.slice(tab + 1)) as Wire };
    const actions = actionsOf(request);
    countActions(kinds, actions);
    // The prefix ends at the first request that does not fit.
    prefixFull ||= prefixItems + actions.length > maxItems;
    if (!prefixFull) {
      prefix.push(request);
      prefixItems += actions.length;
    }
  }
  return { kinds, prefix, prefixItems };
}

/** A variant of the recorded requests, to weigh one part of the items' shape. */
export type Variant = 'as recorded' | 'without index attributes' | 'without conditions' | 'floor-sized puts';

/** The requests of `variant`: each request keeps its kind and its items' keys. */
function variantOf(request: RecordedRequest, variant: Variant): RecordedRequest {
  const body = structuredClone(request.body);
  // A transaction's idempotency token: DynamoDB Local still holds the import's answer to it (another
  // table) and would refuse the replay as a mismatch; each replay is a request of its own.
  delete body['ClientRequestToken'];
  if (variant === 'as recorded') return { command: request.command, body };
  for (const action of actionsOf({ command: request.command, body })) {
    const a = action.action;
    if (variant === 'without index attributes') {
      const item = a['Item'] as Record<string, unknown> | undefined;
      if (item) {
        delete item['gsi1pk'];
        delete item['gsi1sk'];
      }
    } else if (variant === 'without conditions') {
      delete a['ConditionExpression'];
      dropUnused(a);
    } else if (action.kind === 'Put' || action.kind === 'Update') {
      const { pk, sk } = keyOf(action);
      for (const field of Object.keys(a)) if (field !== 'TableName') delete a[field];
      a['Item'] = { pk: { S: pk }, sk: { S: sk }, entity: { S: 'FLOOR' }, data: { S: 'x'.repeat(90) } };
    }
  }
  if (variant === 'floor-sized puts' && request.command === 'TransactWriteItemsCommand') {
    body['TransactItems'] = (body['TransactItems'] as Wire[]).map((entry) =>
      entry['Update'] ? { Put: entry['Update'] } : entry,
    );
  }
  // A single update made a put is a PutItem request.
  const command =
    variant === 'floor-sized puts' && request.command === 'UpdateItemCommand'
      ? 'PutItemCommand'
      : request.command;
  return { command, body };
}

/** Removes the expression names and values no remaining expression mentions (DynamoDB refuses them). */
function dropUnused(action: Wire): void {
  const expressions = ['UpdateExpression', 'ConditionExpression', 'ProjectionExpression']
    .map((field) => String(action[field] ?? ''))
    .join(' ');
  for (const field of ['ExpressionAttributeNames', 'ExpressionAttributeValues']) {
    const map = action[field] as Record<string, unknown> | undefined;
    if (!map) continue;
    for (const placeholder of Object.keys(map))
      if (!mentions(expressions, placeholder)) delete map[placeholder];
    if (Object.keys(map).length === 0) delete action[field];
  }
}

export interface ReplayFigures {
  /** DynamoDB Local's CPU (ms) for the whole replay. */
  javaMs: number;
  seconds: number;
  /** Requests DynamoDB Local refused (a condition not met when replayed in this order, a cancelled transaction). */
  refused: number;
}

/**
 * Sends `requests` (as `variant` shapes them) in their order into a fresh table, IN_FLIGHT at once, and
 * deletes the table after: DynamoDB Local's CPU for exactly these writes and nothing else.
 */
export async function replay(
  endpoint: string,
  requests: RecordedRequest[],
  variant: Variant,
): Promise<ReplayFigures> {
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const { DeleteTableCommand } = await import('@aws-sdk/client-dynamodb');
  const table = `write-replay-${randomUUID()}`;
  await ensureTable(endpoint, table);
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  // The recorded body is what goes on the wire: the command built here only carries it.
  const bodies = new WeakMap<object, string>();
  client.middlewareStack.add(
    (next) => (args) => {
      const body = bodies.get(args.input as object);
      if (body !== undefined) (args.request as { body?: unknown }).body = body;
      return next(args);
    },
    { step: 'build', priority: 'high', name: 'recordedBody' },
  );
  const send = async (request: RecordedRequest) => {
    const shaped = variantOf(request, variant);
    const text = JSON.stringify(shaped.body).replace(/"TableName":"[^"]*"/g, `"TableName":"${table}"`);
    const wire =
      shaped.command === 'BatchWriteItemCommand'
        ? text.replace(/^\{"RequestItems":\{"[^"]*":/, `{"RequestItems":{"${table}":`)
        : text;
    const input =
      shaped.command === 'BatchWriteItemCommand'
        ? new BatchWriteItemCommand({ RequestItems: {} })
        : shaped.command === 'TransactWriteItemsCommand'
          ? new TransactWriteItemsCommand({ TransactItems: [] })
          : await singleCommand(shaped.command);
    bodies.set(input.input, wire);
    await client.send(input as BatchWriteItemCommand);
  };
  let refused = 0;
  const javaBefore = dynamoDbLocalCpuMs(endpoint);
  const started = process.hrtime.bigint();
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++]!;
      try {
        await send(request);
      } catch (error) {
        const name = (error as Error).name;
        if (name !== 'TransactionCanceledException' && name !== 'ConditionalCheckFailedException')
          throw error;
        refused++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    return {
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
      javaMs: dynamoDbLocalCpuMs(endpoint) - javaBefore,
      refused,
    };
  } finally {
    await client.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
    client.destroy();
  }
}

/** A single-item write command carrying no input of its own (its body is the recorded one). */
async function singleCommand(command: string) {
  const sdk = await import('@aws-sdk/client-dynamodb');
  const key = { pk: { S: '' }, sk: { S: '' } };
  if (command === 'PutItemCommand') return new sdk.PutItemCommand({ TableName: '', Item: key });
  if (command === 'UpdateItemCommand') return new sdk.UpdateItemCommand({ TableName: '', Key: key });
  return new sdk.DeleteItemCommand({ TableName: '', Key: key });
}

/**
 * DynamoDB Local's CPU a company for the import's writes, split: the import's run (`importJavaMs` a
 * company), the same requests replayed alone, each variant, and the floor's small puts — each replay's
 * CPU an item times the items a company writes. The lines the registry bench prints.
 */
export async function replaySplit(
  endpoint: string,
  recording: Recording,
  companies: number,
  importJavaMs: number,
  floorMsPerCompany: number,
): Promise<string[]> {
  const { prefix, prefixItems } = recording;
  const kinds = perCompany(recording.kinds, companies);
  const itemsPerCompany = [...kinds.values()].reduce((sum, c) => sum + c.items, 0);
  const indexWrites = [...kinds.values()].some((c) => c.indexWrites > 0);
  const variants: Variant[] = [
    'as recorded',
    ...(indexWrites ? (['without index attributes'] as const) : []),
    'without conditions',
    'floor-sized puts',
  ];
  const lines = [
    `         DynamoDB Local CPU a company: during the import ${importJavaMs.toFixed(2)} ms; its write requests ` +
      `replayed alone (${prefix.length} requests, ${prefixItems} items, ${IN_FLIGHT} in flight):`,
  ];
  for (const variant of variants) {
    const figures = await replay(endpoint, prefix, variant).catch((error: Error) => error);
    if (figures instanceof Error) {
      lines.push(`           ${variant.padEnd(26)} not measured: ${figures.name}: ${figures.message}`);
      continue;
    }
    const ms = (figures.javaMs / prefixItems) * itemsPerCompany;
    lines.push(
      `           ${variant.padEnd(26)} ${ms.toFixed(2)} ms (${Math.round(prefixItems / figures.seconds)} items/s` +
        `${figures.refused ? `, ${figures.refused} requests refused` : ''})`,
    );
  }
  lines.push(
    `           ${'floor (small puts)'.padEnd(26)} ${floorMsPerCompany.toFixed(2)} ms` +
      (indexWrites ? '' : '; no item written carries the index attributes'),
    '         what a company writes, by item kind (per company):',
    ...formatBreakdown(kinds).map((line) => `           ${line}`),
  );
  return lines;
}

if (require.main === module) {
  const [file, companies] = process.argv.slice(2);
  if (!file || !(Number(companies) > 0)) {
    console.error('usage: npx tsx test/bench/write-replay.ts RECORDING COMPANIES');
    process.exit(2);
  }
  void readRecording(file).then((recording) =>
    console.log(formatBreakdown(perCompany(recording.kinds, Number(companies))).join('\n')),
  );
}
