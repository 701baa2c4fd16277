/**
 * The import at scale (contract §11.2): a file dropped in the stage's import bucket is imported by a
 * Step Functions state machine (infra/import-engine.ts) in four steps of worker Lambdas over
 * this module, with the library's one import (lib/import/import.ts) doing the work:
 *
 * 1. `splitImportFile` streams the file once and writes its lines, numbered, into partitions by
 *    company (lib/import/partitions.ts): `work/<run>/p<partition>/<part>.tsv`.
 * 2. `importPartition`, one worker per partition in parallel (a Distributed Map), imports its lines
 *    with their numbers in the file, without the run's completion, and leaves its report
 *    (`work/<run>/reports/p<partition>.json`: figures and rejected lines).
 * 3. `planLookalikes` plans the lookalike recompute of every changed company as shards
 *    (lib/lookalikes/fan-out.ts: the sections' snapshots under `work/<run>/lookalikes/`) under the
 *    table's lookalike lease, `computeLookalikeShard`, one worker per shard in parallel (a second
 *    Distributed Map), computes and writes their lists, and `finishLookalikes` drops the marks the plan
 *    read and releases the lease, going round again while marks written meanwhile remain. With the
 *    lease held by another recompute the run plans nothing: that one takes its marks.
 * 4. `completeImportRun` runs the run's other completions (smart lists, contact counts), reading
 *    the partitions' reports meanwhile, then writes the run's report as the import command prints
 *    it — one `line N: reason` per rejected line in line order, then the summary line — to
 *    `reports/<file>.<run>.txt`, and removes the work.
 *
 * (ext) The registries' files dropped under `kbo/` and `sirene/` take the same steps, their first two
 * in lib/import/registry-engine.ts: units instead of lines, the report's rejections as `FILE line N`
 * and its `skipped` line as the command prints them.
 *
 * Nothing about the records or the derivations differs from `npm run import`: the same verdict for
 * every line, the same stored state. A step that fails is retried by the state machine; every step is
 * idempotent (a run's parts and reports are named by the run and overwritten on a retry).
 */
import type { Readable } from 'node:stream';
import { forEachLimited } from '../concurrency';
import { isCalendarDate } from '../http/schemas';
import { completeImport } from './derive';
import {
  emptySummary,
  formatSummary,
  importCompanies,
  type ImportSummary,
  type NumberedLine,
} from './import';
import { fileLines } from './lines';
import { byCodePoint } from '../order';
import { formatSkipped } from './registry-import';
import { endExtract, type Extract } from './registry-progress';
import type { RegistryFormat } from './sources';
import { numbered, partitionCount, partitionOf, unnumbered } from './partitions';
import { workPrefix } from './work';

/** The import bucket, as the engine uses it (lib/import/bucket.ts on S3). */
export interface ImportFiles {
  read(key: string): Promise<{ body: Readable; bytes: number }>;
  write(key: string, body: string | Uint8Array): Promise<void>;
  /** Keys under `prefix`, in key order. */
  list(prefix: string): Promise<string[]>;
  remove(keys: string[]): Promise<void>;
}

/** Where files are dropped; `incoming/YYYY-MM-DD/…` dates the import (its `--as-of`). */
export const INCOMING_PREFIX = 'incoming/';
export const REPORTS_PREFIX = 'reports/';
export { WORK_PREFIX, lookalikeWork } from './work';
/** A partition's lines are written in parts of about this many characters. */
const PART_CHARS = 4 * 1024 * 1024;
/** All partitions' buffers together stay under this many characters. */
const BUFFERED_CHARS = 256 * 1024 * 1024;
const WRITES_IN_FLIGHT = 8;

export interface ImportRun {
  /** The run's name (the state machine execution's): names its work files. */
  run: string;
  key: string;
  /** When the run started (ISO 8601): its summary's seconds count from there. */
  startedAt: string;
}

export interface SplitFile<Format extends string = 'jsonl' | RegistryFormat> extends ImportRun {
  /** `split`: partitions to import (a registry's drop may also wait for its pair, or end: registry-engine.ts). */
  status: 'split';
  /**
   * What the partitions hold: JSON Lines, a registry's units (lib/import/registry-engine.ts), or
   * filings (lib/filings/engine.ts: `SplitFile<FilingFormat>`).
   */
  format: Format;
  asOf: string;
  /** The partitions to import, 0 … n−1. */
  partitions: number[];
  /** A line the report starts with (a SIRENE units file imported without its establishments). */
  note?: string;
  /** (ext) The numbered extract the partitions hold (KBO): the last one applied once the run completes. */
  extract?: Extract;
}

/** What a partition's import leaves for the last step. */
export interface PartitionReport {
  summary: ImportSummary;
  /** Each rejection: the CSV's file (empty for JSON Lines), the line, the reason. */
  rejected: Array<[file: string, line: number, reason: string]>;
  /** A registry's units left out on purpose, by reason, and its fields dropped (the `skipped` line). */
  skipped?: Array<[reason: string, count: number]>;
  fieldsDropped?: number;
}

const partitionPrefix = (run: string, partition: number) =>
  `${workPrefix(run)}p${String(partition).padStart(4, '0')}/`;
export const reportKey = (run: string, partition: number) =>
  `${workPrefix(run)}reports/p${String(partition).padStart(4, '0')}.json`;

/** Where a run's report goes: `reports/` and the dropped file's key (without `incoming/`), then the run. */
export const runReportKey = (key: string, run: string) =>
  `${REPORTS_PREFIX}${key.startsWith(INCOMING_PREFIX) ? key.slice(INCOMING_PREFIX.length) : key}.${run}.txt`;

/** The as-of date of a dropped file: `incoming/YYYY-MM-DD/…`, else the day the run started (UTC). */
export function asOfOf(key: string, startedAt: string): string {
  const folder = key.slice(INCOMING_PREFIX.length).split('/')[0] ?? '';
  return /^\d{4}-\d{2}-\d{2}$/.test(folder) && isCalendarDate(folder) ? folder : startedAt.slice(0, 10);
}

/** Step 1: the file's lines into partitions by company. */
export async function splitImportFile(
  files: ImportFiles,
  input: ImportRun,
  options: { partitions?: number } = {},
): Promise<SplitFile> {
  const { body, bytes } = await files.read(input.key);
  const { lines, compressed } = await fileLines(body);
  const count = options.partitions ?? partitionCount(bytes, compressed);
  const partCharsLimit = Math.min(PART_CHARS, Math.floor(BUFFERED_CHARS / count));
  const buffers = Array.from({ length: count }, () => ({ lines: [] as string[], chars: 0, parts: 0 }));
  const pending = new Set<Promise<void>>();

  const flush = async (partition: number) => {
    const buffer = buffers[partition]!;
    if (buffer.lines.length === 0) return;
    const key = `${partitionPrefix(input.run, partition)}${String(buffer.parts++).padStart(6, '0')}.tsv`;
    const write = files.write(key, buffer.lines.join('\n') + '\n').finally(() => pending.delete(write));
    buffer.lines = [];
    buffer.chars = 0;
    pending.add(write);
    if (pending.size >= WRITES_IN_FLIGHT) await Promise.race(pending);
  };

  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue; // Not read (contract §11.2), as in the import itself.
    const partition = partitionOf(text, count, line);
    const buffer = buffers[partition]!;
    const stored = numbered(line, text);
    buffer.lines.push(stored);
    buffer.chars += stored.length + 1;
    if (buffer.chars >= partCharsLimit) await flush(partition);
  }
  for (let partition = 0; partition < count; partition++) await flush(partition);
  await Promise.all(pending);
  return {
    ...input,
    status: 'split',
    format: 'jsonl',
    asOf: asOfOf(input.key, input.startedAt),
    partitions: Array.from({ length: count }, (_, p) => p),
  };
}

/** Step 2: one partition's lines through the import, its report left for the last step. */
export async function importPartition(
  files: ImportFiles,
  input: { run: string; asOf: string; partition: number },
): Promise<ImportSummary> {
  const parts = await files.list(partitionPrefix(input.run, input.partition));
  async function* partitionLines(): AsyncIterable<NumberedLine> {
    for (const part of parts) {
      const { lines } = await fileLines((await files.read(part)).body);
      for await (const stored of lines) if (stored !== '') yield unnumbered(stored);
    }
  }
  const rejected: PartitionReport['rejected'] = [];
  const summary = await importCompanies(partitionLines(), {
    asOf: input.asOf,
    onRejected: (line, reason) => rejected.push(['', line, reason]),
    // The run's completion runs once, after every partition (step 3).
    complete: async () => undefined,
  });
  const report: PartitionReport = { summary, rejected };
  await files.write(reportKey(input.run, input.partition), JSON.stringify(report));
  return summary;
}

/**
 * Step 4: the run's other completions, then its report — the note, one line per rejection in file and
 * line order, the `skipped` line of a registry, the summary — as the import command prints them; the
 * work files go. Returns the report's text.
 */
export async function completeImportRun(
  files: ImportFiles,
  input: ImportRun & { partitions: number[]; note?: string; extract?: Extract },
): Promise<{ reportKey: string; summary: ImportSummary; text: string }> {
  const partitionReports = new Map<number, PartitionReport>();
  // The partitions' reports are read while the completions run: neither touches what the other reads.
  await Promise.all([
    (async () => {
      await completeImport({ lookalikes: false });
      // Every partition imported: the extract is applied, as the command ends it when its import
      // returns (a retry of this step finds it ended already).
      if (input.extract) await endExtract(input.extract, { again: true });
    })(),
    forEachLimited(input.partitions, WRITES_IN_FLIGHT, async (partition) => {
      const { body } = await files.read(reportKey(input.run, partition));
      partitionReports.set(partition, JSON.parse(await text(body)) as PartitionReport);
    }),
  ]);
  const total = emptySummary();
  const rejected: PartitionReport['rejected'] = [];
  const skipped = new Map<string, number>();
  let fieldsDropped = 0;
  // In partition order: a registry's partitions follow its files, so the skipped reasons come in the
  // order the command meets them.
  for (const partition of [...input.partitions].sort((a, b) => a - b)) {
    const report = partitionReports.get(partition)!;
    for (const name of [
      'read',
      'imported',
      'created',
      'changed',
      'unchanged',
      'rejected',
      'updates',
    ] as const)
      total[name] += report.summary[name];
    rejected.push(...report.rejected);
    for (const [reason, count] of report.skipped ?? [])
      skipped.set(reason, (skipped.get(reason) ?? 0) + count);
    fieldsDropped += report.fieldsDropped ?? 0;
  }
  total.seconds = (Date.now() - Date.parse(input.startedAt)) / 1000;
  rejected.sort(([fileA, a], [fileB, b]) => byCodePoint(fileA, fileB) || a - b);
  const skippedLine = formatSkipped({ skipped, fieldsDropped });
  const report = [
    ...(input.note ? [input.note] : []),
    ...rejected.map(([file, line, reason]) => `${file ? `${file} ` : ''}line ${line}: ${reason}`),
    ...(skippedLine ? [skippedLine] : []),
    formatSummary(total),
  ].join('\n');
  const key = runReportKey(input.key, input.run);
  await files.write(key, report + '\n');
  // The parts first, the partition reports last (one request for up to 1,000 partitions): a retry
  // of this step after a failure here still finds every report.
  const work = await files.list(workPrefix(input.run));
  const reports = `${workPrefix(input.run)}reports/`;
  await files.remove(work.filter((k) => !k.startsWith(reports)));
  await files.remove(work.filter((k) => k.startsWith(reports)));
  return { reportKey: key, summary: total, text: report };
}

async function text(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
