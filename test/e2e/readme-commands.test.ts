/**
 * Every command the README and the pages in docs/ show runs as written. The `sh` blocks of each page
 * (test/support/markdown-commands.ts) run in one bash per page, in order, against a local stage
 * started with `npm start` on a port of its own over the test run's DynamoDB Local, in a scratch copy
 * of the repository (so files the commands write land there). `http://localhost:3000` becomes the
 * stage's address; nothing else of a command is changed. Each command must exit 0 — `curl` runs with
 * `--fail-with-body`, so an answer other than 2xx or 3xx fails it — and print every `# → …` line the
 * page shows after it.
 *
 * What runs is held to a short list of programs (RUNNABLE) and npm scripts that only read or write the
 * local stage (SAFE_SCRIPTS). Commands that cannot run here are listed in SKIPPED with the reason; any
 * other command in an `sh` block fails the test until it is handled one way or the other. Commands
 * meant for reading only (placeholders, AWS) are fenced `console` instead of `sh`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { outputMatches, shellCommands, type Command } from '../support/markdown-commands';

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
  'npm ci && npm start':
    'installs packages and starts a second stage; this test runs against the stage it started',
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

jest.setTimeout(600_000);

const commands = PAGES.flatMap((page) => shellCommands(page, fs.readFileSync(path.join(ROOT, page), 'utf8')));

let scratch = '';
let stage: ChildProcess | undefined;
let baseUrl = '';
const stageEnv: Record<string, string> = {};

beforeAll(async () => {
  // A scratch copy of the repository: the top-level entries linked, so `npm run` finds its scripts and
  // what the commands write (companies.jsonl) stays out of the worktree.
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-commands-'));
  for (const entry of fs.readdirSync(ROOT)) {
    if (entry !== '.git') fs.symlinkSync(path.join(ROOT, entry), path.join(scratch, entry));
  }
  const port = await freePort();
  Object.assign(stageEnv, {
    PORT: String(port),
    DYNAMODB_ENDPOINT: process.env['DYNAMODB_ENDPOINT']!,
    TABLE_NAME: `readme-${process.pid}-${Date.now()}`,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  // Its own process group, so one signal stops npm and the stage under it.
  stage = spawn('npm', ['start'], {
    cwd: scratch,
    env: environment(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    stage!.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/ready in/.test(output)) resolve();
    });
    stage!.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    stage!.once('exit', () => reject(new Error(`npm start ended before it was ready:\n${output}`)));
  });
  await ready;
  baseUrl = `http://127.0.0.1:${port}`;
}, 600_000);

afterAll(async () => {
  if (stage?.pid !== undefined && stage.exitCode === null) {
    const exited = new Promise((resolve) => stage!.once('exit', resolve));
    process.kill(-stage.pid, 'SIGINT');
    const timer = setTimeout(() => process.kill(-stage!.pid!, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
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

/** This process's environment with the stage's settings, for `npm start` and the commands alike. */
function environment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...process.env, ...stageEnv })) {
    if (value !== undefined && name !== 'HOST' && name !== 'DYNAMODB_LOCAL_PORT') env[name] = value;
  }
  return env;
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
