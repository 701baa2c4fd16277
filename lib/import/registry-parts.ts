/**
 * (ext) What the registry steps of the import engine share (lib/import/registry-engine.ts,
 * sirene-ranges.ts): the dropped files copied to the worker's local disk, a registry's units written
 * into partitions of consecutive units, and the report of a drop that is not imported.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { companyKey, parseCompanyNumber } from '../companies/identifiers';
import { reportKey, runReportKey, type ImportFiles, type ImportRun, type PartitionReport } from './engine';
import { fileLines } from './lines';
import type { RegistrySummary } from './registry-import';
import type { RegistryItem, UnitSource } from './sources/unit';
import { workPrefix } from './work';

/** Units a partition holds: about what a JSON Lines partition holds, a worker's minute or two. */
export const PARTITION_UNITS = 16_000;
const WRITES_IN_FLIGHT = 8;

export interface PartitionOptions {
  /** Units a partition holds (tests make small ones). */
  partitionUnits?: number;
}

/** A drop's split step: its partitions, and the clock it waits by (tests turn it forward). */
export interface SplitOptions extends PartitionOptions {
  /** Now, in milliseconds. */
  now?: () => number;
}

/** A drop that is not imported: its report says why. */
export interface NotImported {
  status: 'done';
  key: string;
  reason: string;
  reportKey?: string;
}

/** Writes the report of a drop that is not imported: `not imported: <reason>`. */
export async function notImported(
  files: ImportFiles,
  input: ImportRun,
  reason: string,
): Promise<NotImported> {
  const key = runReportKey(input.key, input.run);
  await files.write(key, `not imported: ${reason}\n`);
  return { status: 'done', key: input.key, reason, reportKey: key };
}

/** Runs `work` with the bucket's `keys` copied (streamed) to a local folder, by their file names; then removes them. */
export async function withLocalCopies<T>(
  files: ImportFiles,
  keys: string[],
  work: (paths: string[]) => Promise<T>,
): Promise<T> {
  const scratch = await mkdtemp(join(tmpdir(), 'registry-drop-'));
  try {
    const paths: string[] = [];
    for (const key of keys) {
      const path = join(scratch, basename(key));
      await pipeline((await files.read(key)).body, createWriteStream(path));
      paths.push(path);
    }
    return await work(paths);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export const partitionKey = (run: string, partition: number) =>
  `${unitsPrefix(run)}p${String(partition).padStart(8, '0')}.jsonl`;

/** Where a run's partitions of units are. */
export const unitsPrefix = (run: string) => `${workPrefix(run)}units/`;

/** The partition a partition key names. */
export const partitionOfKey = (key: string) => Number(/p(\d+)\.jsonl$/.exec(key)?.[1]);

/**
 * The items in order into partitions of about `partitionUnits` units, numbered from `first`; how many
 * were written. `companyOf` names an item's company (null: none, it rides with the unit before it); by
 * default a registry unit's.
 */
export async function writePartitions<T = RegistryItem>(
  files: ImportFiles,
  run: string,
  items: AsyncIterable<T>,
  options: PartitionOptions & { first?: number; companyOf?: (item: T) => string | null } = {},
): Promise<number> {
  const limit = options.partitionUnits ?? PARTITION_UNITS;
  const companyOf = options.companyOf ?? (unitCompany as (item: T) => string | null);
  const pending = new Set<Promise<void>>();
  let lines: string[] = [];
  let units = 0;
  let partitions = 0;
  let lastCompany: string | null = null;
  const flush = async () => {
    if (lines.length === 0) return;
    const write = files
      .write(partitionKey(run, (options.first ?? 0) + partitions++), lines.join('\n') + '\n')
      .finally(() => pending.delete(write));
    pending.add(write);
    lines = [];
    units = 0;
    if (pending.size >= WRITES_IN_FLIGHT) await Promise.race(pending);
  };
  for await (const item of items) {
    const company = companyOf(item);
    // A new company after a full partition starts the next one; a repeat stays with its first.
    if (company !== null && company !== lastCompany) {
      if (units >= limit) await flush();
      lastCompany = company;
    }
    if (company !== null || isUnit(item)) units++;
    lines.push(JSON.stringify(item));
  }
  await flush();
  await Promise.all(pending);
  return partitions;
}

const isUnit = (item: unknown) => (item as RegistryItem).kind === 'unit';

/** A registry unit's company (null when its number is not valid: it is rejected by the import). */
function unitCompany(item: RegistryItem): string | null {
  if (item.kind !== 'unit') return null;
  const { country, companyNumber } = item.unit;
  const number = parseCompanyNumber(country, companyNumber);
  return number === null ? null : companyKey({ country, companyNumber: number });
}

/**
 * Step 2 of a registry or filings run: one partition's items (JSON Lines written by `writePartitions`)
 * through `importItems`, the partition's report left for step 4 (the run's completion runs there once).
 */
export async function importPartition<T>(
  files: ImportFiles,
  input: { run: string; partition: number },
  importItems: (
    items: AsyncIterable<T>,
    onRejected: (source: UnitSource, reason: string) => void,
  ) => Promise<RegistrySummary>,
): Promise<PartitionReport> {
  const { body } = await files.read(partitionKey(input.run, input.partition));
  const { lines } = await fileLines(body);
  async function* items(): AsyncIterable<T> {
    for await (const line of lines) if (line !== '') yield JSON.parse(line) as T;
  }
  const rejected: PartitionReport['rejected'] = [];
  const { skipped, fieldsDropped, ...summary } = await importItems(items(), ({ file, line }, reason) =>
    rejected.push([file, line, reason]),
  );
  const report: PartitionReport = { summary, rejected, skipped: [...skipped], fieldsDropped };
  await files.write(reportKey(input.run, input.partition), JSON.stringify(report));
  return report;
}
