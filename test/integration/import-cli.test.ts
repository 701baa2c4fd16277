/**
 * `npm run import` as a user runs it (a child process on DynamoDB Local): exit codes, gzip and stdin,
 * a run killed with SIGKILL half-way that, run again, ends in the same state as one uninterrupted run,
 * and a run stopped by Ctrl-C while it recomputes the lookalikes that frees their lease.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { generateDemoData } from '../fixtures/demo-data/companies';
import { ensureTable } from '../../infra/local/dynamodb';
import { CAPACITY_NOT_ASKED } from '../../lib/import/writes';
import { dynamodb } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { startFaultProxy } from '../support/fault-proxy';

const ROOT = path.join(__dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'import-cli-test-'));
const COMPANIES = 1000;
const records = generateDemoData({ companies: COMPANIES });
const file = path.join(dir, 'demo.jsonl');
writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');

afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Real imports of the demo file, several per test, each with every derivation.
jest.setTimeout(240_000);

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the import CLI; `killWhen` sends SIGKILL as soon as it holds for stderr so far; `interruptWhen`
 * sends SIGINT (Ctrl-C) as soon as it holds for the process (tried every 50 ms).
 */
function importCli(
  args: string[],
  options: {
    stdin?: Buffer;
    killWhen?: (stderr: string) => boolean;
    interruptWhen?: (pid: number) => Promise<boolean>;
    env?: NodeJS.ProcessEnv;
  } = {},
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'infra/cli/import.ts'), ...args],
      {
        cwd: ROOT,
        env: options.env ?? { ...process.env, NODE_OPTIONS: '' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (options.killWhen?.(stderr)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    let exited = false;
    child.on('close', (code, signal) => {
      exited = true;
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.stdin);
    const { interruptWhen } = options;
    if (interruptWhen) {
      const poll = async (): Promise<void> => {
        if (exited) return;
        if (await interruptWhen(child.pid!)) child.kill('SIGINT');
        else setTimeout(() => void poll().catch(reject), 50);
      };
      void poll().catch(reject);
    }
  });
}

/** The table's lookalike lease (lib/lookalikes/lease.ts), if anyone holds it. */
async function leaseOf(table: string): Promise<Record<string, unknown> | undefined> {
  return (await dynamodb().send(new GetCommand({ TableName: table, Key: keys.lookalikeLease() }))).Item;
}

async function freshTable(): Promise<string> {
  const name = `import-cli-${randomUUID()}`;
  await ensureTable(process.env['DYNAMODB_ENDPOINT']!, name);
  return name;
}

/**
 * Every item of a table, without the attributes that name a run (change ids differ between runs) or
 * count its writes (a relationships item's revision depends on how the companies were batched).
 */
async function contents(table: string): Promise<string[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamodb().send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return (
    items
      // Journals, and the marks of batches whose match counts moved (named by their batches: the counts
      // they moved are compared, not how the runs cut the file into batches).
      .filter((item) => !String(item['pk']).startsWith('CHANGE#') && item['entity'] !== 'MatchCountsApplied')
      .map(({ changeId: _changeId, rev: _rev, ...item }) => JSON.stringify(item, Object.keys(item).sort()))
      .sort()
  );
}

describe('npm run import', () => {
  it('imports a file, prints the summary and exits 0; the same file again changes and derives nothing', async () => {
    const table = await freshTable();
    const first = await importCli([file, '--table', table, '--as-of', '2026-11-21', '--capacity']);
    expect(first.code).toBe(0);
    const [summaryLine, writesLine, ...rest] = first.stdout.trim().split('\n');
    expect(summaryLine).toMatch(
      new RegExp(
        `^read ${COMPANIES}, imported ${COMPANIES} \\(new ${COMPANIES}, changed 0, unchanged 0\\), rejected 0, updates [1-9]\\d*, in [\\d.]+ s \\(\\d+ companies/s\\)$`,
      ),
    );
    expect(writesLine).toMatch(/^writes: [\d.]+ items and [\d.]+ requests per changed company \(/);
    expect(rest).toEqual([
      expect.stringMatching(
        /^capacity: [\d.]+ write units per changed company, [\d.]+ read units per company read$/,
      ),
    ]);
    // Without --capacity, DynamoDB Local is not asked (AWS always is): the line says how to ask.
    const again = await importCli([file, '--table', table]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `read ${COMPANIES}, imported ${COMPANIES} (new 0, changed 0, unchanged ${COMPANIES}), rejected 0, updates 0,`,
    );
    expect(again.stdout.trim().split('\n').at(-1)).toBe(`capacity: ${CAPACITY_NOT_ASKED}`);
  });

  it('reads gzip from standard input and exits 1 with one line per rejected line', async () => {
    const table = await freshTable();
    const lines = [
      JSON.stringify(records[0]),
      '',
      'not json',
      JSON.stringify({ ...records[1], country: 'DE' }),
    ];
    const result = await importCli(['-', '--table', table], { stdin: gzipSync(lines.join('\n')) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('line 3: not valid JSON\n');
    expect(result.stderr).toContain('line 4: country DE is not BE, NL or FR\n');
    expect(result.stdout).toContain('read 3, imported 1 (new 1, changed 0, unchanged 0), rejected 2');
  });

  it("stops before reading or writing anything when a deployed stage's legal entity id key is not given", async () => {
    const deployed = { ...process.env };
    delete deployed['DYNAMODB_ENDPOINT'];
    delete deployed['LEGAL_ENTITY_SECRET'];
    const result = await importCli([file, '--table', 'CompanyData-dev-Table'], {
      env: { ...deployed, NODE_OPTIONS: '', AWS_REGION: 'eu-west-1', LEGAL_ENTITY_SECRET_ARN: '' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('set LEGAL_ENTITY_SECRET_ARN to the stack output LegalEntitySecretArn');
    expect(result.stderr).toContain('table CompanyData-dev-Table in AWS region eu-west-1');
    expect(result.stdout).toBe('');
  });

  it('refuses a bad --as-of with exit code 2', async () => {
    const result = await importCli([file, '--as-of', '2026-02-30']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--as-of takes a date');
  });

  it('ends, after a SIGKILL half-way and a second run, in the same state as one uninterrupted run', async () => {
    const killed = await freshTable();
    // Killed once the progress says some companies are imported and some are not (reading runs ahead
    // of writing, so how much of the file was read says nothing about what was written).
    const cut = await importCli([file, '--table', killed, '--as-of', '2026-11-21'], {
      killWhen: (stderr) =>
        [...stderr.matchAll(/, (\d+) companies imported/g)].some(
          ([, imported]) => Number(imported) > 0 && Number(imported) < COMPANIES,
        ),
    });
    expect(cut.signal).toBe('SIGKILL');
    const resumed = await importCli([file, '--table', killed, '--as-of', '2026-11-21']);
    expect(resumed.code).toBe(0);
    // Cut off in the middle: some companies were in, some were not.
    const summary = new RegExp(`imported ${COMPANIES} \\(new (\\d+), changed 0, unchanged (\\d+)\\)`);
    const [, created, unchanged] = summary.exec(resumed.stdout)!;
    expect(Number(created)).toBeGreaterThan(0);
    expect(Number(unchanged)).toBeGreaterThan(0);

    const whole = await freshTable();
    expect((await importCli([file, '--table', whole, '--as-of', '2026-11-21'])).code).toBe(0);
    const [afterKill, uninterrupted] = await Promise.all([contents(killed), contents(whole)]);
    expect(afterKill.length).toBe(uninterrupted.length);
    expect(afterKill).toEqual(uninterrupted);
  });

  it('frees the lookalike lease it holds when Ctrl-C stops it, and ends as SIGINT ends a process', async () => {
    const table = await freshTable();
    const small = path.join(dir, 'small.jsonl');
    writeFileSync(
      small,
      records
        .slice(0, 40)
        .map((r) => JSON.stringify(r) + '\n')
        .join(''),
    );
    // Between the import and DynamoDB Local, a proxy that holds every renewal of the lease (a PutItem
    // conditional on its holder): the import takes the lease for its lookalikes, then stays there.
    const proxy = await startFaultProxy(process.env['DYNAMODB_ENDPOINT']!);
    proxy.set('delay', {
      delayMs: 120_000,
      operation: 'PutItem',
      match: '"ConditionExpression":"holder = :holder"',
    });
    try {
      const ownHolder = (pid: number) => `process-${os.hostname()}-${pid}-`;
      const result = await importCli([small, '--table', table], {
        env: { ...process.env, NODE_OPTIONS: '', DYNAMODB_ENDPOINT: proxy.endpoint },
        // Stopped once its recompute holds the lease.
        interruptWhen: async (pid) =>
          String((await leaseOf(table))?.['holder'] ?? '').startsWith(ownHolder(pid)),
      });

      expect(proxy.faulted).toBeGreaterThan(0);
      // Ended by the signal (or, under a relaying parent, with its exit code).
      expect(result.signal === 'SIGINT' || result.code === 130).toBe(true);
      expect(result.stderr).toContain('import stopped by SIGINT');
      expect(result.stderr).toContain('run the same import again to resume');
      expect(await leaseOf(table)).toBeUndefined();
    } finally {
      await proxy.close();
    }

    // Run again at once, it does not wait for the lease: it recomputes what the stopped run marked.
    const again = await importCli([small, '--table', table]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('imported 40 (new 0, changed 0, unchanged 40)');
    expect(again.stderr).not.toContain('waiting for the lookalike recompute');
    expect(await leaseOf(table)).toBeUndefined();
  });
});
