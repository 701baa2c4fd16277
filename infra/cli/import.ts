/**
 * `npm run import -- FILE.jsonl [--as-of YYYY-MM-DD] [--table NAME]` (contract §11.2): company records,
 * one JSON object per line, into a stage's table through the library's import.
 *
 *   FILE            a .jsonl file, gzip-compressed or not (recognised by its first bytes), or - for stdin
 *   --as-of DATE    the date of updates dated "the day of the change" (default: today, UTC)
 *   --table NAME    a deployed stage's table (AWS credentials and AWS_REGION from the environment);
 *                   default: the local stage, on $DYNAMODB_ENDPOINT or the DynamoDB Local `npm start`
 *                   runs on $DYNAMODB_LOCAL_PORT (8000)
 *
 * A progress bar on a terminal (at most a line per 10 % of the file read otherwise), one `line N: reason`
 * on stderr per rejected line, then the summary. Exit code 0, or 1 when a line was rejected, 2 when the
 * import could not run (a file that cannot be read says so, and only that).
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
import { progressReporter } from './import-progress';
import { cleanUpOnSignal } from './signals';
import { useStage } from './stage';

let stageInUse = '';

const USAGE = `usage: npm run import -- FILE.jsonl[.gz]|- [--as-of YYYY-MM-DD] [--table NAME]`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'as-of': { type: 'string' },
      table: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const [file] = positionals;
  if (values.help || !file || positionals.length > 1) return fail(USAGE);
  const asOf = values['as-of'] ?? new Date().toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf) || !isCalendarDate(asOf))
    return fail(`--as-of takes a date, YYYY-MM-DD (got ${asOf})`);
  const size = file === '-' ? null : fileSize(file);
  if (typeof size === 'string') return fail(size);
  const stage = useStage(values.table);
  stageInUse = stage;

  // Loaded after the stage is chosen: the storage client reads the environment when first used.
  const { importCompanies, formatSummary } = await import('../../lib/import/import');
  const { formatCapacity, formatWrites, writesSince } = await import('../../lib/import/writes');
  const { capacitySoFar, countWrites, writesSoFar } = await import('../../lib/storage/write-counts');
  const { releaseLeasesHeldHere } = await import('../../lib/lookalikes/lease');

  // The heading first: a bar started before it would be written over by it.
  console.error(`importing ${file === '-' ? 'standard input' : file} into ${stage}, as of ${asOf}`);
  const raw: Readable = file === '-' ? process.stdin : createReadStream(file);
  const progress = progressReporter(size, process.stderr);
  cleanUpOnSignal(async (signal) => {
    progress.stop();
    console.error(`import stopped by ${signal} (${stage}).`);
    console.error('Nothing is half-written: run the same import again to resume.');
    await releaseLeasesHeldHere();
  });
  const { lines } = await fileLines(raw, progress.advance);

  let summary;
  countWrites();
  const writesBefore = writesSoFar();
  try {
    summary = await importCompanies(lines, {
      asOf,
      onRejected: (line, reason) => progress.log(`line ${line}: ${reason}`),
      onProgress: ({ imported }) => progress.imported(imported),
    });
  } finally {
    progress.stop();
  }
  console.log(formatSummary(summary));
  console.log(formatWrites(summary, writesSince(writesBefore)));
  console.log(formatCapacity(summary, capacitySoFar()));
  return summary.rejected > 0 ? 1 : 0;
}

/**
 * The size of a file the import can read, or what is wrong with it in a sentence: checked before
 * anything else, so that a mistyped name is not reported as a failed import to resume.
 */
function fileSize(file: string): number | string {
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) return `cannot read ${file}: it is a directory`;
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
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    console.error(`import stopped: ${message} (${stageInUse}).`);
    console.error('Nothing is half-written: run the same import again to resume.');
    process.exit(2);
  },
);
