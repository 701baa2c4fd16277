/**
 * The local stage's failure paths as a newcomer meets them: `npm start` (infra/local/start.ts) and
 * `npm run token` (infra/cli/token.ts) run as child processes, and the local gateway's answer to a
 * failure that is no client's fault. Ports are taken on purpose here; every process started is stopped
 * (and whatever a failure leaves, test/support/environment.ts kills when the file ends). A whole stage
 * with its demo data — what it says while starting, where it listens, Ctrl-C once it serves — is
 * started once, in test/e2e/readme-commands.test.ts, which runs the documentation's commands against it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { freePort } from '../../infra/local/dynamodb';
import { createGateway } from '../../infra/local/gateway';
import { descendants } from '../support/processes';

const ROOT = path.join(__dirname, '..', '..');

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

interface Started {
  child: ChildProcess;
  output: () => { stdout: string; stderr: string };
  /** Resolves with the first stdout line matching `pattern` (rejects if the process ends first). */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<string>;
  done: Promise<Run>;
}

/** A TypeScript entry point in its own Node process (no npm, no tsx wrapper: signals reach it directly). */
function start(script: string, args: string[], env: Record<string, string | undefined>): Started {
  const childEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...process.env, ...env })) {
    if (value !== undefined) childEnv[name] = value;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Run>((resolve) =>
    child.once('close', (code, signal) => {
      for (const listener of listeners) listener();
      resolve({ code, signal, stdout, stderr });
    }),
  );
  const waitFor = (pattern: RegExp, timeoutMs = 45_000) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
      }, timeoutMs);
      const check = () => {
        const line = stdout.split('\n').find((l) => pattern.test(l));
        if (line !== undefined || child.exitCode !== null || child.signalCode !== null) {
          clearTimeout(timer);
          listeners.delete(check);
          if (line !== undefined) resolve(line);
          else reject(new Error(`ended before a line matching ${pattern}:\n${stdout}\n${stderr}`));
        }
      };
      listeners.add(check);
      check();
    });
  return { child, output: () => ({ stdout, stderr }), waitFor, done };
}

/** Runs to the end, killed (and failed) if it takes longer than `timeoutMs`: nothing may hang. */
async function runToEnd(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 40_000,
): Promise<Run> {
  const started = start(script, args, env);
  const timer = setTimeout(() => killTree(started.child), timeoutMs);
  const run = await started.done;
  clearTimeout(timer);
  if (run.signal === 'SIGKILL')
    throw new Error(`still running after ${timeoutMs} ms:\n${run.stdout}\n${run.stderr}`);
  return run;
}

/** The child and everything under it (a stage's DynamoDB Local too), unless it has ended. */
function killTree(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  for (const pid of [...(child.pid ? descendants(child.pid) : []), child.pid]) {
    try {
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** Environment of a local stage on ports of its own, without the test run's DynamoDB settings. */
const stageEnv = (env: Record<string, string | undefined>) => ({
  DYNAMODB_ENDPOINT: undefined,
  TABLE_NAME: undefined,
  HOST: undefined,
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  ...env,
});

/** A port held by a listener that accepts connections and never answers (the worst neighbour). */
async function silentListener(host = '127.0.0.1'): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether a DynamoDB Local (java … DynamoDBLocal.jar … -port N) still runs. */
function dynamoDbLocalRunning(port: number): boolean {
  try {
    const out = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    return out
      .split('\n')
      .some((l) => l.includes('DynamoDBLocal.jar') && new RegExp(`-port ${port}\\b`).test(l));
  } catch {
    return false;
  }
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('npm run token', () => {
  test('talks to the DynamoDB Local on DYNAMODB_LOCAL_PORT for the local table', async () => {
    // A stand-in for DynamoDB that answers every call with an empty page and notes what it was asked.
    const calls: Array<{ target: string; table: string }> = [];
    const fake = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        calls.push({
          target: String(req.headers['x-amz-target']),
          table: (JSON.parse(body) as { TableName: string }).TableName,
        });
        res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify({ Items: [], Count: 0, ScannedCount: 0 }));
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const port = (fake.address() as AddressInfo).port;

      const run = await runToEnd(
        'infra/cli/token.ts',
        ['list'],
        stageEnv({ DYNAMODB_LOCAL_PORT: String(port) }),
      );

      expect({ code: run.code, stdout: lines(run.stdout), stderr: run.stderr }).toEqual({
        code: 0,
        stdout: ['no tokens'],
        stderr: '',
      });
      expect(calls).toEqual([{ target: 'DynamoDB_20120810.Query', table: 'company-data-local' }]);
    } finally {
      await new Promise<void>((resolve) => fake.close(() => resolve()));
    }
  });

  test('names the endpoint it tried and says to run npm start when nothing answers there', async () => {
    const port = await freePort();

    const run = await runToEnd(
      'infra/cli/token.ts',
      ['list'],
      stageEnv({ DYNAMODB_LOCAL_PORT: String(port) }),
    );

    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toContain(`http://127.0.0.1:${port}`);
    expect(run.stderr).toContain('npm start');
    expect(run.stderr).not.toMatch(/\bat .*:\d+:\d+|Service unavailable|Error:/);
  });
});

describe('npm start', () => {
  test('a busy PORT ends in one line that says which variable to set', async () => {
    const busy = await silentListener();
    try {
      const run = await runToEnd(
        'infra/local/start.ts',
        [],
        stageEnv({ PORT: String(busy.port), DYNAMODB_LOCAL_PORT: String(await freePort()) }),
      );

      expect(run.code).toBe(1);
      expect(lines(run.stderr)).toEqual([
        `port ${busy.port} is in use: set PORT=… to a free port (PORT=${busy.port + 1} npm start)`,
      ]);
      expect(run.stdout + run.stderr).not.toContain('EADDRINUSE');
    } finally {
      await busy.close();
    }
  });

  test('a busy DynamoDB Local port ends in one line, without hanging, and leaves no Java behind', async () => {
    const busy = await silentListener('0.0.0.0');
    try {
      const run = await runToEnd(
        'infra/local/start.ts',
        [],
        stageEnv({ PORT: String(await freePort()), DYNAMODB_LOCAL_PORT: String(busy.port) }),
      );

      expect(run.code).toBe(1);
      expect(lines(run.stdout)).toEqual([`starting DynamoDB Local on port ${busy.port} (in memory)…`]);
      expect(lines(run.stderr)).toHaveLength(1);
      expect(run.stderr).toMatch(
        new RegExp(`^DynamoDB Local port ${busy.port} is in use: set DYNAMODB_LOCAL_PORT=… to a free port`),
      );
      expect(dynamoDbLocalRunning(busy.port)).toBe(false);
    } finally {
      await busy.close();
    }
  });

  test('Ctrl-C while DynamoDB Local is still starting stops it too', async () => {
    const dynamoPort = await freePort();
    const stage = start(
      'infra/local/start.ts',
      [],
      stageEnv({ PORT: String(await freePort()), DYNAMODB_LOCAL_PORT: String(dynamoPort) }),
    );
    try {
      await stage.waitFor(/^starting DynamoDB Local on port/);
      // Java is being spawned or is booting now.
      expect(await eventually(() => dynamoDbLocalRunning(dynamoPort))).toBe(true);

      stage.child.kill('SIGINT');
      await stage.done;

      expect(await eventually(() => !dynamoDbLocalRunning(dynamoPort))).toBe(true);
    } finally {
      killTree(stage.child);
    }
  });
});

describe('the local gateway', () => {
  test('answers a failure that is not an ApiError with 500 INTERNAL, never 503 with Retry-After', async () => {
    // The health handler fails to load: the gateway itself fails, not storage.
    jest.doMock(path.join(ROOT, 'functions', 'get-health.ts'), () => {
      throw new Error('handler failed to load');
    });
    const server = createGateway();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/health`);
      const body = (await response.json()) as Record<string, unknown>;

      expect({ status: response.status, body }).toEqual({
        status: 500,
        body: {
          message: 'Internal server error',
          code: 'INTERNAL',
          requestId: response.headers.get('x-request-id'),
        },
      });
      expect(response.headers.get('retry-after')).toBeNull();
    } finally {
      jest.dontMock(path.join(ROOT, 'functions', 'get-health.ts'));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
