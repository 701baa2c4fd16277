/**
 * `npm run bench:scale`: a registry-sized run on DynamoDB Local, and what it means on AWS. It imports N
 * demo companies (default 1,000,000; the demo's skew: a few NACE sections hold most companies) with
 * every derivation through `npm run import`, imports the same file again (everything unchanged), a
 * monthly refresh in which 5 % of the companies changed, and recomputes every lookalike
 * (`npm run lookalikes`). It prints for each step the rate, wall and CPU time and peak memory, the
 * table's items and bytes per company, and the items, requests and write units written per changed
 * company: as AWS bills them, counted from the import's write requests (they pass through a counting
 * proxy, test/bench/recording-proxy.ts, and are sized by test/bench/write-kinds.ts: 1 unit a KB, twice
 * in a transaction, again for an index entry), and as DynamoDB Local counted them (the import's own
 * `capacity:` line, one unit for a transactional item). Then the cost model, on AWS's count: those
 * per-company figures times the registries' sizes and AWS list prices — the wall time and bill of a
 * full load and of a monthly 5 % refresh of BE, NL and FR (docs/scale.md).
 *
 *   npm run bench:scale                              1,000,000 companies (hours on 2 cores)
 *   npm run bench:scale -- --companies 20000         a quick look at the same figures
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { partitionCount } from '../../lib/import/partitions';
import { workers } from '../../lib/routes';
import { runCli, usageReporter, writeDemoFile, type CliRun } from './cli-runs';
import { benchDynamoDb } from './local-dynamodb';
import { recordingProxy } from './recording-proxy';
import { actionsOf, countActions, type KindCount, type Wire } from './write-kinds';
import { isWrite } from './write-replay';

/** Companies in each registry (BE: KBO/BCE, NL: KvK, FR: SIRENE, active legal units, rounded). */
const REGISTRIES = { BE: 1_600_000, NL: 2_300_000, FR: 10_000_000 } as const;
const REFRESH_SHARE = 0.05;

/**
 * AWS list prices, us-east-1, as published when this was written (2026-11-25; DynamoDB's on-demand
 * prices as cut on 2024-11-01). Check them before budgeting.
 */
const PRICES = {
  writeUnit: 0.625 / 1e6,
  readUnit: 0.125 / 1e6,
  storageGbMonth: 0.25,
  lambdaArmGbSecond: 0.0000133334,
  stepFunctionsTransition: 0.025 / 1000,
};
/** The memory of the import's partition workers and of the lookalike shards (lib/routes.ts), read from there. */
const IMPORT_WORKER_GB = workers.importPartition.memoryMb / 1024;
const LOOKALIKE_WORKER_GB = workers.lookalikesShard.memoryMb / 1024;
/**
 * On Lambda a worker waits for DynamoDB between its batches, and is billed for the wait: its wall
 * time is taken as twice its CPU time (4 batches in flight keep it busy about half the time).
 */
const LAMBDA_WALL_PER_CPU = 2;
/** DynamoDB bills 100 bytes of overhead per item (and per index entry) on top of its data. */
const ITEM_OVERHEAD_BYTES = 100;

interface Step {
  label: string;
  companies: number;
  run: CliRun;
  /**
   * Per changed company: items and requests from the import's `writes:` line, write units as AWS bills
   * them from its requests (`awsWriteUnits`) and as DynamoDB Local counted them (`writeUnits`, its
   * `capacity:` line); read units per company read (changed or not). Absent for the lookalike job.
   */
  writes?: {
    items: number;
    requests: number;
    awsWriteUnits: number;
    writeUnits?: number;
    readUnits?: number;
  };
  /** Changed companies (what the per-company write figures count). */
  changed?: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { companies: { type: 'string' } } });
  const companies = Number(values.companies ?? 1_000_000);
  if (!Number.isInteger(companies) || companies < 100) throw new Error('--companies takes an integer ≥ 100');

  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'company-data-scale-bench-'));
  const { ensureTable, localClient } = await import('../../infra/local/dynamodb');
  const db = await benchDynamoDb({
    log: console.error,
    onSignal: () => rmSync(workDir, { recursive: true, force: true }),
  });
  const usage = usageReporter(workDir);
  const steps: Step[] = [];
  try {
    const table = `scale-bench-${randomUUID()}`;
    await ensureTable(db.endpoint, table);
    console.error(`writing ${companies.toLocaleString('en')} demo companies`);
    const file = await writeDemoFile(workDir, companies);
    const refresh = await writeRefreshFile(file, path.join(workDir, 'refresh.jsonl'));
    const lineBytes = statSync(file).size / companies;
    const cli = { endpoint: db.endpoint, usage, onStderr: (text: string) => process.stderr.write(text) };
    const importStep = async (label: string, input: string, asOf: string) => {
      const writes = await awsWriteCounter(db.endpoint);
      let run: CliRun;
      try {
        run = await runCli('import', [input, '--table', table, '--as-of', asOf, '--capacity'], {
          ...cli,
          endpoint: writes.endpoint,
        });
      } finally {
        await writes.close();
      }
      steps.push({ label, companies, run, ...importFigures(run.stdout, writes.units()) });
    };
    await importStep('first import', file, '2026-11-01');
    const table0 = await tableFigures(localClient(db.endpoint), table);
    await importStep('again, unchanged', file, '2026-11-01');
    await importStep(`refresh, ${REFRESH_SHARE * 100} % changed`, refresh, '2026-12-01');
    const lookalikes = await runCli('lookalikes', ['--table', table], cli);
    steps.push({ label: 'lookalikes, full recompute', companies, run: lookalikes });
    report(companies, steps, table0, lineBytes);
  } finally {
    db.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * The same companies with every 20th changed as a registry's monthly extract changes them: its latest
 * period's staff one more (or, without periods, another place).
 */
async function writeRefreshFile(from: string, to: string): Promise<string> {
  const out = createWriteStream(to);
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(from), crlfDelay: Infinity })) {
    if (line === '') continue;
    let text = line;
    if (n++ % Math.round(1 / REFRESH_SHARE) === 0) {
      const record = JSON.parse(line) as { place?: string; financials: Array<{ employees?: number | null }> };
      const latest = record.financials[0];
      if (latest && typeof latest.employees === 'number') latest.employees += 1;
      else record.place = `${record.place ?? ''} (moved)`;
      text = JSON.stringify(record);
    }
    if (!out.write(`${text}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return to;
}

/**
 * A proxy in front of DynamoDB Local that sizes every write request passing through it as AWS bills it
 * (test/bench/write-kinds.ts): `units()` is the write units so far.
 */
async function awsWriteCounter(
  endpoint: string,
): Promise<{ endpoint: string; units: () => number; close: () => Promise<void> }> {
  const kinds = new Map<string, KindCount>();
  const proxy = await recordingProxy(endpoint, ({ operation, body }) => {
    if (isWrite(operation)) countActions(kinds, actionsOf({ operation, body: JSON.parse(body) as Wire }));
  });
  const units = () => [...kinds.values()].reduce((sum, kind) => sum + kind.writeUnits, 0);
  return { endpoint: proxy.endpoint, units, close: proxy.close };
}

/**
 * The import's figures: changed companies from its summary (§11.2), per-company writes from the next
 * lines, and the write units AWS bills for its requests (`awsWriteUnits`, all of them) per changed company.
 */
function importFigures(stdout: string, awsWriteUnits: number): Pick<Step, 'writes' | 'changed'> {
  const summary = /imported \d+ \(new (\d+), changed (\d+), unchanged \d+\)/.exec(stdout);
  const changed = summary ? Number(summary[1]) + Number(summary[2]) : 0;
  const writes = /writes: ([\d.]+) items and ([\d.]+) requests per changed company/.exec(stdout);
  const units =
    /capacity: ([\d.]+) write units per changed company, ([\d.]+) read units per company read/.exec(stdout);
  return {
    changed,
    writes: writes
      ? {
          items: Number(writes[1]),
          requests: Number(writes[2]),
          awsWriteUnits: changed > 0 ? awsWriteUnits / changed : 0,
          ...(units ? { writeUnits: Number(units[1]), readUnits: Number(units[2]) } : {}),
        }
      : undefined,
  };
}

interface TableFigures {
  items: number;
  bytes: number;
  indexItems: number;
  indexBytes: number;
}

async function tableFigures(
  client: { send: (command: DescribeTableCommand) => Promise<unknown> },
  table: string,
): Promise<TableFigures> {
  const { Table } = (await client.send(new DescribeTableCommand({ TableName: table }))) as {
    Table?: {
      ItemCount?: number;
      TableSizeBytes?: number;
      GlobalSecondaryIndexes?: Array<{ ItemCount?: number; IndexSizeBytes?: number }>;
    };
  };
  const indexes = Table?.GlobalSecondaryIndexes ?? [];
  return {
    items: Table?.ItemCount ?? 0,
    bytes: Table?.TableSizeBytes ?? 0,
    indexItems: indexes.reduce((sum, i) => sum + (i.ItemCount ?? 0), 0),
    indexBytes: indexes.reduce((sum, i) => sum + (i.IndexSizeBytes ?? 0), 0),
  };
}

function report(companies: number, steps: Step[], table: TableFigures, lineBytes: number): void {
  const f = (n: number, digits = 1) => n.toLocaleString('en', { maximumFractionDigits: digits });
  const rows = steps.map((s) => [
    s.label,
    f(s.run.wallSeconds),
    f(s.companies / s.run.wallSeconds, 0),
    f((s.run.cpuSeconds / s.companies) * 1000, 2),
    f(s.run.maxRssMb, 0),
    s.writes ? f(s.writes.items, 2) : '–',
    s.writes ? f(s.writes.requests, 2) : '–',
    s.writes ? f(s.writes.awsWriteUnits, 2) : '–',
    s.writes?.writeUnits !== undefined ? f(s.writes.writeUnits, 2) : '–',
  ]);
  const header = [
    'step',
    'wall s',
    'companies/s',
    'CPU ms/company',
    'peak RSS MB',
    'items/changed',
    'requests/changed',
    'WRU/changed (AWS)',
    'WRU/changed (Local)',
  ];
  const storedBytes = table.bytes + table.indexBytes + ITEM_OVERHEAD_BYTES * (table.items + table.indexItems);
  console.log(
    [
      `Scale run: ${f(companies)} demo companies on DynamoDB Local (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'cpu'})`,
      '',
      ...table2(header, rows),
      'WRU: write units per changed company; AWS: as AWS bills the requests (1 a KB, 2 in a transaction, ' +
        'plus index entries); Local: as DynamoDB Local counted them (1 for a transactional item)',
      '',
      `table after the first import: ${f(table.items / companies, 2)} items and ${f(table.bytes / companies, 0)} bytes per company; ` +
        `gsi1 ${f(table.indexItems / companies, 2)} entries and ${f(table.indexBytes / companies, 0)} bytes per company; ` +
        `${f(storedBytes / companies, 0)} billed bytes per company`,
      '',
      ...costModel(steps, storedBytes / companies, lineBytes),
    ].join('\n'),
  );
}

/** Per-company figures × registry sizes × list prices. */
function costModel(steps: Step[], bytesPerCompany: number, lineBytes: number): string[] {
  const [first, , refresh, lookalikes] = steps as [Step, Step, Step, Step];
  const perCompany = (s: Step) => s.run.cpuSeconds / s.companies;
  const units = (s: Step) => s.writes?.awsWriteUnits ?? 0;
  const reads = (s: Step) => s.writes?.readUnits ?? 0;
  const lines = [
    `Cost model (us-east-1 list prices of 2026-11-25; Lambda wall = ${LAMBDA_WALL_PER_CPU} × CPU; ` +
      'write units as AWS bills the requests)',
    '',
  ];
  const rows: string[][] = [];
  for (const [registry, size] of Object.entries(REGISTRIES)) {
    const changed = size * REFRESH_SHARE;
    const load = {
      writes: size * units(first) * PRICES.writeUnit,
      reads: size * reads(first) * PRICES.readUnit,
      lambda:
        size * perCompany(first) * LAMBDA_WALL_PER_CPU * IMPORT_WORKER_GB * PRICES.lambdaArmGbSecond +
        size * perCompany(lookalikes) * LOOKALIKE_WORKER_GB * PRICES.lambdaArmGbSecond,
    };
    // A refresh reads every line: the unchanged ones cost their state read, the changed ones a full import.
    const refreshCost = {
      writes: changed * units(refresh) * PRICES.writeUnit,
      reads: size * reads(refresh) * PRICES.readUnit,
      lambda: size * perCompany(refresh) * LAMBDA_WALL_PER_CPU * IMPORT_WORKER_GB * PRICES.lambdaArmGbSecond,
    };
    // The state machine: a few transitions for the run, about five per partition (map item, task, retry state).
    const transitions = 10 + 5 * partitionCount(size * lineBytes, false);
    const stepFunctions = transitions * PRICES.stepFunctionsTransition;
    const storage = ((size * bytesPerCompany) / 1e9) * PRICES.storageGbMonth;
    const usd = (n: number) => `$${n.toLocaleString('en', { maximumFractionDigits: n < 10 ? 2 : 0 })}`;
    rows.push([
      `${registry} (${(size / 1e6).toFixed(1)} M)`,
      usd(load.writes + load.reads),
      usd(load.lambda + stepFunctions),
      usd(refreshCost.writes + refreshCost.reads),
      usd(refreshCost.lambda + stepFunctions),
      usd(storage),
      `${((size * bytesPerCompany) / 1e9).toFixed(1)} GB`,
    ]);
  }
  return [
    ...lines,
    ...table2(
      [
        'registry',
        'load: DynamoDB',
        'load: Lambda + SFN',
        'refresh: DynamoDB',
        'refresh: Lambda + SFN',
        'storage/month',
        'stored',
      ],
      rows,
    ),
  ];
}

function table2(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
