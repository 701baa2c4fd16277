/**
 * (ext) `npm run import -- --format cbso PATH` and `--format inpi-ratios FILE` (contract §11.4): the
 * financial filings through their converter (lib/filings/) and the filing import, reported by the
 * import command's own `runAndReport` (the skipped line, the summary, the cost lines, the exit code).
 */
import type { ImportSummary } from '../../lib/import/import';
import { FILING_FORMATS, FILING_SOURCES, type FilingFormat } from '../../lib/filings/sources';
import { progressReporter } from './import-progress';

export const FILING_USAGE = [
  '       npm run import -- --format cbso PATH [--as-of YYYY-MM-DD] [--table NAME]',
  '       npm run import -- --format inpi-ratios FILE [--as-of YYYY-MM-DD] [--table NAME]',
].join('\n');

export interface FilingCommand {
  kind: 'filings';
  format: FilingFormat;
  path: string;
  asOf: string | null;
  table: string | undefined;
}

export const isFilingFormat = (format: string): format is FilingFormat =>
  (FILING_FORMATS as readonly string[]).includes(format);

/** The filing command the arguments ask for, or the problem with them in a sentence. */
export function filingCommand(
  format: FilingFormat,
  positionals: string[],
  values: { establishments?: string; 'active-only'?: boolean; table?: string },
  asOf: string | null,
): FilingCommand | { problem: string } {
  if (values.establishments !== undefined || values['active-only'])
    return { problem: '--establishments and --active-only go with --format sirene' };
  if (positionals.length !== 1)
    return {
      problem:
        format === 'cbso'
          ? 'give one folder or ZIP of CBSO filings (or one filing’s .reference.json)'
          : 'give one ratios file (CSV)',
    };
  return { kind: 'filings', format, path: positionals[0]!, asOf, table: values.table };
}

/** What the import command lends the filing import: its checks, stage and report. */
export interface CommandTools {
  fileSize: (path: string, options?: { folder?: boolean }) => number | string;
  fail: (message: string) => number;
  useStage: (table: string | undefined) => string;
  today: () => string;
  runAndReport: <S extends ImportSummary>(
    stage: string,
    progress: ReturnType<typeof progressReporter>,
    run: () => Promise<S>,
    skippedLine?: (summary: S) => string | null,
  ) => Promise<number>;
}

export async function importFilingFiles(command: FilingCommand, tools: CommandTools): Promise<number> {
  const { format, path, table } = command;
  const size = tools.fileSize(path, { folder: format === 'cbso' });
  if (typeof size === 'string') return tools.fail(size);
  const stage = tools.useStage(table);
  // Loaded after the stage is chosen: the storage client reads the environment when first used.
  const { importFilings } = await import('../../lib/filings/import');
  const { formatSkipped } = await import('../../lib/import/registry-import');
  const asOf = command.asOf ?? tools.today();
  console.error(`importing ${format} ${path} into ${stage}, as of ${asOf}`);
  const progress = progressReporter(null, process.stderr);
  return tools.runAndReport(
    stage,
    progress,
    () =>
      importFilings(FILING_SOURCES[format](path), {
        asOf,
        format,
        onRejected: ({ file, line }, reason) => progress.log(`${file} line ${line}: ${reason}`),
        onProgress: ({ imported }) => progress.imported(imported),
      }),
    formatSkipped,
  );
}
