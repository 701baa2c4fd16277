/**
 * `npm run bench:filings`: filing conversion alone (read, map, score, and the import's grouping of a
 * company's filings in sorted runs on disk; no DynamoDB) on generated files, CBSO filings as a folder and
 * as a ZIP (the batch extracts' delivery, members in name order) and French ratios files, at several
 * sizes, each converted in a child process of its own so that its peak memory (RSS) is its own: flat
 * memory shows as the same peak at every size. Filings per second by wall time and by the process's
 * CPU time (what one core does, whatever else the machine runs), the process's start included; with
 * two sizes or more, what a run pays whatever its size and the rate of each filing beyond it (the
 * difference of the smallest and largest sizes). Figures only; it exits 0.
 *
 * The generated files are kept under `--data` (a folder of the system's temporary folder by default)
 * and written only for a size not there yet: 400,000 filings (the yearly Belgian load) take minutes and
 * some 3 GB as a folder.
 *
 *   npm run bench:filings                         20,000 and 100,000 filings of each format
 *   npm run bench:filings -- --sizes 20000,100000,400000
 *   npm run bench:filings -- --formats cbso,cbso-zip   only these (cbso, cbso-zip, inpi-ratios)
 *   npm run bench:filings -- --max-old-space 64   each conversion's old generation capped (node's
 *                                                 --max-old-space-size): memory held that grew with the
 *                                                 input would fail it; without, V8 may grow its heap
 *                                                 lazily, more on an idle machine
 *   npm run bench:filings -- --import 3000       the import itself on DynamoDB Local (see importRun)
 *   npm run bench:filings -- --import 20000 --replay   and where DynamoDB Local's CPU goes (replayDiagnostic)
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import yazl from 'yazl';
import { FilingRuns } from '../../lib/filings/filing-runs';
import { FILING_SOURCES, type FilingFormat } from '../../lib/filings/sources';

interface Measure {
  filings: number;
  seconds: number;
  cpuSeconds: number;
  /** The process's CPU from its start (node, the TypeScript loader, the modules), the conversion's included. */
  processCpuSeconds: number;
  maxRssMb: number;
}

/** A valid Belgian enterprise number (mod 97) for the n-th company. */
function belgianNumber(n: number): string {
  const base = 1_000_000 + (n % 8_999_999);
  return `0${base}${String(97 - (base % 97)).padStart(2, '0')}`;
}

/** A valid SIREN (Luhn) for the n-th company. */
function siren(n: number): string {
  const base = String(300_000_000 + (n % 600_000_000)).slice(0, 8);
  for (let d = 0; d < 10; d++) {
    const digits = `${base}${d}`;
    let sum = 0;
    for (let i = 0; i < 9; i++) {
      let x = Number(digits[8 - i]);
      if (i % 2 === 1) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
      sum += x;
    }
    if (sum % 10 === 0) return digits;
  }
  throw new Error('no Luhn digit');
}

/** `count` CBSO filings' files, a company's three years apart (as a day's batch has them), in name order. */
function* cbsoFiles(count: number): Generator<{ name: string; data: string }> {
  for (let i = 0; i < count; i++) {
    const company = Math.floor(i / 3);
    const year = 2021 + (i % 3);
    const ref = `${year + 1}-${String(i).padStart(8, '0')}`;
    const scale = 1 + (i % 97) / 10;
    const value = (x: number) => (x * scale).toFixed(2);
    const rubrics = Object.entries({
      '9900': 640_000,
      '9901': 70_000,
      '630': 25_000,
      '9904': 48_000,
      '20/58': 820_000,
      '29/58': 500_000,
      '3': 90_000,
      '54/58': 120_000,
      '10/15': 310_000,
      '13': 18_600,
      '14': 240_000,
      '17': 150_000,
      '42/48': 330_000,
      '43': 40_000,
      '44': 180_000,
      '9087': 7.8,
    }).flatMap(([Code, x]) => [
      { Code, Period: 'N', Value: value(x) },
      { Code, Period: 'NM1', Value: value(x * 0.9) },
    ]);
    yield { name: `${ref}.accountingData.json`, data: JSON.stringify({ Rubrics: rubrics }) };
    yield {
      name: `${ref}.reference.json`,
      data: JSON.stringify({
        ReferenceNumber: ref,
        DepositDate: `${year + 1}-06-30`,
        ExerciseDates: { startDate: `${year}-01-01`, endDate: `${year}-12-31` },
        ModelType: 'm02-f',
        EnterpriseNumber: belgianNumber(company * 7919),
      }),
    };
  }
}

/** `count` CBSO filings as a folder (written synchronously: hundreds of thousands of small files). */
async function writeCbso(dir: string, count: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const { name, data } of cbsoFiles(count)) writeFileSync(path.join(dir, name), data);
}

/**
 * The ZIP case's largest size without the `zip` command: yazl takes time quadratic in its members (a
 * minute for 40,000). A day's batch ZIP holds some 1,600 filings.
 */
const ZIP_LIMIT = 20_000;

/**
 * The folder's filings as one ZIP, deflated, in name order: by Info-ZIP's `zip` command when the machine
 * has it (any size), else by yazl up to `ZIP_LIMIT` (null above it: no ZIP). yazl writes each member's
 * sizes after its data, `zip` in its header; the reader takes them from the central directory either way.
 */
async function writeCbsoZip(zipPath: string, folder: string, count: number): Promise<string | null> {
  const names = [...cbsoFiles(count)].map((file) => file.name).sort();
  const zip = spawnSync('zip', ['-q', '-X', '-D', zipPath, '-@'], {
    cwd: folder,
    input: names.join('\n'),
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  if (zip.status === 0) return 'zip';
  if (count > ZIP_LIMIT) return null;
  await inChild(['zip', zipPath, String(count)]);
  return 'yazl';
}

/**
 * The same filings as one ZIP by yazl, in name order. Written by a child process (`zip PATH N`): the ZIP
 * is built in memory, and a measuring child spawned from a parent that held it would inherit its peak RSS.
 */
async function writeYazlZip(zipPath: string, count: number): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const { name, data } of cbsoFiles(count)) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  const out = createWriteStream(zipPath);
  zip.outputStream.pipe(out);
  await once(out, 'close');
}

const RATIOS_HEADER =
  'siren;date_cloture_exercice;chiffre_d_affaires;marge_brute;ebe;ebit;resultat_net;taux_d_endettement;ratio_de_liquidite;ratio_de_vetuste;autonomie_financiere;poids_bfr_exploitation_sur_ca;couverture_des_interets;caf_sur_ca;capacite_de_remboursement;marge_ebe;resultat_courant_avant_impots_sur_ca;poids_bfr_exploitation_sur_ca_jours;rotation_des_stocks_jours;credit_clients_jours;credit_fournisseurs_jours;type_bilan;confidentiality';

/** A ratios file of `count` rows, in no company order (as the published file). */
async function writeRatios(file: string, count: number): Promise<void> {
  const out = createWriteStream(file);
  let chunk = `\uFEFF${RATIOS_HEADER}\n`;
  for (let i = 0; i < count; i++) {
    const company = (i * 7919) % Math.max(1, Math.floor(count / 3));
    const ca = 100_000 + (i % 1000) * 1000;
    chunk +=
      `${siren(company)};${2021 + (i % 3)}-12-31;${ca};${ca * 0.4};${ca * 0.12};${ca * 0.09};${ca * 0.05};` +
      `45.120;${90 + (i % 80)}.500;60.200;${(i % 60) - 5}.400;12.100;3.200;9.800;2.100;12.500;${(i % 20) - 6}.900;` +
      `44.000;30.500;61.000;55.000;${'KCS'[i % 3]};Public\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'close');
}

/** Converts the files and groups the filings by company as the import does; time and peak memory. */
async function measure(format: FilingFormat, target: string): Promise<Measure> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const runs = new FilingRuns();
  let filings = 0;
  for await (const item of FILING_SOURCES[format](target)) {
    if (item.kind !== 'filing') continue;
    filings++;
    await runs.add(item.filing);
  }
  let grouped = 0;
  for await (const [, filing] of runs.sorted()) if (filing) grouped++;
  if (grouped !== filings) throw new Error(`grouped ${grouped} of ${filings} filings`);
  const used = process.cpuUsage(cpu);
  const whole = process.cpuUsage();
  return {
    filings,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    processCpuSeconds: (whole.user + whole.system) / 1e6,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

/** The measure in a child process, its old generation capped at `heapMb` when given. */
const measureInChild = async (format: FilingFormat, target: string, heapMb?: number) =>
  JSON.parse(
    await inChild(['measure', format, target], heapMb ? [`--max-old-space-size=${heapMb}`] : []),
  ) as Measure;

/** This bench in a child process with `args` (and node's `nodeArgs`): its standard output. */
function inChild(args: string[], nodeArgs: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, ...process.execArgv, __filename, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited ${code}`)),
    );
  });
}

/**
 * `--import N`: N CBSO filings (three years of N / 3 companies) through `npm run import -- --format
 * cbso` into DynamoDB Local, after their companies (JSON Lines), then the same folder again; the
 * command's own summary and cost lines for each.
 */
async function importRun(count: number, replay = false): Promise<void> {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'filings-import-bench-'));
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const { benchDynamoDb, dynamoDbLocalCpuMs } = await import('./local-dynamodb');
  const { runCli, usageReporter } = await import('./cli-runs');
  const { endpoint, stop } = await benchDynamoDb({ log: console.error });
  try {
    const table = `filings-bench-${Date.now()}`;
    await ensureTable(endpoint, table);
    const usage = usageReporter(scratch);
    const companies = path.join(scratch, 'companies.jsonl');
    const lines = Array.from({ length: Math.ceil(count / 3) }, (_, c) =>
      JSON.stringify({ country: 'BE', companyNumber: belgianNumber(c * 7919), name: `Bench Company ${c}` }),
    );
    await writeFile(companies, `${lines.join('\n')}\n`);
    const folder = path.join(scratch, 'cbso');
    await writeCbso(folder, count);
    const options = { endpoint, usage };
    console.error(`importing ${lines.length} companies`);
    await runCli('import', [companies, '--table', table, '--as-of', '2025-01-01'], options);
    // What DynamoDB Local alone writes (after the companies' import warmed it up): the import's ceiling.
    const { companiesPerSecondCeiling, importWriteSplit, measureWriteFloor } = await import('./write-floor');
    console.error('measuring what DynamoDB Local itself can write (the floor)');
    const floor = await measureWriteFloor(endpoint);
    for (const label of ['filings', 'again']) {
      console.error(`importing ${count} filings (${label})`);
      const javaBefore = dynamoDbLocalCpuMs(endpoint);
      const run = await runCli('import', ['--format', 'cbso', folder, '--table', table], options);
      const javaMs = dynamoDbLocalCpuMs(endpoint) - javaBefore;
      const rate = Number(/\((\d+) companies\/s\)/.exec(run.stdout)?.[1] ?? 0);
      const writes = /^writes: .*$/m.exec(run.stdout)?.[0] ?? '';
      const split = importWriteSplit(writes);
      const ceiling = companiesPerSecondCeiling(floor, split);
      if (Number.isFinite(ceiling))
        console.log(
          `ceiling: ${Math.round(ceiling)} filings/s from the items written; ${Math.round((100 * rate) / ceiling)} % of it`,
        );
      console.log(
        `${label}: ${count} filings in ${run.wallSeconds.toFixed(1)} s wall, ${run.cpuSeconds.toFixed(1)} s CPU, peak ${run.maxRssMb.toFixed(0)} MB, load ${os.loadavg()[0]!.toFixed(1)}`,
      );
      console.log(run.stdout.trim());
      // Where the CPU went: DynamoDB Local's against what the floor's items cost it, and the command's own.
      const floorMs =
        split.batchItems * floor.batch.javaMsPerItem +
        split.transactionItems * floor.transaction.javaMsPerItem;
      console.log(
        `CPU a filing: DynamoDB Local ${(javaMs / count).toFixed(3)} ms (its items at the floor's cost ${floorMs.toFixed(3)} ms), ` +
          `the import command ${((1000 * run.cpuSeconds) / count).toFixed(3)} ms`,
      );
    }
    if (replay) await replayDiagnostic({ endpoint, usage, companies, folder, count, floor });
  } finally {
    stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * `--replay`: after the measured runs, the same companies and filings imported once more into a table
 * of their own through a recording proxy (test/bench/recording-proxy.ts; not measured: the proxy adds
 * latency), then every request the filing import sent replayed by kind (write-replay.ts `replay`,
 * `byOperation`), and its writes counted by item kind (write-kinds.ts). DynamoDB Local's CPU a filing for the writes replayed against what the floor's small
 * items would cost (the items' size and shape), and for the reads replayed (what the floor leaves out).
 */
async function replayDiagnostic(bench: {
  endpoint: string;
  usage: string;
  companies: string;
  folder: string;
  count: number;
  floor: import('./write-floor').WriteFloor;
}): Promise<void> {
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const { runCli } = await import('./cli-runs');
  const { recordingProxy } = await import('./recording-proxy');
  const { isWrite, parseRequests, replay } = await import('./write-replay');
  const { actionsOf, countActions, formatBreakdown, perCompany } = await import('./write-kinds');
  const table = `filings-replay-${Date.now()}`;
  await ensureTable(bench.endpoint, table);
  await runCli('import', [bench.companies, '--table', table, '--as-of', '2025-01-01'], bench);
  const proxy = await recordingProxy(bench.endpoint);
  try {
    console.error(`importing ${bench.count} filings through the recording proxy`);
    await runCli('import', ['--format', 'cbso', bench.folder, '--table', table], {
      ...bench,
      endpoint: proxy.endpoint,
    });
  } finally {
    await proxy.close();
  }
  const requests = parseRequests(proxy.requests);
  const { operations } = await replay(bench.endpoint, requests, {
    byOperation: true,
    prepare: (replayTable) =>
      runCli('import', [bench.companies, '--table', replayTable, '--as-of', '2025-01-01'], bench).then(
        () => undefined,
      ),
  });
  const writes = operations.filter((kind) => isWrite(kind.operation));
  const reads = operations.filter((kind) => !isWrite(kind.operation));
  const perFiling = (x: number) => (x / bench.count).toFixed(3);
  console.log(`replayed (DynamoDB Local's CPU a filing, load ${os.loadavg()[0]!.toFixed(1)}):`);
  for (const kind of [...writes, ...reads]) {
    const atFloor =
      kind.operation === 'TransactWriteItems'
        ? kind.items * bench.floor.transaction.javaMsPerItem
        : kind.operation === 'BatchGetItem'
          ? kind.items * bench.floor.read.javaMsPerItem
          : kind.items * bench.floor.batch.javaMsPerItem;
    console.log(
      `  ${kind.operation.padEnd(18)} ${perFiling(kind.requests)} requests, ${perFiling(kind.items)} items, ` +
        `${Math.round(kind.bytes / Math.max(1, kind.items))} bytes an item: ${perFiling(kind.javaMs)} ms ` +
        `(the floor's items ${perFiling(atFloor)} ms)` +
        (kind.refused ? `, ${kind.refused} refused (${kind.refusal})` : ''),
    );
  }
  console.log('written, by item kind (a filing):');
  const byKind = new Map<string, import('./write-kinds').KindCount>();
  for (const request of requests) if (isWrite(request.operation)) countActions(byKind, actionsOf(request));
  for (const line of formatBreakdown(perCompany(byKind, bench.count))) console.log(`  ${line}`);
  const sum = (kinds: typeof writes) => kinds.reduce((ms, kind) => ms + kind.javaMs, 0);
  console.log(`  writes ${perFiling(sum(writes))} ms, reads ${perFiling(sum(reads))} ms a filing`);
}

/** What the bench converts: CBSO filings as a folder, the same as a ZIP, a French ratios file. */
const KINDS = ['cbso', 'cbso-zip', 'inpi-ratios'] as const;
type Kind = (typeof KINDS)[number];

/**
 * The bench's input of `kind` and `size` under `data`, written if it is not there yet (a folder or file
 * is named by its size once complete, so an interrupted write is written again); null when this machine
 * cannot write it (a large ZIP without the `zip` command). The ZIP is zipped from the folder.
 */
async function inputOf(data: string, kind: Kind, size: number): Promise<string | null> {
  const target = path.join(
    data,
    `${kind}-${size}${kind === 'cbso' ? '' : kind === 'cbso-zip' ? '.zip' : '.csv'}`,
  );
  if (existsSync(target)) return target;
  const partial = `${target}.partial`;
  await rm(partial, { recursive: true, force: true });
  console.error(`writing ${size} filings (${kind}) under ${data}`);
  if (kind === 'cbso') await writeCbso(partial, size);
  else if (kind === 'inpi-ratios') await writeRatios(partial, size);
  else {
    const folder = await inputOf(data, 'cbso', size);
    if (!folder || (await writeCbsoZip(partial, folder, size)) === null) return null;
  }
  await rename(partial, target);
  return target;
}

/** A row of the table: the format, its size and the measure. */
function row(kind: string, m: Measure): string {
  return [
    kind.padEnd(11),
    String(m.filings).padStart(9),
    m.seconds.toFixed(1).padStart(8),
    String(Math.round(m.filings / m.seconds)).padStart(17),
    m.processCpuSeconds.toFixed(1).padStart(6),
    String(Math.round(m.filings / m.processCpuSeconds)).padStart(16),
    m.maxRssMb.toFixed(0).padStart(12),
    os.loadavg()[0]!.toFixed(1).padStart(5),
  ].join(' ');
}

/**
 * What a run of `kind` pays whatever its size, and the CPU rate of each filing beyond it: the
 * difference of its smallest and largest sizes, so that neither is a fixed cost spread thin.
 */
function fixedCost(kind: string, measures: Measure[]): string | undefined {
  if (measures.length < 2) return undefined;
  const small = measures.reduce((a, b) => (b.filings < a.filings ? b : a));
  const large = measures.reduce((a, b) => (b.filings > a.filings ? b : a));
  if (large.filings === small.filings) return undefined;
  const perFiling = (large.processCpuSeconds - small.processCpuSeconds) / (large.filings - small.filings);
  const fixed = small.processCpuSeconds - small.filings * perFiling;
  const rss = measures.map((m) => m.maxRssMb);
  return (
    `${kind}: a run pays ${fixed.toFixed(2)} s of CPU whatever its size (of which the process's start ` +
    `${(small.processCpuSeconds - small.cpuSeconds).toFixed(2)} s), then ${Math.round(1 / perFiling)} ` +
    `filings/s of CPU beyond it (${small.filings} to ${large.filings}); peak RSS ` +
    `${Math.min(...rss).toFixed(0)}–${Math.max(...rss).toFixed(0)} MB`
  );
}

async function main(): Promise<void> {
  if (process.argv[2] === 'zip') return writeYazlZip(process.argv[3]!, Number(process.argv[4]));
  if (process.argv[2] === 'measure') {
    const format = process.argv[3] as FilingFormat;
    process.stdout.write(JSON.stringify(await measure(format, process.argv[4]!)));
    return;
  }
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '20000,100000' },
      formats: { type: 'string', default: KINDS.join(',') },
      data: { type: 'string', default: path.join(os.tmpdir(), 'filings-bench-data') },
      'max-old-space': { type: 'string' },
      import: { type: 'string' },
      replay: { type: 'boolean', default: false },
    },
  });
  if (values.import !== undefined) return importRun(Number(values.import), values.replay);
  const sizes = values.sizes.split(',').map(Number);
  if (sizes.some((size) => !Number.isInteger(size) || size < 1))
    throw new Error(`--sizes: ${values.sizes} is not a list of whole numbers of filings`);
  const kinds = values.formats.split(',');
  const unknown = kinds.filter((kind) => !(KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0) throw new Error(`--formats: ${unknown.join(', ')} is none of ${KINDS.join(', ')}`);
  const heapMb = values['max-old-space'] === undefined ? undefined : Number(values['max-old-space']);
  if (heapMb !== undefined && !(heapMb > 0)) throw new Error('--max-old-space: a number of MB');
  await mkdir(values.data, { recursive: true });
  console.log('format        filings   wall s  filings/s (wall)  CPU s  filings/s (CPU)  peak RSS MB  load');
  const measured = new Map<Kind, Measure[]>();
  for (const size of sizes) {
    for (const kind of KINDS) {
      if (!kinds.includes(kind)) continue;
      const target = await inputOf(values.data, kind, size);
      if (!target) {
        console.log(
          `${kind.padEnd(11)} ${String(size).padStart(9)}  (no ZIP: yazl stops at ${ZIP_LIMIT} without the zip command)`,
        );
        continue;
      }
      const m = await measureInChild(kind === 'inpi-ratios' ? kind : 'cbso', target, heapMb);
      measured.set(kind, [...(measured.get(kind) ?? []), m]);
      console.log(row(kind, m));
    }
  }
  for (const [kind, measures] of measured) {
    const line = fixedCost(kind, measures);
    if (line) console.log(line);
  }
  console.log(
    `(the CPU columns count the whole process, its start included; inputs kept under ${values.data})`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
