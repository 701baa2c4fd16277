/**
 * An import's recorded requests (test/bench/recording-proxy.ts) replayed through the write floor's
 * harness (test/bench/write-floor.ts): sent again, in their order, IN_FLIGHT at once, into a fresh table
 * of DynamoDB Local, with nothing else running against it. The benches' one replay:
 *
 * - the registry bench replays the import's write requests whole and in variants; DynamoDB Local's CPU
 *   then splits what it spent during the import into the **items' shape** (the replay as recorded
 *   against the floor's small puts of the same number of items through the same kinds of request,
 *   itself split by the variants — without the capacity consumed asked (`ReturnConsumedCapacity`,
 *   which the import asks of every request and DynamoDB Local prices per item), without the index
 *   attributes (`gsi1pk`/`gsi1sk`), without conditions, and with every action a floor-sized put under
 *   the same key in the same requests) and
 *   **everything else** (the import's run against the exact replay — its reads, its request pattern in
 *   time, and its own CPU taking one of the two cores);
 * - the filings bench replays every request by kind (`byOperation`): the writes', then the reads' CPU.
 *
 * Both count the recorded writes by item kind (test/bench/write-kinds.ts).
 *
 *   npx tsx test/bench/write-replay.ts RECORDING COMPANIES    the breakdown by kind, no replay
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { jfrPhase } from './jfr';
import { dynamoDbLocalCpuMs } from './local-dynamodb';
import type { RecordedRequest } from './recording-proxy';
import { IN_FLIGHT } from './write-floor';
import {
  actionsOf,
  countActions,
  formatBreakdown,
  keyOf,
  mentions,
  perCompany,
  splitByItemKind,
  type KindCount,
  type Labelled,
  type ParsedRequest,
  type Wire,
} from './write-kinds';
import { countReads, formatReads, isRead, type ReadKinds } from './read-kinds';

/** The items the replay sends at most: a prefix of the recording, so five variants stay minutes. */
export const REPLAY_ITEMS = 60_000;

export interface Recording {
  /** Every item kind's figures over the whole recording (`breakdown` makes them per company). */
  kinds: Map<string, KindCount>;
  /** Its reads by item kind over the whole recording (test/bench/read-kinds.ts). */
  reads: ReadKinds;
  /** The recording's first write requests, up to `REPLAY_ITEMS` items: what the replays send. */
  prefix: ParsedRequest[];
  prefixItems: number;
}

/**
 * Reads a recording proxy's file line by line (a big import's is hundreds of MB): its writes' counts by
 * item kind, and its first write requests up to `maxItems` items.
 */
export async function readRecording(file: string, maxItems = REPLAY_ITEMS): Promise<Recording> {
  const kinds = new Map<string, KindCount>();
  const reads: ReadKinds = new Map();
  const prefix: ParsedRequest[] = [];
  let prefixItems = 0;
  let prefixFull = false;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    const operation = line.slice(0, tab);
    if (isRead(operation)) countReads(reads, { operation, body: JSON.parse(line.slice(tab + 1)) as Wire });
    if (!isWrite(operation)) continue;
    const request = { operation, body: JSON.parse(line.slice(tab + 1)) as Wire };
    const actions = actionsOf(request);
    countActions(kinds, actions);
    // The prefix ends at the first request that does not fit.
    prefixFull ||= prefixItems + actions.length > maxItems;
    if (!prefixFull) {
      prefix.push(request);
      prefixItems += actions.length;
    }
  }
  return { kinds, reads, prefix, prefixItems };
}

/** A variant of the recorded requests, to weigh one part of the items' shape. */
export type Variant =
  | 'as recorded'
  | 'without capacity asked'
  | 'without index attributes'
  | 'without conditions'
  | 'floor-sized puts';

/** The requests of `variant`: each request keeps its kind and its items' keys. */
export function variantOf(request: ParsedRequest, variant: Variant): ParsedRequest {
  if (variant === 'as recorded') return request;
  const body = structuredClone(request.body);
  // The import asks each request's consumed capacity (lib/storage/write-counts.ts): priced per item.
  if (variant === 'without capacity asked') {
    delete body['ReturnConsumedCapacity'];
    return { operation: request.operation, body };
  }
  for (const action of actionsOf({ operation: request.operation, body })) {
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
  if (variant === 'floor-sized puts' && request.operation === 'TransactWriteItems') {
    body['TransactItems'] = (body['TransactItems'] as Wire[]).map((entry) =>
      entry['Update'] ? { Put: entry['Update'] } : entry,
    );
  }
  // A single update made a put is a PutItem request.
  const operation =
    variant === 'floor-sized puts' && request.operation === 'UpdateItem' ? 'PutItem' : request.operation;
  return { operation, body };
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

/** What DynamoDB Local spent on one kind of recorded request, replayed. */
export interface ReplayedOperation {
  operation: string;
  requests: number;
  /** Items written (a batch's or transaction's entries) or keys read; 1 for a single-item request or a query. */
  items: number;
  /** The bodies' bytes as sent. */
  bytes: number;
  /** Requests DynamoDB Local refused (a condition not met when replayed in this order, a cancelled transaction). */
  refused: number;
  /** What DynamoDB Local answered the first refused request. */
  refusal?: string;
  /** DynamoDB Local's CPU (ms) for this kind's requests; with `byOperation` only. */
  javaMs: number;
}

export interface ReplayFigures {
  /** DynamoDB Local's CPU (ms) for the whole replay. */
  javaMs: number;
  seconds: number;
  refused: number;
  /** The figures of each kind of request, in the order they were sent (writes first with `byOperation`). */
  operations: ReplayedOperation[];
}

export interface ReplayOptions {
  /** How the requests are shaped (the items' shape weighed part by part); as recorded by default. */
  variant?: Variant;
  /**
   * One kind of request after another — the writes, then the reads, on the items as the writes left
   * them — each in its recorded order, so DynamoDB Local's CPU is told apart per kind; otherwise all in
   * their recorded order at once.
   */
  byOperation?: boolean;
  /**
   * With `byOperation`: the BatchWriteItem entries regrouped by item kind (write-kinds.ts `itemKind`),
   * 25 to a request in their recorded order, each kind replayed alone (`BatchWriteItem <kind>`): which
   * items cost DynamoDB Local what.
   */
  byItemKind?: boolean;
  /** With `byOperation`: the BatchWriteItem entries sorted by key, 25 to a request (`BatchWriteItem sorted by key`). */
  sortedByKey?: boolean;
  /** Makes the replay's table hold what the recorded run's held before it (its companies, say). */
  prepare?: (table: string) => Promise<void>;
  /** The replay's sending (not its `prepare`) recorded by DynamoDB Local's flight recorder under this name (test/bench/jfr.ts). */
  profiledAs?: string;
}

const WRITE_OPERATIONS = ['BatchWriteItem', 'TransactWriteItems', 'PutItem', 'UpdateItem', 'DeleteItem'];
const READ_OPERATIONS = ['BatchGetItem', 'GetItem', 'Query', 'TransactGetItems'];
export const isWrite = (operation: string) => WRITE_OPERATIONS.includes(operation);

/** The recorded requests (test/bench/recording-proxy.ts) with their bodies parsed. */
export const parseRequests = (requests: readonly RecordedRequest[]): ParsedRequest[] =>
  requests.map(({ operation, body }) => ({ operation, body: JSON.parse(body) as Wire }));

/**
 * Sends `requests`' reads and writes (as `options.variant` shapes them) into a fresh table made like the service's,
 * IN_FLIGHT at once, and deletes the table after: DynamoDB Local's CPU for exactly these requests and
 * nothing else. Each body goes on the wire as recorded but for its table's name (and a transaction's
 * idempotency token, which DynamoDB Local would refuse as a mismatch: it still holds the import's answer
 * to it), signed again.
 */
export async function replay(
  endpoint: string,
  requests: readonly ParsedRequest[],
  options: ReplayOptions = {},
): Promise<ReplayFigures> {
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const sdk = await import('@aws-sdk/client-dynamodb');
  const table = `write-replay-${randomUUID()}`;
  await ensureTable(endpoint, table);
  await options.prepare?.(table);
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
  // Reads and writes of items only: a recorded DescribeTable (say) is not the import's work to weigh.
  const order = [...WRITE_OPERATIONS, ...READ_OPERATIONS];
  const kept = requests
    .filter((request) => order.includes(request.operation))
    .map((request) => variantOf(request, options.variant ?? 'as recorded'));
  const shaped: Labelled[] =
    options.byItemKind || options.sortedByKey ? splitByItemKind(kept, options.sortedByKey) : kept;
  const labelOf = (request: Labelled) => request.label ?? request.operation;
  const operations = new Map<string, ReplayedOperation>();
  for (const request of shaped)
    if (!operations.has(labelOf(request)))
      operations.set(labelOf(request), {
        operation: labelOf(request),
        requests: 0,
        items: 0,
        bytes: 0,
        refused: 0,
        javaMs: 0,
      });
  const send = async (request: Labelled) => {
    const figures = operations.get(labelOf(request))!;
    const wire = JSON.stringify(inTable(request.body, table));
    const Command = (sdk as unknown as Record<string, new (input: object) => { input: object }>)[
      `${request.operation}Command`
    ]!;
    const command = new Command({});
    bodies.set(command.input, wire);
    figures.requests++;
    figures.items += itemsOf(request);
    figures.bytes += Buffer.byteLength(wire);
    try {
      await client.send(command as never);
    } catch (error) {
      // DynamoDB's answer to this request (a condition not met in this order, a cancelled
      // transaction); anything else (the connection) ends the replay.
      if (!(error as { $fault?: string }).$fault) throw error;
      if (figures.refused++ === 0) figures.refusal = `${(error as Error).name}: ${(error as Error).message}`;
    }
  };
  const sendAll = async (list: readonly Labelled[]) => {
    let next = 0;
    const worker = async () => {
      while (next < list.length) await send(list[next++]!);
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  };
  const all = [...operations.values()];
  const rank = (label: string) => order.indexOf(label.split(' ')[0]!);
  if (options.byOperation) all.sort((a, b) => rank(a.operation) - rank(b.operation));
  const javaBefore = dynamoDbLocalCpuMs(endpoint);
  const started = process.hrtime.bigint();
  try {
    await jfrPhase(endpoint, options.profiledAs ?? 'replay', async () => {
      if (!options.byOperation) return sendAll(shaped);
      for (const figures of all) {
        const java = dynamoDbLocalCpuMs(endpoint);
        await sendAll(shaped.filter((request) => labelOf(request) === figures.operation));
        figures.javaMs = dynamoDbLocalCpuMs(endpoint) - java;
      }
    });
    return {
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
      javaMs: dynamoDbLocalCpuMs(endpoint) - javaBefore,
      refused: all.reduce((sum, figures) => sum + figures.refused, 0),
      operations: all,
    };
  } finally {
    await client.send(new sdk.DeleteTableCommand({ TableName: table })).catch(() => undefined);
    client.destroy();
  }
}

/** What DynamoDB Local answered the first refused request of each kind. */
const refusals = (figures: ReplayFigures) =>
  figures.operations
    .flatMap((kind) => (kind.refusal ? [`${kind.operation} ${kind.refusal}`] : []))
    .join('; ');

/** A request's body sent to `table`: its table names, and a batch's keys by table, renamed. */
function inTable(body: Wire, table: string): Wire {
  const renamed = JSON.parse(
    JSON.stringify(body).replace(/"TableName":"[^"]*"/g, `"TableName":${JSON.stringify(table)}`),
  ) as Wire;
  const batch = renamed['RequestItems'] as Record<string, unknown> | undefined;
  if (batch) renamed['RequestItems'] = { [table]: Object.values(batch)[0] };
  delete renamed['ClientRequestToken'];
  return renamed;
}

/** Items a request writes or keys it reads (1 for a single-item request or a query). */
function itemsOf(request: ParsedRequest): number {
  if (isWrite(request.operation)) return actionsOf(request).length;
  const body = request.body as {
    RequestItems?: Record<string, { Keys: unknown[] }>;
    TransactItems?: unknown[];
  };
  if (request.operation === 'BatchGetItem')
    return Object.values(body.RequestItems ?? {}).reduce((n, read) => n + read.Keys.length, 0);
  if (request.operation === 'TransactGetItems') return body.TransactItems?.length ?? 0;
  return 1;
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
    'without capacity asked',
    ...(indexWrites ? (['without index attributes'] as const) : []),
    'without conditions',
    'floor-sized puts',
  ];
  const lines = [
    `         DynamoDB Local CPU a company: during the import ${importJavaMs.toFixed(2)} ms; its write requests ` +
      `replayed alone (${prefix.length} requests, ${prefixItems} items, ${IN_FLIGHT} in flight):`,
  ];
  for (const variant of variants) {
    const figures = await replay(endpoint, prefix, { variant }).catch((error: Error) => error);
    if (figures instanceof Error) {
      lines.push(`           ${variant.padEnd(26)} not measured: ${figures.name}: ${figures.message}`);
      continue;
    }
    const ms = (figures.javaMs / prefixItems) * itemsPerCompany;
    lines.push(
      `           ${variant.padEnd(26)} ${ms.toFixed(2)} ms (${Math.round(prefixItems / figures.seconds)} items/s` +
        `${figures.refused ? `, ${figures.refused} requests refused: ${refusals(figures)}` : ''})`,
    );
  }
  lines.push(
    `           ${'floor (small puts)'.padEnd(26)} ${floorMsPerCompany.toFixed(2)} ms` +
      (indexWrites ? '' : '; no item written carries the index attributes'),
    '         what a company writes, by item kind (per company):',
    ...formatBreakdown(kinds).map((line) => `           ${line}`),
    '         what a company reads, by item kind:',
    ...formatReads(recording.reads, companies).map((line) => `           ${line}`),
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
    console.log(
      [
        ...formatBreakdown(perCompany(recording.kinds, Number(companies))),
        ...formatReads(recording.reads, Number(companies)),
      ].join('\n'),
    ),
  );
}
