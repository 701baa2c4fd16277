/**
 * (ext) The SIRENE stock on AWS cut by `siren` range, so that no one worker converts the whole
 * registry within Lambda's 15 minutes (lib/import/registry-engine.ts; both stock files are sorted by
 * `siren`, §2.1 of registries.md, which the converter checks as it reads):
 *
 * 1. `planSireneRanges` scans the units file's bytes once (no CSV parse, lib/import/key-ranges.ts) for
 *    its number of rows and a sample of its keys, and cuts it into ranges of about `RANGE_UNITS` units
 *    at sampled keys.
 * 2. `splitSireneRange`, one worker per range in parallel (a Distributed Map): both files scanned to
 *    the range, only its rows parsed and joined by the command's converter (`sireneItems`), its units
 *    written into partitions numbered from `range.index × RANGE_PARTITIONS`, their lines those of the
 *    file. A file the converter refuses leaves its reason for the gathering.
 * 3. `gatherSireneRanges` lists the partitions written, in order, for the import's Distributed Map; or
 *    reports the refusal and imports nothing.
 */
import { openRegistryFiles, RegistryFileError, type RegistryFiles } from './sources/files';
import { sireneItems } from './sources/sirene';
import type { RegistryItem } from './sources/unit';
import type { ImportFiles, ImportRun, SplitFile } from './engine';
import { keyRange, sampleKeys, type KeyRange } from './key-ranges';
import {
  notImported,
  partitionOfKey,
  unitsPrefix,
  withLocalCopies,
  writePartitions,
  type NotImported,
  type PartitionOptions,
} from './registry-parts';
import { workPrefix } from './work';
import type { Readable } from 'node:stream';

/** Units a range holds: a worker's few minutes of conversion. */
export const RANGE_UNITS = 4_000_000;
/** Partitions a range may write (its partitions are numbered from its index times this). */
export const RANGE_PARTITIONS = 100_000;
/** Every how many rows the plan samples a key. */
const SAMPLE_EVERY = 1_000;

const isSiren = (key: string) => /^\d{9}$/.test(key);

export interface SireneRange extends KeyRange {
  index: number;
}

/** What the plan answers: the ranges, and the pair they are cut from. */
export interface SireneRanges extends ImportRun {
  status: 'ranges';
  ranges: SireneRange[];
  /** The establishments file's key, null when imported without it. */
  establishments: string | null;
  /** The report's first line, null when none. */
  note: string | null;
}

export interface RangeOptions extends PartitionOptions {
  /** Units a range holds, and every how many rows a key is sampled (tests cut small files into several). */
  rangeUnits?: number;
  sampleEvery?: number;
}

/** The units file's name in its ZIP or folder (the converter's rule), or undefined when none. */
function csvOf(files: RegistryFiles, stem: string): string | undefined {
  const csvs = files.names.filter((name) => /\.csv$/i.test(name));
  return (
    csvs.find((name) => name.toLowerCase().startsWith(stem.toLowerCase())) ??
    (csvs.length === 1 ? csvs[0] : undefined)
  );
}

/** Step 1: the units file cut into ranges at sampled keys. */
export async function planSireneRanges(
  files: ImportFiles,
  input: ImportRun & { establishments: string | null; note: string | null },
  options: RangeOptions = {},
): Promise<SireneRanges | NotImported> {
  const sampled = await withLocalCopies(files, [input.key], async ([path]) => {
    const units = await openRegistryFiles(path!);
    try {
      const name = csvOf(units, 'StockUniteLegale');
      if (!name) return null;
      return await sampleKeys(
        (await units.open(name)) as AsyncIterable<Buffer>,
        options.sampleEvery ?? SAMPLE_EVERY,
        { name, wellFormed: isSiren },
      );
    } finally {
      await units.close();
    }
  }).catch((error: unknown) => {
    if (error instanceof RegistryFileError) return error;
    throw error;
  });
  if (sampled instanceof RegistryFileError) return notImported(files, input, sampled.message);
  if (!sampled) return notImported(files, input, `${input.key} holds no StockUniteLegale CSV file`);
  const count = Math.max(1, Math.ceil(sampled.rows / (options.rangeUnits ?? RANGE_UNITS)));
  const keys = sampled.samples.filter(isSiren);
  const cuts: string[] = [];
  for (let i = 1; i < count; i++) {
    const key = keys[Math.floor((i * keys.length) / count)];
    if (key !== undefined && key > (cuts.at(-1) ?? '')) cuts.push(key);
  }
  const bounds = [null, ...cuts, null];
  const ranges = cuts.length + 1;
  return {
    ...input,
    status: 'ranges',
    ranges: Array.from({ length: ranges }, (_, index) => ({
      index,
      from: bounds[index] ?? null,
      to: bounds[index + 1] ?? null,
    })),
  };
}

/** A file's CSV cut to a range, as the converter opens it; with the line its first row has in the file. */
function rangeOf(files: RegistryFiles, stem: string, range: KeyRange) {
  const name = csvOf(files, stem);
  let firstLine: () => number | null = () => null;
  const view: RegistryFiles = {
    origin: files.origin,
    names: name ? [name] : files.names,
    find: (wanted) => files.find(wanted),
    open: async (wanted, options): Promise<Readable> => {
      const cut = keyRange(await files.open(wanted, options), range, { name: wanted, wellFormed: isSiren });
      firstLine = cut.firstLine;
      return cut.stream;
    },
    close: () => files.close(),
  };
  return { view, firstLine: () => firstLine() };
}

/** Step 2: one range of the pair converted and written into partitions. */
export async function splitSireneRange(
  files: ImportFiles,
  input: ImportRun & { range: SireneRange; establishments: string | null },
  options: PartitionOptions = {},
): Promise<{ status: 'range'; index: number; partitions: number }> {
  const keys = input.establishments === null ? [input.key] : [input.key, input.establishments];
  const partitions = await withLocalCopies(files, keys, async ([unitsPath, officesPath]) => {
    const units = rangeOf(await openRegistryFiles(unitsPath!), 'StockUniteLegale', input.range);
    const offices =
      officesPath === undefined
        ? undefined
        : rangeOf(await openRegistryFiles(officesPath), 'StockEtablissement', input.range);
    try {
      // The converter counts lines from the cut's header: the rows' lines in the file are further on.
      const shift = () => (units.firstLine() ?? 2) - 2;
      async function* items(): AsyncGenerator<RegistryItem> {
        for await (const item of sireneItems(units.view, offices?.view)) {
          const line = shift();
          if (item.kind === 'unit') item.unit.source.line += line;
          else {
            item.source.line += line;
            if (item.kind === 'skipped' && item.unit) item.unit.source.line += line;
          }
          yield item;
        }
      }
      return await writePartitions(files, input.run, items(), {
        ...options,
        first: input.range.index * RANGE_PARTITIONS,
      });
    } finally {
      await units.view.close();
      await offices?.view.close();
    }
  }).catch(async (error: unknown) => {
    // Not as published: the gathering reports it, and nothing is imported.
    if (!(error instanceof RegistryFileError)) throw error;
    await files.write(refusalKey(input.run, input.range.index), error.message);
    return 0;
  });
  return { status: 'range', index: input.range.index, partitions };
}

const refusalKey = (run: string, index: number) =>
  `${workPrefix(run)}refused/r${String(index).padStart(4, '0')}.txt`;

/** Step 3: the ranges' partitions, in order, for the import; or the first refusal reported. */
export async function gatherSireneRanges(
  files: ImportFiles,
  input: ImportRun & { note: string | null },
): Promise<SplitFile | NotImported> {
  const [refused] = await files.list(`${workPrefix(input.run)}refused/`);
  if (refused) {
    const chunks: Buffer[] = [];
    for await (const chunk of (await files.read(refused)).body) chunks.push(chunk as Buffer);
    return notImported(files, input, Buffer.concat(chunks).toString('utf8'));
  }
  const partitions = (await files.list(unitsPrefix(input.run))).map(partitionOfKey).sort((a, b) => a - b);
  return {
    run: input.run,
    key: input.key,
    startedAt: input.startedAt,
    status: 'split',
    format: 'sirene',
    asOf: input.startedAt.slice(0, 10),
    partitions,
    ...(input.note === null ? {} : { note: input.note }),
  };
}
