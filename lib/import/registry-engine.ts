/**
 * (ext) The registries' files on AWS (contract §11.3, §11.5.11): a KBO ZIP dropped under `kbo/`, or a
 * SIRENE units file dropped under `sirene/` with its establishments file beside it, imported by the
 * import engine (lib/import/engine.ts, infra/import-engine.ts) through the same converters and the same
 * registry import as `npm run import -- --format kbo|sirene`.
 *
 * 1. `splitRegistryDrop` cuts the drop's units into partitions of consecutive units
 *    (`work/<run>/units/p<partition>.jsonl`, lib/import/registry-parts.ts). A KBO ZIP is copied to the
 *    worker's local disk (streamed) and opened with the command's converter (`REGISTRY_SOURCES`: the
 *    join of the nine files runs on sorted runs on that disk, never a map of the registry), a full
 *    extract or an update, with the stage at hand read by key (lib/import/registry-store.ts
 *    `storedRegistryByKey`); its extract is begun as the command begins it, and ended by the run's
 *    completion (lib/import/registry-progress.ts), so one out of `ExtractNumber` order imports
 *    nothing. A SIRENE pair is cut by `siren` range so that no one worker converts it all
 *    (lib/import/sirene-ranges.ts): the split plans the ranges, a worker splits each, the split
 *    gathers their partitions.
 *    A registry yields one unit per entity, grouped by entity number, so a company's unit (and a
 *    repeat of it, which follows it) lies in one partition: a partition is cut only where the next
 *    unit names another company than the last one.
 * 2. `importRegistryPartition`, one worker per partition in parallel, imports its units with
 *    `importRegistryItems` (the merge of §11.5.1), and leaves the partition's report: figures,
 *    rejections by CSV file and line, units skipped by reason, fields dropped.
 * 3. and 4. as for JSON Lines: the lookalike rounds, then the completion and the report.
 *
 * A SIRENE units file starts the run; the establishments file of the same month in the same folder
 * (`StockEtablissement…`) is its pair. When it is not there yet the split answers `wait` and the state
 * machine asks again a minute later, for at most `PAIR_WAIT_MS`; after that the units are imported
 * without addresses (as the command without `--establishments`), and the report says so first. An
 * establishments file alone starts nothing. A drop that cannot be imported as published (a KBO file
 * that is not a ZIP, a file out of order, no `meta.csv`) or not now (a KBO extract out of order)
 * leaves a report saying why and imports nothing.
 */
import { basename } from 'node:path';
import { type ImportFiles, type ImportRun, type PartitionReport, type SplitFile } from './engine';
import { importRegistryItems } from './registry-import';
import {
  importPartition,
  notImported,
  withLocalCopies,
  writePartitions,
  type NotImported,
  type PartitionOptions,
  type SplitOptions,
} from './registry-parts';
import {
  gatherSireneRanges,
  planSireneRanges,
  splitSireneRange,
  type RangeOptions,
  type SireneRange,
  type SireneRanges,
} from './sirene-ranges';
import { abandonExtract, beginExtract, ExtractRefusedError, type Extract } from './registry-progress';
import { storedRegistryByKey } from './registry-store';
import { REGISTRY_SOURCES, type RegistryFormat } from './sources';
import { RegistryFileError } from './sources/files';
import type { RegistryItem } from './sources/unit';

/** Where each registry's files are dropped (§11.5.11). */
export const REGISTRY_PREFIXES: Record<RegistryFormat, string> = { kbo: 'kbo/', sirene: 'sirene/' };

/** How long a SIRENE units file waits for its establishments file. */
export const PAIR_WAIT_MS = 30 * 60 * 1000;

/**
 * What the split of a registry's drop answers: partitions, a wait for the pair, SIRENE's ranges to
 * split (then one answer per range, then the partitions gathered), or nothing to import.
 */
export type RegistrySplit =
  | SplitFile
  | { status: 'wait'; key: string; waited: number }
  | SireneRanges
  | { status: 'range'; index: number; partitions: number }
  | NotImported;

/** The split's input: a dropped file, one of SIRENE's ranges, or the ranges done. */
export type RegistrySplitInput = ImportRun &
  (
    | { range?: undefined; gather?: undefined }
    | { range: SireneRange; gather?: undefined; establishments: string | null }
    | { range?: undefined; gather: true; note: string | null }
  );

/** What a key under a registry's prefix is. */
export type RegistryDrop =
  | { kind: 'kbo'; key: string }
  | { kind: 'sirene-units'; key: string; folder: string; month: string | null }
  | { kind: 'sirene-establishments'; key: string }
  | { kind: 'refused'; key: string; reason: string };

/** The drop `key` is, or null when it is under no registry's prefix. */
export function registryDropOf(key: string): RegistryDrop | null {
  const name = basename(key);
  if (key.startsWith(REGISTRY_PREFIXES.kbo)) {
    if (!/\.zip$/i.test(name))
      return {
        kind: 'refused',
        key,
        reason: `${name} is not a ZIP: drop the KBO extract as published (KboOpenData_…_Full.zip)`,
      };
    return { kind: 'kbo', key };
  }
  if (!key.startsWith(REGISTRY_PREFIXES.sirene)) return null;
  if (/^StockUniteLegale/i.test(name))
    return {
      kind: 'sirene-units',
      key,
      folder: key.slice(0, key.length - name.length),
      month: monthOf(key.slice(REGISTRY_PREFIXES.sirene.length)),
    };
  if (/^StockEtablissement/i.test(name)) return { kind: 'sirene-establishments', key };
  return {
    kind: 'refused',
    key,
    reason: `${name} is neither a StockUniteLegale nor a StockEtablissement file`,
  };
}

/** The month a SIRENE file's key names (`2025-05`, `2025_05` or `202505`, in its name or folder), else null. */
export function monthOf(path: string): string | null {
  const found = /(?:^|\D)(\d{4})[-_]?(0[1-9]|1[0-2])(?!\d)/.exec(path);
  return found ? `${found[1]}-${found[2]}` : null;
}

/** The establishments files beside a units file, of its month. */
export function establishmentsOf(keys: string[], units: { folder: string; month: string | null }): string[] {
  if (units.month === null) return [];
  return keys.filter((key) => {
    const name = key.slice(units.folder.length);
    return (
      key.startsWith(units.folder) &&
      !name.includes('/') &&
      /^StockEtablissement/i.test(name) &&
      monthOf(key.slice(REGISTRY_PREFIXES.sirene.length)) === units.month
    );
  });
}

export interface RegistrySplitOptions extends SplitOptions, RangeOptions {}

/** Step 1 for a registry's drop: its units into partitions of consecutive units (SIRENE's by range). */
export async function splitRegistryDrop(
  files: ImportFiles,
  input: RegistrySplitInput,
  options: RegistrySplitOptions = {},
): Promise<RegistrySplit> {
  if (input.range !== undefined) return splitSireneRange(files, input, options);
  if (input.gather !== undefined) return gatherSireneRanges(files, input);
  const drop = registryDropOf(input.key);
  if (!drop) throw new Error(`${input.key} is under no registry's prefix`);
  if (drop.kind === 'refused') return notImported(files, input, drop.reason);
  if (drop.kind === 'sirene-establishments')
    return {
      status: 'done',
      key: input.key,
      reason: 'an establishments file is imported with its units file',
    };
  if (drop.kind === 'kbo') return splitKbo(files, input, options);

  const found = establishmentsOf(await files.list(drop.folder), drop);
  if (found.length > 1)
    return notImported(
      files,
      input,
      `several establishments files of ${drop.month} beside it: ${found.join(', ')}`,
    );
  const establishments = found[0] ?? null;
  let note: string | null = null;
  if (!establishments) {
    const waited = (options.now ?? Date.now)() - Date.parse(input.startedAt);
    if (drop.month !== null && waited < PAIR_WAIT_MS) return { status: 'wait', key: input.key, waited };
    note =
      `${basename(input.key)} imported without establishments (no address): ` +
      (drop.month === null
        ? 'its name names no month to find its StockEtablissement file by'
        : `no StockEtablissement file of ${drop.month} beside it`);
  }
  return planSireneRanges(files, { ...input, establishments, note }, options);
}

/**
 * A KBO ZIP (a full extract or an update) converted by the command's converter on the local disk, with
 * the stage at hand as the command gives it (`stored`: an update applies to the rows kept, a full
 * extract stops what it no longer holds), its units into partitions. Its extract is begun first, as the
 * command begins it (lib/import/registry-progress.ts): one out of `ExtractNumber` order is not imported,
 * the report says why and nothing is written. The run's completion ends it (lib/import/engine.ts
 * `completeImportRun`).
 */
async function splitKbo(
  files: ImportFiles,
  input: ImportRun,
  options: PartitionOptions,
): Promise<SplitFile | NotImported> {
  let begun: Extract | undefined;
  try {
    return await withLocalCopies(files, [input.key], async ([path]) => {
      const opened = await REGISTRY_SOURCES.kbo!.open([path!], { stored: storedRegistryByKey });
      const extract = opened.extract && { source: 'kbo', ...opened.extract };
      const notices = extract ? await beginExtract(extract) : [];
      begun = extract;
      const partitions = await writePartitions(files, input.run, opened.items, options);
      const note = notices.join('\n');
      return {
        ...input,
        status: 'split',
        format: 'kbo',
        asOf: opened.snapshotDate ?? input.startedAt.slice(0, 10),
        partitions: Array.from({ length: partitions }, (_, p) => p),
        ...(note === '' ? {} : { note }),
        ...(extract ? { extract } : {}),
      };
    });
  } catch (error) {
    // Not as published (the command's exit 2): no partition is imported, the report says why. Its
    // converter reads every file through before it hands on a unit: the extract wrote nothing.
    if (error instanceof RegistryFileError) {
      if (begun) await abandonExtract(begun);
      return notImported(files, input, error.message);
    }
    if (error instanceof ExtractRefusedError) return notImported(files, input, error.message);
    throw error;
  }
}

/** Step 2 for a registry: one partition's units through the registry import, its report left for step 4. */
export async function importRegistryPartition(
  files: ImportFiles,
  input: { run: string; asOf: string; partition: number; format: RegistryFormat },
): Promise<PartitionReport> {
  return importPartition<RegistryItem>(files, input, (items, onRejected) =>
    importRegistryItems(items, {
      asOf: input.asOf,
      source: input.format,
      onRejected,
      // The run's completion runs once, after every partition (step 4).
      complete: async () => undefined,
    }),
  );
}
