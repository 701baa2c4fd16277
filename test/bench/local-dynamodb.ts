/** The benches' DynamoDB: the one DYNAMODB_ENDPOINT names, or a DynamoDB Local started for the run. */
import { readdirSync, readFileSync } from 'node:fs';

export interface BenchDynamoDb {
  endpoint: string;
  /** Named by DYNAMODB_ENDPOINT: other work uses it too, so a bench leaves no table behind there. */
  shared: boolean;
  /** Stops the DynamoDB Local this run started; nothing on a shared one. */
  stop: () => void;
}

/**
 * DYNAMODB_ENDPOINT's DynamoDB, or a DynamoDB Local on a free port, whose endpoint is then set as
 * DYNAMODB_ENDPOINT for the storage client. Killed by a signal, node skips its 'exit' handlers: the one
 * started here is stopped on SIGINT and SIGTERM too (after `onSignal`, the bench's own cleanup), or its
 * Java process would outlive the bench.
 */
export async function benchDynamoDb(options: {
  log: (message: string) => void;
  onSignal?: () => void;
}): Promise<BenchDynamoDb> {
  const existing = process.env['DYNAMODB_ENDPOINT'];
  if (existing) return { endpoint: existing, shared: true, stop: () => undefined };
  // Loaded only now, as the benches load the SDK: after they have set its environment.
  const { freePort, startDynamoDbLocal } = await import('../../infra/local/dynamodb');
  options.log('starting DynamoDB Local');
  const local = await startDynamoDbLocal({ port: await freePort() });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void local.stop();
      options.onSignal?.();
      process.exit(130);
    });
  }
  process.env['DYNAMODB_ENDPOINT'] = local.endpoint;
  return { endpoint: local.endpoint, shared: false, stop: () => void local.stop() };
}

/** The process id of the DynamoDB Local serving `endpoint`: undefined where /proc cannot tell. */
export function dynamoDbLocalPid(endpoint: string): number | undefined {
  const port = new URL(endpoint).port;
  try {
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (cmdline.includes('DynamoDBLocal') && cmdline.includes(`-port\0${port}\0`)) return Number(pid);
    }
  } catch {
    // Not Linux.
  }
  return undefined;
}

/** CPU time (ms) of the DynamoDB Local serving `endpoint` so far: 0 where /proc cannot tell. */
export function dynamoDbLocalCpuMs(endpoint: string): number {
  const pid = dynamoDbLocalPid(endpoint);
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}
