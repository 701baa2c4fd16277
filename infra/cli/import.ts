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
 * A progress bar on a terminal (a line per 10 % of the file read, with the companies imported, otherwise), one `line N: reason` on stderr per rejected
 * line, then the summary. Exit code 0, or 1 when a line was rejected, 2 when the import could not run.
 */
import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { isCalendarDate } from '../../lib/http/schemas';
import { fileLines } from '../../lib/import/lines';
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
  const stage = useStage(values.table);
  stageInUse = stage;

  // Loaded after the stage is chosen: the storage client reads the environment when first used.
  const { importCompanies, formatSummary } = await import('../../lib/import/import');
  const { formatCapacity, formatWrites, writesSince } = await import('../../lib/import/writes');
  const { capacitySoFar, countWrites, writesSoFar } = await import('../../lib/storage/client');

  const size = file === '-' ? null : statSync(file).size;
  const raw: Readable = file === '-' ? process.stdin : createReadStream(file);
  const progress = progressReporter(size);
  const { lines } = await fileLines(raw, progress.advance);

  console.error(`importing ${file === '-' ? 'standard input' : file} into ${stage}, as of ${asOf}`);
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

interface Progress {
  advance(bytes: number): void;
  /** Companies imported so far (after each batch). */
  imported(companies: number): void;
  log(line: string): void;
  stop(): void;
}

/**
 * A bar on a terminal; otherwise a line per 10 % of the file read, printed when the next batch is
 * written, with the companies imported by then (`70% of the file read, 612 companies imported`).
 * Nothing for stdin of unknown size.
 */
function progressReporter(total: number | null): Progress {
  let done = 0;
  let imported = 0;
  if (process.stderr.isTTY && total) {
    const bar = new SingleBar({
      format:
        '{bar} {percentage}% | {value}/{total} MB | {imported} companies imported | ETA {eta_formatted}',
      hideCursor: true,
      stream: process.stderr,
      formatValue: (value, _options, type) =>
        type === 'value' || type === 'total' ? (value / 1e6).toFixed(1) : String(value),
    });
    bar.start(total, 0, { imported });
    return {
      advance: (bytes) => bar.update((done += bytes), { imported }),
      imported: (companies) => bar.update(done, { imported: (imported = companies) }),
      log: (line) => {
        // Clear the bar's line, print, and let the bar redraw below.
        process.stderr.write(`\r\x1b[K${line}\n`);
        bar.render();
      },
      stop: () => bar.stop(),
    };
  }
  // Reading runs ahead of writing (batches in flight, stream buffers): a tenth read is reported with
  // the companies imported once the next batch is written, so each line says how far the writes are.
  let readTenths = 0;
  let reportedTenths = 0;
  const report = () => {
    for (; reportedTenths < readTenths; reportedTenths++)
      console.error(`${(reportedTenths + 1) * 10}% of the file read, ${imported} companies imported`);
  };
  return {
    advance: (bytes) => {
      done += bytes;
      while (total && readTenths < 10 && done >= (total * (readTenths + 1)) / 10) readTenths++;
    },
    imported: (companies) => {
      imported = companies;
      report();
    },
    log: (line) => console.error(line),
    stop: report,
  };
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
