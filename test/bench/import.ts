/**
 * `npm run bench:import`: the import as a user runs it (`npm run import`, a child process on its own
 * DynamoDB Local table), on demo files of two sizes, so that throughput and peak memory can be compared
 * across sizes: memory should stay flat as the file grows. Then the same file again (everything
 * unchanged). Figures only; it exits 0 whatever they are.
 *
 *   npm run bench:import                         10,000 and 30,000 companies
 *   npm run bench:import -- --sizes 3000,100000
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeDemoFile } from './cli-runs';
import { benchDynamoDb, dynamoDbLocalCpuMs } from './local-dynamodb';
import {
  companiesPerSecondCeiling,
  importWriteSplit,
  IN_FLIGHT,
  ITEMS_PER_REQUEST,
  measureWriteFloor,
  type WriteFloor,
} from './write-floor';

const ROOT = path.join(__dirname, '..', '..');
const BUDGET_PER_SECOND = 1000;

interface Run {
  summary: string;
  /** The import's `writes:` line: items per changed company through each kind of request. */
  writes: string;
  /** CPU of the import process and of DynamoDB Local per company (ms): what the machine's load does not change much. */
  nodeMsPerCompany: number;
  javaMsPerCompany: number;
  rate: number;
  seconds: number;
  maxRssMb: number;
  /** The machine's load (1-minute average) when the run ended: other work skews the rates, not the counts. */
  load: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sizes: { type: 'string' } } });
  const sizes = (values.sizes ?? '10000,30000').split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--sizes takes positive integers');

  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'company-data-import-bench-'));
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const { endpoint, stop } = await benchDynamoDb({
    log: console.error,
    onSignal: () => rmSync(workDir, { recursive: true, force: true }),
  });
  // Reports the child's peak resident memory when it exits.
  const preload = path.join(workDir, 'max-rss.cjs');
  writeFileSync(
    preload,
    "process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeSync(2, `\\nMAX_RSS_KB ${u.maxRSS}\\nCPU_US ${u.userCPUTime + u.systemCPUTime}\\n`); });",
  );

  const rows: string[][] = [];
  let floor: WriteFloor | undefined;
  try {
    // DynamoDB Local is a JVM: warm it up first, or the first file measured pays for its JIT.
    const warmUp = await writeDemoFile(workDir, 2000);
    const warmTable = `import-bench-${randomUUID()}`;
    await ensureTable(endpoint, warmTable);
    console.error('warming up DynamoDB Local (2,000 companies)');
    await importFile(warmUp, warmTable, endpoint, preload);
    console.error('measuring what DynamoDB Local itself can write (the floor)');
    floor = await measureWriteFloor(endpoint);
    for (const size of sizes) {
      const file = await writeDemoFile(workDir, size);
      const table = `import-bench-${randomUUID()}`;
      await ensureTable(endpoint, table);
      const mb = (statSync(file).size / 1e6).toFixed(1);
      console.error(`importing ${size} companies (${mb} MB)`);
      const first = await importFile(file, table, endpoint, preload);
      const again = await importFile(file, table, endpoint, preload);
      const ceiling = companiesPerSecondCeiling(floor, importWriteSplit(first.writes));
      for (const [label, run] of [
        ['first', first],
        ['again', again],
      ] as const) {
        rows.push([
          `${size} (${mb} MB), ${label}`,
          run.seconds.toFixed(1),
          String(run.rate),
          run.maxRssMb.toFixed(0),
          run.nodeMsPerCompany.toFixed(2),
          run.javaMsPerCompany.toFixed(2),
          String(Math.round(label === 'first' ? ceiling : floor.read.itemsPerSecond)),
          `${Math.round((100 * run.rate) / (label === 'first' ? ceiling : floor.read.itemsPerSecond))} %`,
          label === 'first' ? (run.rate >= BUDGET_PER_SECOND ? 'PASS' : 'UNDER') : '–',
          run.load.toFixed(1),
        ]);
        console.error(`  ${run.summary}`);
      }
    }
  } finally {
    stop();
    rmSync(workDir, { recursive: true, force: true });
  }
  const header = [
    'file',
    'seconds',
    'companies/s',
    'peak RSS MB',
    'Node ms/co',
    'Java ms/co',
    'ceiling/s',
    'of ceiling',
    `≥ ${BUDGET_PER_SECOND}/s`,
    'load',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(
    [
      `Import into DynamoDB Local through \`npm run import\` (${os.cpus().length} cores); peak RSS of the import process`,
      '',
      line(header),
      line(widths.map((w) => '-'.repeat(w))),
      ...rows.map(line),
      '',
      ...floorLines(floor!),
    ].join('\n'),
  );
}

/** What DynamoDB Local alone wrote in this run, and what the ceiling column means. */
function floorLines(floor: WriteFloor): string[] {
  const rate = (r: { itemsPerSecond: number; javaMsPerItem: number }) =>
    `${Math.round(r.itemsPerSecond)} items/s (${r.javaMsPerItem.toFixed(3)} ms of its CPU an item)`;
  return [
    `DynamoDB Local alone, this run (${IN_FLIGHT} requests in flight): BatchWriteItem of ${ITEMS_PER_REQUEST} ${rate(floor.batch)},`,
    `TransactWriteItems of ${ITEMS_PER_REQUEST} ${rate(floor.transaction)}, BatchGetItem of 100 ${rate(floor.read)}.`,
    'ceiling/s: the companies a second DynamoDB Local could take if the import itself cost nothing. First import: the items it',
    'writes per company (its `writes:` line, split by request kind); again: one read by key per company (its stored state).',
    'of ceiling: how near the import comes to it.',
  ];
}

function importFile(file: string, table: string, endpoint: string, preload: string): Promise<Run> {
  const javaBefore = dynamoDbLocalCpuMs(endpoint);
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--require',
        preload,
        '--import',
        'tsx',
        path.join(ROOT, 'infra/cli/import.ts'),
        file,
        '--table',
        table,
      ],
      { cwd: ROOT, env: { ...process.env, DYNAMODB_ENDPOINT: endpoint }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const summary = stdout.split('\n').find((line) => line.startsWith('read ')) ?? '';
      const writes = stdout.split('\n').find((line) => line.startsWith('writes: ')) ?? '';
      const match = /in ([\d.]+) s \((\d+) companies\/s\)/.exec(summary);
      const rss = /MAX_RSS_KB (\d+)/.exec(stderr);
      const cpu = /CPU_US (\d+)/.exec(stderr);
      const companies = Number(/imported (\d+)/.exec(summary)?.[1] ?? 0) || 1;
      if (code !== 0 || !match || !rss) {
        reject(new Error(`import exited ${code}: ${stderr.slice(-2000)}`));
        return;
      }
      resolve({
        summary: `${summary}\n  ${writes}`,
        writes,
        seconds: Number(match[1]),
        rate: Number(match[2]),
        maxRssMb: Number(rss[1]) / 1024,
        nodeMsPerCompany: Number(cpu?.[1] ?? 0) / 1000 / companies,
        javaMsPerCompany: (dynamoDbLocalCpuMs(endpoint) - javaBefore) / companies,
        load: os.loadavg()[0]!,
      });
    });
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
