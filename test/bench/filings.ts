/**
 * `npm run bench:filings`: filing conversion alone (read, map, score, and the import's grouping of a
 * company's filings in sorted runs on disk; no DynamoDB) on generated files, CBSO filings as a folder and
 * as a ZIP (the batch extracts' delivery, members in name order) and French ratios files, at several
 * sizes, each converted in a child process of its own so that its peak memory (RSS) is its own: flat
 * memory shows as the same peak at every size. Filings per second by wall time and by the process's
 * CPU time (what one core does, whatever else the machine runs), the process's start included; with
 * two sizes or more, what a run pays whatever its size and the rate of each filing beyond it (the
 * difference of the smallest and largest sizes). Each input is read through once before it is measured:
 * the figures are the conversion's from the system's caches (a delivery just written), not the disk's.
 * Figures only; it exits 0.
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
 *   npm run bench:filings -- --import 3000       the import itself on DynamoDB Local (filing-import.ts)
 *   npm run bench:filings -- --import 20000 --runs 3   three first imports, each against its own floors,
 *                                                    each share printed and their median
 *   npm run bench:filings -- --import 20000 --replay   and where DynamoDB Local's CPU goes (filing-import.ts)
 *   npm run bench:filings -- --write-forms       DynamoDB Local's CPU an item for each form a filing's
 *                                                 writes could take (filing-write-forms.ts)
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, createWriteStream, existsSync, opendirSync, openSync, readSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import yazl from 'yazl';
import { FilingRuns } from '../../lib/filings/filing-runs';
import { FILING_SOURCES, type FilingFormat } from '../../lib/filings/sources';
import { cbsoFiles, writeCbso, writeRatios } from './filing-files';

interface Measure {
  filings: number;
  seconds: number;
  cpuSeconds: number;
  /** The process's CPU from its start (node, the TypeScript loader, the modules), the conversion's included. */
  processCpuSeconds: number;
  maxRssMb: number;
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

/**
 * Every byte of the input read once (a folder's files one by one), so that each measure starts with its
 * files in the system's caches, as a delivery just downloaded or written is: a folder of 200,000 files
 * not read for a while costs its opens several times more system time (docs/benchmarks.md), which the
 * run would measure instead of the conversion. Done here, not in the measured child.
 */
function readThrough(target: string): void {
  const buffer = Buffer.allocUnsafe(1 << 20);
  const readWhole = (file: string) => {
    const fd = openSync(file, 'r');
    try {
      while (readSync(fd, buffer, 0, buffer.length, null) > 0);
    } finally {
      closeSync(fd);
    }
  };
  if (!statSync(target).isDirectory()) return readWhole(target);
  const dir = opendirSync(target);
  try {
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync())
      if (entry.isFile()) readWhole(path.join(target, entry.name));
  } finally {
    dir.closeSync();
  }
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
      runs: { type: 'string', default: '1' },
      'write-forms': { type: 'boolean', default: false },
    },
  });
  if (values['write-forms']) return (await import('./filing-write-forms')).writeForms();
  if (values.import !== undefined) {
    const runs = Number(values.runs);
    if (!Number.isInteger(runs) || runs < 1)
      throw new Error(`--runs: ${values.runs} is not a whole number of runs`);
    const { importRun } = await import('./filing-import');
    return importRun(Number(values.import), values.replay, runs);
  }
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
      readThrough(target);
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
    `(the CPU columns count the whole process, its start included; each input read through once before ` +
      `its measure, so its files are in the system's caches; inputs kept under ${values.data})`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
