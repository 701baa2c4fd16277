/**
 * `npm run import -- FILE.jsonl [--as-of YYYY-MM-DD] [--table NAME]` (contract §11.2): company records,
 * one JSON object per line, into a stage's table through the library's import. (ext) With `--format kbo
 * PATH` or `--format sirene UNITS [--establishments FILE] [--active-only]` (§11.3): a registry's files
 * as published, through its converter (lib/import/sources/) and the same import.
 *
 *   FILE            a .jsonl file, gzip-compressed or not (recognised by its first bytes), or - for stdin
 *   --as-of DATE    the date of updates dated "the day of the change" (default: today, UTC)
 *   --table NAME    a deployed stage's table (AWS credentials and AWS_REGION from the environment);
 *                   default: the local stage, on $DYNAMODB_ENDPOINT or the DynamoDB Local `npm start`
 *                   runs on $DYNAMODB_LOCAL_PORT (8000)
 *   --capacity      ask DynamoDB Local what each request consumed, for the `capacity:` line (always
 *                   asked of AWS, where asking is free; DynamoDB Local does a third job an item for it)
 *
 * A progress bar on a terminal (at most a line per 10 % of the file read otherwise), one `line N: reason`
 * on stderr per rejected line (a registry's: `FILE line N: reason`), a registry's `skipped` line, then
 * the summary. Exit code 0, or 1 when a line was rejected, 2 when the import could not run: a usage
 * error prints the usage, a file that cannot be read says so, and a registry's CSV handed to the JSON
 * Lines import names the `--format` it needs, and a KBO extract out of `ExtractNumber` order is refused
 * before anything is written (§11.5.2) — each only that. Only the converter of the format asked for is
 * loaded.
 *
 * The lookalikes are recomputed before it returns, under the table's lookalike lease; while another
 * recompute holds it the import waits and says for whom (lib/lookalikes/lease.ts). Stopped by Ctrl-C or
 * SIGTERM it frees the lease if it holds it (the next run need not wait for its expiry), then ends as
 * the signal ends it (130, 143); run the same import again to resume.
 */
import { constants, accessSync, createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { isCalendarDate } from '../../lib/http/schemas';
import { fileLines } from '../../lib/import/lines';
import type { ImportSummary } from '../../lib/import/import';
import { RegistryFileError } from '../../lib/import/sources/registry-error';
import {
  REGISTRY_FORMATS,
  REGISTRY_SOURCES,
  registryFormatOfHeader,
  type RegistryFormat,
} from '../../lib/import/sources';
import { FILING_FORMATS, ratiosFormatOfHeader } from '../../lib/filings/sources';
import {
  FILING_USAGE,
  filingCommand,
  importFilingFiles,
  isFilingFormat,
  type FilingCommand,
} from './import-filings';
import { progressReporter } from './import-progress';
import { cleanUpOnSignal } from './signals';
import { useStage } from './stage';

let stageInUse = '';

const FORMATS = [...REGISTRY_FORMATS, ...FILING_FORMATS];

const USAGE = [
  'usage: npm run import -- FILE.jsonl[.gz]|- [--as-of YYYY-MM-DD] [--table NAME]',
  '       npm run import -- --format kbo PATH [--as-of YYYY-MM-DD] [--table NAME]',
  '       npm run import -- --format sirene UNITS [--establishments FILE] [--active-only] [--as-of YYYY-MM-DD] [--table NAME]',
  FILING_USAGE,
  'Each also takes --capacity: on DynamoDB Local, ask what each request consumed (AWS is always asked).',
].join('\n');

/** What the command line asks for, or the usage error to print. */
type Command =
  | { kind: 'jsonl'; file: string; asOf: string | null; table: string | undefined }
  | {
      kind: 'registry';
      format: RegistryFormat;
      paths: string[];
      establishments: string | undefined;
      activeOnly: boolean;
      asOf: string | null;
      table: string | undefined;
    }
  | FilingCommand;

const parseOptions = (args: string[]) =>
  parseArgs({
    args,
    allowPositionals: true,
    options: {
      'as-of': { type: 'string' },
      table: { type: 'string' },
      format: { type: 'string' },
      establishments: { type: 'string' },
      'active-only': { type: 'boolean' },
      capacity: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });

/**
 * The command line read, with whether `--capacity` asks DynamoDB Local for the capacity line too, or
 * a usage error (a sentence, then the usage).
 */
function parseCommand(args: string[]): { command: Command; capacity: boolean } | { usage: string } {
  let parsed;
  try {
    parsed = parseOptions(args);
  } catch (error) {
    return { usage: `${(error as Error).message}\n${USAGE}` };
  }
  const { values, positionals } = parsed;
  const command = commandOf(values, positionals);
  return 'usage' in command ? command : { command, capacity: values.capacity ?? false };
}

/** What the options and positionals ask for, or a usage error. */
function commandOf(
  values: ReturnType<typeof parseOptions>['values'],
  positionals: string[],
): Command | { usage: string } {
  const usage = (problem: string) => ({ usage: `${problem}\n${USAGE}` });
  if (values.help) return { usage: USAGE };
  const asOf = values['as-of'] ?? null;
  if (asOf !== null && (!/^\d{4}-\d{2}-\d{2}$/.test(asOf) || !isCalendarDate(asOf)))
    return usage(`--as-of takes a date, YYYY-MM-DD (got ${asOf})`);
  const format = values.format;
  if (format === undefined) {
    if (values.establishments !== undefined || values['active-only'])
      return usage('--establishments and --active-only go with --format sirene');
    if (positionals.length !== 1) return usage('give one FILE.jsonl (or - for standard input)');
    return { kind: 'jsonl', file: positionals[0]!, asOf, table: values.table };
  }
  if (isFilingFormat(format)) {
    const filing = filingCommand(format, positionals, values, asOf);
    return 'problem' in filing ? usage(filing.problem) : filing;
  }
  if (!(REGISTRY_FORMATS as readonly string[]).includes(format))
    return usage(`--format takes ${FORMATS.slice(0, -1).join(', ')} or ${FORMATS.at(-1)} (got ${format})`);
  if (format === 'kbo' && (values.establishments !== undefined || values['active-only']))
    return usage('--establishments and --active-only go with --format sirene');
  if (positionals.length !== 1)
    return usage(
      format === 'kbo' ? 'give one KBO ZIP or folder' : 'give one SIRENE units file (StockUniteLegale)',
    );
  return {
    kind: 'registry',
    format: format as RegistryFormat,
    paths: positionals,
    establishments: values.establishments,
    activeOnly: values['active-only'] ?? false,
    asOf,
    table: values.table,
  };
}

async function main(): Promise<number> {
  const parsed = parseCommand(process.argv.slice(2));
  if ('usage' in parsed) return fail(parsed.usage);
  const { command, capacity } = parsed;
  const runAndReport = reporter(capacity);
  if (command.kind === 'filings')
    return importFilingFiles(command, {
      fileSize,
      fail,
      today,
      runAndReport,
      useStage: (table) => (stageInUse = useStage(table)),
    });
  return command.kind === 'jsonl'
    ? importJsonLines(command, runAndReport)
    : importRegistry(command, runAndReport);
}

async function importJsonLines(
  { file, asOf: given, table }: Extract<Command, { kind: 'jsonl' }>,
  runAndReport: RunAndReport,
): Promise<number> {
  const asOf = given ?? today();
  const size = file === '-' ? null : fileSize(file);
  if (typeof size === 'string') return fail(size);
  const stage = useStage(table);
  stageInUse = stage;

  // Loaded after the stage is chosen: the storage client reads the environment when first used.
  const { importCompanies } = await import('../../lib/import/import');

  const raw: Readable = file === '-' ? process.stdin : createReadStream(file);
  const progress = progressReporter(size, process.stderr);
  const { lines } = await fileLines(raw, progress.advance);
  // A registry's CSV is not JSON Lines: one message naming its format, not a rejection per line.
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  const format = first.done
    ? null
    : (ratiosFormatOfHeader(first.value) ?? registryFormatOfHeader(first.value));
  if (format) {
    raw.destroy();
    const kind = { kbo: 'KBO', sirene: 'SIRENE', 'inpi-ratios': 'French ratios' }[format];
    return fail(
      `${file === '-' ? 'standard input' : file} is a ${kind} CSV file, ` +
        `not JSON Lines: import it with --format ${format}`,
    );
  }
  async function* all() {
    if (!first.done) yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }

  // The heading first: a bar started before it would be written over by it.
  console.error(`importing ${file === '-' ? 'standard input' : file} into ${stage}, as of ${asOf}`);
  return runAndReport(stage, progress, () =>
    importCompanies(all(), {
      asOf,
      onRejected: (line, reason) => progress.log(`line ${line}: ${reason}`),
      onProgress: ({ imported }) => progress.imported(imported),
    }),
  );
}

async function importRegistry(
  command: Extract<Command, { kind: 'registry' }>,
  runAndReport: RunAndReport,
): Promise<number> {
  const { format, paths, establishments, activeOnly, table } = command;
  for (const path of [...paths, ...(establishments === undefined ? [] : [establishments])]) {
    const size = fileSize(path, { folder: format === 'kbo' && path === paths[0] });
    if (typeof size === 'string') return fail(size);
  }
  const source = REGISTRY_SOURCES[format];
  if (!source) return fail(`--format ${format}: this build has no ${format} converter`);
  const stage = useStage(table);
  stageInUse = stage;

  const [
    { formatSkipped, importRegistryItems },
    { storedRegistry },
    { abandonExtract, beginExtract, endExtract },
  ] = await Promise.all([
    import('../../lib/import/registry-import'),
    import('../../lib/import/registry-store'),
    import('../../lib/import/registry-progress'),
  ]);

  const opened = await source.open(paths, {
    ...(establishments === undefined ? {} : { establishments }),
    stored: storedRegistry,
  });
  // A numbered extract applies in order: refused before anything is read or written when it cannot.
  const extract = opened.extract && { source: format, ...opened.extract };
  const notices = extract ? await beginExtract(extract) : [];
  const asOf = command.asOf ?? opened.snapshotDate ?? today();
  const named = extract ? `${format} ${extract.kind} extract ${extract.number}` : format;
  console.error(`importing ${named} ${paths.join(' ')} into ${stage}, as of ${asOf}`);
  for (const notice of notices) console.error(notice);
  const progress = progressReporter(null, process.stderr);
  return runAndReport(
    stage,
    progress,
    async () => {
      const summary = await importRegistryItems(opened.unmapped?.() ?? opened.items, {
        asOf,
        source: format,
        activeOnly,
        onRejected: ({ file, line }, reason) => progress.log(`${file} line ${line}: ${reason}`),
        onProgress: ({ imported }) => progress.imported(imported),
      }).catch(async (error: unknown) => {
        // Files not as published are found before any unit is handed on: the extract wrote nothing.
        if (extract && error instanceof RegistryFileError) await abandonExtract(extract);
        throw error;
      });
      if (extract) await endExtract(extract);
      return summary;
    },
    formatSkipped,
  );
}

type RunAndReport = ReturnType<typeof reporter>;

/**
 * Runs an import with its progress, then prints the skipped line (when `skippedLine` has one), the
 * summary and the cost lines; the exit code is 1 when a line was rejected. Stopped by Ctrl-C or
 * SIGTERM it frees the lookalike lease this process holds and says how to resume. DynamoDB Local is
 * asked what each request consumed only when `capacity` (`--capacity`) says so.
 */
const reporter =
  (capacity: boolean) =>
  async <S extends ImportSummary>(
    stage: string,
    progress: ReturnType<typeof progressReporter>,
    run: () => Promise<S>,
    skippedLine: (summary: S) => string | null = () => null,
  ): Promise<number> => {
    const { formatSummary } = await import('../../lib/import/import');
    const { formatCapacity, formatWrites, writesSince } = await import('../../lib/import/writes');
    const { capacitySoFar, countWrites, writesSoFar } = await import('../../lib/storage/write-counts');
    const { releaseLeasesHeldHere } = await import('../../lib/lookalikes/lease');
    cleanUpOnSignal(async (signal) => {
      progress.stop();
      console.error(`import stopped by ${signal} (${stage}).`);
      console.error('Nothing is half-written: run the same import again to resume.');
      await releaseLeasesHeldHere();
    });

    let summary: S;
    // On AWS (no endpoint of its own) asking is free and the answer is the bill.
    countWrites({ askCapacity: capacity || process.env['DYNAMODB_ENDPOINT'] === undefined });
    const writesBefore = writesSoFar();
    // Where the import's own work starts (its modules loaded, its files opened, its stage chosen), with
    // the process's CPU so far: what a profiler or a bench (test/bench/cli-runs.ts) tells apart from
    // the process's start.
    performance.mark(IMPORT_RUN_MARK, { detail: process.cpuUsage() });
    try {
      summary = await run();
    } finally {
      progress.stop();
    }
    const skipped = skippedLine(summary);
    if (skipped) console.log(skipped);
    console.log(formatSummary(summary));
    console.log(formatWrites(summary, writesSince(writesBefore)));
    console.log(formatCapacity(summary, capacitySoFar()));
    return summary.rejected > 0 ? 1 : 0;
  };

/** The performance mark made where an import's own work starts (`reporter`). */
const IMPORT_RUN_MARK = 'import:run';

const today = () => new Date().toISOString().slice(0, 10);

/**
 * The size of a file the import can read, or what is wrong with it in a sentence: checked before
 * anything else, so that a mistyped name is not reported as a failed import to resume.
 */
function fileSize(file: string, { folder = false } = {}): number | string {
  try {
    const stat = statSync(file);
    if (stat.isDirectory() && !folder) return `cannot read ${file}: it is a directory`;
    accessSync(file, constants.R_OK);
    return stat.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `cannot read ${file}: no such file`;
    if (code === 'EACCES' || code === 'EPERM') return `cannot read ${file}: permission denied`;
    return `cannot read ${file}: ${(error as Error).message}`;
  }
}

function fail(message: string): number {
  console.error(message);
  return 2;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // A registry's file not as published (no meta.csv, a missing column, rows out of order): no run
    // of the same files gets past it.
    if (
      error instanceof RegistryFileError ||
      (error instanceof Error && error.name === 'ExtractRefusedError')
    ) {
      console.error(`cannot import: ${error.message}`);
      process.exit(2);
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    console.error(`import stopped: ${message} (${stageInUse}).`);
    console.error('Nothing is half-written: run the same import again to resume.');
    process.exit(2);
  },
);
