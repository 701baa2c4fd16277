/**
 * (ext) Financial filings on AWS (contract §11.4, §11.5.11): files dropped under `filings/cbso/` (a
 * ZIP of filings, or one filing's pair: `<ref>.reference.json` and `<ref>.accountingData.json`) or
 * `filings/inpi-ratios/` (the ratios CSV) in the stage's import bucket, imported by the import engine
 * (lib/import/engine.ts, infra/import-engine.ts) through the same converters and the same filing
 * import as `npm run import -- --format cbso|inpi-ratios`.
 *
 * 1. `splitFilingDrop` copies the drop to the worker's local disk (streamed), converts it with the
 *    command's converter, sorts its filings by company through sorted runs on that disk (§11.5.10; the
 *    files give a company's filings in any order) and cuts them into partitions of consecutive
 *    companies, so that one company's filings meet in one partition (lib/import/registry-parts.ts).
 *    A reference file starts a run; its accounting file beside it is its pair, waited for as a SIRENE
 *    units file waits for its establishments (`PAIR_WAIT_MS`), then imported without it (the filing is
 *    skipped: no accounting data). An accounting file alone starts nothing.
 * 2. `importFilingPartition`, one worker per partition, imports its filings with `importFilings` and
 *    leaves the partition's report; 3. and 4. as for the registries' files.
 */
import { basename } from 'node:path';
import { companyKey } from '../companies/identifiers';
import { type ImportFiles, type ImportRun, type PartitionReport, type SplitFile } from '../import/engine';
import { PAIR_WAIT_MS } from '../import/registry-engine';
import {
  importPartition,
  notImported,
  withLocalCopies,
  writePartitions,
  type NotImported,
  type SplitOptions,
} from '../import/registry-parts';
import { SortedRuns } from '../import/sources/sorted-runs';
import { FILING_RUN_SIZE, type FilingFormat, type FilingItem } from './filing';
import { importFilings } from './import';
import { FILING_SOURCES } from './sources';

/** Where each format's filings are dropped (§11.5.11). */
export const FILING_PREFIXES: Record<FilingFormat, string> = {
  cbso: 'filings/cbso/',
  'inpi-ratios': 'filings/inpi-ratios/',
};

const REFERENCE = /\.reference\.json$/i;
const ACCOUNTING = /\.accountingData\.json$/i;

/** The format of filings dropped at `key`, or null when it is under no filing prefix. */
export function filingFormatOf(key: string): FilingFormat | null {
  const formats = Object.keys(FILING_PREFIXES) as FilingFormat[];
  return formats.find((format) => key.startsWith(FILING_PREFIXES[format])) ?? null;
}

export type FilingSplit =
  SplitFile<FilingFormat> | NotImported | { status: 'wait'; key: string; waited: number };

export type FilingSplitOptions = SplitOptions;

/** Step 1 for filings: the drop converted, its filings sorted by company, into partitions. */
export async function splitFilingDrop(
  files: ImportFiles,
  input: ImportRun,
  options: FilingSplitOptions = {},
): Promise<FilingSplit> {
  const format = filingFormatOf(input.key);
  if (!format) throw new Error(`${input.key} is under no filing prefix`);
  const name = basename(input.key);
  let keys = [input.key];
  if (format === 'inpi-ratios' && !/\.csv$/i.test(name))
    return notImported(files, input, `${name} is not a CSV: drop the ratios file as published (…csv)`);
  if (format === 'cbso') {
    if (ACCOUNTING.test(name))
      return {
        status: 'done',
        key: input.key,
        reason: 'an accounting file is imported with its reference file',
      };
    if (REFERENCE.test(name)) {
      const pair = input.key.replace(REFERENCE, '.accountingData.json');
      const folder = input.key.slice(0, input.key.length - name.length);
      const found = (await files.list(folder)).find((key) => key.toLowerCase() === pair.toLowerCase());
      const waited = (options.now ?? Date.now)() - Date.parse(input.startedAt);
      if (found) keys = [input.key, found];
      else if (waited < PAIR_WAIT_MS) return { status: 'wait', key: input.key, waited };
    } else if (!/\.zip$/i.test(name))
      return notImported(
        files,
        input,
        `${name} is neither a ZIP of filings nor a filing's .reference.json or .accountingData.json`,
      );
  }
  return withLocalCopies(files, keys, async ([path]) => {
    const partitions = await writePartitions(files, input.run, byCompany(FILING_SOURCES[format](path!)), {
      ...options,
      companyOf: (item: FilingItem) => (item.kind === 'filing' ? companyKey(item.filing) : null),
    });
    return {
      ...input,
      status: 'split' as const,
      format,
      asOf: input.startedAt.slice(0, 10),
      partitions: Array.from({ length: partitions }, (_, p) => p),
    };
  });
}

/** The items sorted by company on local disk: skipped and rejected ones first, as they come. */
async function* byCompany(items: AsyncIterable<FilingItem>): AsyncGenerator<FilingItem> {
  const runs = new SortedRuns<FilingItem>({ runSize: FILING_RUN_SIZE });
  try {
    let seq = 0;
    for await (const item of items) {
      // Within a company, the files' order (the import ranks a company's filings itself).
      const order = String(seq++).padStart(12, '0');
      await runs.add(`${item.kind === 'filing' ? companyKey(item.filing) : ''}#${order}`, item);
    }
    for await (const [, item] of runs.sorted()) yield item;
  } finally {
    await runs.discard();
  }
}

/** Step 2 for filings: one partition's filings through the filing import, its report left for step 4. */
export async function importFilingPartition(
  files: ImportFiles,
  input: { run: string; asOf: string; partition: number; format: FilingFormat },
): Promise<PartitionReport> {
  return importPartition<FilingItem>(files, input, (items, onRejected) =>
    importFilings(items, {
      asOf: input.asOf,
      format: input.format,
      onRejected,
      // The run's completion runs once, after every partition (step 4).
      complete: async () => undefined,
    }),
  );
}
