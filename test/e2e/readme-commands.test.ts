/**
 * The local stage as a newcomer meets it, started once for all of this file: `npm start` in a scratch
 * copy of the repository, on ports of its own, starting its own DynamoDB Local and importing the 3,000
 * demo companies. The file checks what it says while starting and where it listens, then runs every
 * command the README and the pages in docs/ show against it, and last stops it with Ctrl-C.
 *
 * The `sh` blocks of each page (test/support/markdown-commands.ts) run in one bash per page, in order,
 * in the scratch copy (so files the commands write land there). `http://localhost:3000` becomes the
 * stage's address; nothing else of a command is changed (the commands find the stage's DynamoDB Local
 * through DYNAMODB_LOCAL_PORT, as `npm start` does). Each command must exit 0 — `curl` runs with
 * `--fail-with-body`, so an answer other than 2xx or 3xx fails it — and print every `# → …` line the
 * page shows after it.
 *
 * What runs is held to a short list of programs (RUNNABLE) and npm scripts that only read or write the
 * local stage (SAFE_SCRIPTS). Commands that cannot run here are listed in SKIPPED with the reason; any
 * other command in an `sh` block fails the test until it is handled one way or the other. Commands
 * meant for reading only (placeholders, AWS) are fenced `console` instead of `sh`.
 *
 * The stage's readiness is its "ready in" line, waited for with a bound for a loaded machine
 * (STAGE_READY_MS), not a guess of how long it takes; every process it started is stopped when the file
 * ends, however it ends (test/support/environment.ts).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { outputMatches, shellCommands, type Command } from '../support/markdown-commands';
import { descendants } from '../support/processes';

const ROOT = path.join(__dirname, '..', '..');
const PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** Commands shown in `sh` blocks that a test cannot run, by their text without comments. */
const SKIPPED: Record<string, string> = {
  'npm ci && npm start': 'installs packages; the `npm start` is the one this test started',
  'npm ci && npm test': 'installs packages and runs every test, this one included',
  'npm test': 'runs every test, this one included',
  'npx jest --selectProjects unit': 'a subset of the test suite: jest inside jest',
  'npx jest test/integration': 'a subset of the test suite: jest inside jest',
  'npx jest test/e2e/lists.test.ts': 'a subset of the test suite: jest inside jest',
  'npx jest test/e2e/fuzz.test.ts --selectProjects storage': 'a subset of the test suite: jest inside jest',
  'FUZZ_RUNS=5 npx jest test/e2e/fuzz.test.ts --selectProjects storage':
    'a subset of the test suite: jest inside jest',
  'npm run bench': 'builds every function and measures it for minutes',
  'npm run bench -- --only getCompanyFinancials,authorizer --rounds 5':
    'builds and measures functions for minutes; a benchmark, not a test',
  'npm run bench:import': 'imports tens of thousands of companies into DynamoDB Local',
  'npm run bench:smart-lists': 'imports and evaluates 30,000 companies for minutes',
  'npm run bench:lookalikes': 'scores up to 100,000 companies for minutes',
  'npm run bench:matching': 'matches 41,150 entries; a benchmark, not a test',
  'npm run bench:registries':
    'writes and converts registry files of up to 10 % of the registries for minutes',
  'npm run bench:registries -- --sizes 1,3 --import-units 10000':
    'converts and imports generated registry files for minutes; a benchmark, not a test',
  'npm run bench:filings': 'converts up to 100,000 generated filings a format; a benchmark, not a test',
  'npm run bench:filings -- --sizes 20000,100000,400000 --data /tmp/filings-data':
    'writes and converts up to 400,000 generated filings a format; a benchmark, not a test',
  'npm run bench:filings -- --import 20000':
    'imports generated filings into DynamoDB Local; a benchmark, not a test',
  'npm run bench:filings -- --import 20000 --replay':
    'imports generated filings into DynamoDB Local twice and replays the requests; a benchmark, not a test',
  'npm run notifications -- backfill --table <TableName>':
    "a deployed stage's table, with operator credentials (tested in test/integration/watched-lists.test.ts)",
};

/** Programs a command may start with (after any `NAME=value` assignments). */
const RUNNABLE = new Set(['curl', 'gzip', 'printf', 'node']);
/** npm scripts that talk to the local stage only, or only read files: `npm run [-s] NAME`. */
const SAFE_SCRIPTS = new Set(['demo-data', 'import', 'token', 'lookalikes', 'smoke', 'fuzz', 'openapi:lint']);

/** Whether a command starts with something this test may run against the local stage. */
function runnable(key: string): boolean {
  // `NAME=$(command)`: the command inside decides.
  const substitution = /^[A-Za-z_][A-Za-z0-9_]*=\$\((.*)\)$/.exec(key);
  if (substitution) return runnable(substitution[1]!);
  // Leading assignments (`TOKEN=…`, `BODY='…'`); a command of assignments only runs.
  const rest = key.replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|[^\s'"$]*)\s*)+/, '');
  if (rest === '') return true;
  const npm = /^npm run (?:-s )?(\S+)/.exec(rest);
  if (npm) return SAFE_SCRIPTS.has(npm[1]!);
  return RUNNABLE.has(rest.split(' ')[0]!);
}

/** How long `npm start` may take to be ready: minutes on a loaded machine, seconds on an idle one. */
const STAGE_READY_MS = 10 * 60_000;
jest.setTimeout(600_000);

const commands = PAGES.flatMap((page) => shellCommands(page, fs.readFileSync(path.join(ROOT, page), 'utf8')));

let scratch = '';
let stage: ChildProcess | undefined;
let stageExit: Promise<number | null> = Promise.resolve(null);
let output = '';
let baseUrl = '';
const ports = { api: 0, dynamodb: 0 };

beforeAll(async () => {
  // A scratch copy of the repository: the top-level entries linked, so `npm run` finds its scripts and
  // what the commands write (companies.jsonl) stays out of the worktree.
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-commands-'));
  for (const entry of fs.readdirSync(ROOT)) {
    if (entry !== '.git') fs.symlinkSync(path.join(ROOT, entry), path.join(scratch, entry));
  }
  ports.api = await freePort();
  ports.dynamodb = await freePort();
  // Not detached: a Ctrl-C of jest in a terminal reaches the stage too.
  stage = spawn('npm', ['start'], { cwd: scratch, env: environment(), stdio: ['ignore', 'pipe', 'pipe'] });
  stageExit = new Promise((resolve) => stage!.once('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start was not ready within ${STAGE_READY_MS / 1000} s:\n${output}`)),
      STAGE_READY_MS,
    );
    stage!.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/ready in/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    stage!.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    stage!.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`npm start ended before it was ready:\n${output}`));
    });
  });
  await ready;
  baseUrl = `http://127.0.0.1:${ports.api}`;
}, STAGE_READY_MS + 60_000);

afterAll(async () => {
  // Normally stopped by the last test; if not (a failure, a test picked with -t), stopped here.
  if (stage && stage.exitCode === null && stage.signalCode === null) {
    stopStage('SIGINT');
    const timer = setTimeout(() => stopStage('SIGKILL'), 10_000);
    await stageExit;
    clearTimeout(timer);
  }
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/**
 * Stops the stage as Ctrl-C in its terminal would: SIGINT to `start.ts` (which stops DynamoDB Local
 * and exits 0, and npm with it); SIGKILL to npm and everything under it.
 */
function stopStage(signal: 'SIGINT' | 'SIGKILL'): void {
  if (stage?.pid === undefined || stage.exitCode !== null || stage.signalCode !== null) return;
  const under = descendants(stage.pid);
  const targets =
    signal === 'SIGKILL'
      ? [...under, stage.pid]
      : under.filter((pid) => /--import\b.*infra\/local\/start\.ts/.test(commandLine(pid)));
  for (const pid of targets) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
  }
}

function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** Whether a DynamoDB Local (java … DynamoDBLocal.jar … -port N) runs. */
function dynamoDbLocalRunning(port: number): boolean {
  const out = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
  return out
    .split('\n')
    .some((l) => l.includes('DynamoDBLocal.jar') && new RegExp(`-port ${port}\\b`).test(l));
}

const canConnect = (port: number, host: string) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

test('npm start says what it is doing and listens on 127.0.0.1 only (HOST unset)', async () => {
  // What start.ts prints, after npm's own lines (`> company-data-api@… start`, `> tsx …`).
  const progress = lines(output).filter((line) => !line.startsWith('> '));

  expect(progress.slice(0, 3)).toEqual([
    `starting DynamoDB Local on port ${ports.dynamodb} (in memory)…`,
    expect.stringMatching(
      new RegExp(`^DynamoDB Local ready on http://127\\.0\\.0\\.1:${ports.dynamodb} \\(\\d+\\.\\d s\\)$`),
    ),
    expect.stringMatching(
      /^creating table company-data-local on http:\/\/127\.0\.0\.1:\d+ and loading the demo data/,
    ),
  ]);
  expect(output).toContain(`http://127.0.0.1:${ports.api}/v1`);
  // Imported now, or by an earlier start of this same code (infra/local/demo-cache.ts).
  expect(output).toMatch(/3000 demo companies (loaded|\(as an earlier start of this code imported them)/);
  expect(await canConnect(ports.api, '127.0.0.1')).toBe(true);
  // Not on the machine's other addresses (when it has any).
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal);
  if (external) expect(await canConnect(ports.api, external.address)).toBe(false);
});

test('the pages show commands, and every skipped command is still shown somewhere', () => {
  expect(commands.filter((c) => c.page === 'README.md').length).toBeGreaterThan(5);
  const shown = new Set(commands.map((c) => c.key));
  expect(Object.keys(SKIPPED).filter((key) => !shown.has(key))).toEqual([]);
});

test('every command is either runnable here or skipped with a reason', () => {
  const unhandled = commands
    .filter((c) => !(c.key in SKIPPED) && !runnable(c.key))
    .map((c) => `${c.page}:${c.line}: ${c.key}`);
  expect(unhandled).toEqual([]);
});

test.each(PAGES)('every command of %s runs as written and prints what the page shows', (page) => {
  const toRun = commands.filter((c) => c.page === page && !(c.key in SKIPPED) && runnable(c.key));
  if (toRun.length === 0) return;
  const results = runPage(toRun);
  const failures = results.flatMap(({ command, code, stdout, stderr }) => {
    const output = `${stdout}\n${stderr}`.split('\n');
    const missing = command.expected.filter((e) => !output.some((line) => outputMatches(e, line)));
    if (code === 0 && missing.length === 0) return [];
    return [
      {
        at: `${command.page}:${command.line}`,
        command: command.text,
        exitCode: code,
        ...(missing.length > 0 ? { notPrinted: missing } : {}),
        output: `${stdout}\n${stderr}`.trim().slice(0, 2000),
      },
    ];
  });
  expect(failures).toEqual([]);
});

// Last: the commands above ran against this stage.
test('Ctrl-C stops the API and DynamoDB Local, and npm start ends with 0', async () => {
  stopStage('SIGINT');
  const timer = setTimeout(() => stopStage('SIGKILL'), 30_000);
  const code = await stageExit;
  clearTimeout(timer);

  expect({ code, stopping: lines(output).includes('stopping…') }).toEqual({ code: 0, stopping: true });
  expect(dynamoDbLocalRunning(ports.dynamodb)).toBe(false);
  expect(await canConnect(ports.api, '127.0.0.1')).toBe(false);
});

interface Result {
  command: Command;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a page's commands in one bash, in order (variables carry over), each with its own output. */
function runPage(toRun: Command[]): Result[] {
  const out = fs.mkdtempSync(path.join(scratch, '.out-'));
  const script = [
    'set -uo pipefail',
    // An HTTP error answer is a failed command; progress meters stay out of the output.
    'curl() { command curl --silent --show-error --fail-with-body "$@"; }',
    ...toRun.map((command, i) =>
      [
        '{',
        command.text.replaceAll('http://localhost:3000', baseUrl),
        `} >'${out}/${i}.out' 2>'${out}/${i}.err' </dev/null; echo $? >'${out}/${i}.code'`,
      ].join('\n'),
    ),
  ].join('\n');
  const run = spawnSync('bash', ['-c', script], {
    cwd: scratch,
    env: environment(),
    encoding: 'utf8',
    timeout: 540_000,
  });
  if (run.error) throw run.error;
  return toRun.map((command, i) => {
    const read = (suffix: string) => {
      const file = path.join(out, `${i}.${suffix}`);
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    };
    const code = read('code').trim();
    return { command, code: code === '' ? null : Number(code), stdout: read('out'), stderr: read('err') };
  });
}

/**
 * This process's environment for `npm start` and the commands alike, as a newcomer's shell has it: the
 * stage's two ports, and none of the test run's DynamoDB settings.
 */
function environment(): Record<string, string> {
  const env: Record<string, string> = {};
  const dropped = new Set(['HOST', 'DYNAMODB_ENDPOINT', 'TABLE_NAME', 'PORT', 'DYNAMODB_LOCAL_PORT']);
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !dropped.has(name)) env[name] = value;
  }
  return {
    ...env,
    PORT: String(ports.api),
    DYNAMODB_LOCAL_PORT: String(ports.dynamodb),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
