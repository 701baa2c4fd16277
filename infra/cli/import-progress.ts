/**
 * What `npm run import` shows while it runs (contract §11.2, "Feedback"): on a terminal one bar that is
 * redrawn in place; otherwise (a log, a CI job) at most one line per 10 % of the file read. Rejected
 * lines and the summary are printed by the command; this only keeps them from tearing the bar.
 */
import { SingleBar } from 'cli-progress';

export interface Progress {
  /** Bytes of the file read (as stored: compressed bytes for a gzip file). */
  advance(bytes: number): void;
  /** Companies imported so far (after each batch). */
  imported(companies: number): void;
  /** A line of its own (a rejected line), above the bar. */
  log(line: string): void;
  stop(): void;
}

/** The part of a stream the report writes to: stderr, or a stand-in in tests. */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): boolean;
}

const companies = (n: number) => `${n} ${n === 1 ? 'company' : 'companies'}`;

/**
 * The report for a file of `total` bytes (null for standard input, whose size is unknown: then only
 * rejected lines are shown). Write the heading before creating it: the bar takes the line it starts on.
 */
export function progressReporter(total: number | null, stream: ProgressStream): Progress {
  if (stream.isTTY && total) return barReporter(total, stream);
  return tenthsReporter(total, stream);
}

function barReporter(total: number, stream: ProgressStream): Progress {
  let done = 0;
  let imported = 0;
  const bar = new SingleBar({
    format: '{bar} {percentage}% | {value}/{total} MB | {imported} imported | ETA {eta_formatted}',
    hideCursor: true,
    stream: stream as NodeJS.WritableStream,
    formatValue: (value, _options, type) =>
      type === 'value' || type === 'total' ? (value / 1e6).toFixed(1) : String(value),
  });
  bar.start(total, 0, { imported: companies(imported) });
  return {
    advance: (bytes) => bar.update((done += bytes), { imported: companies(imported) }),
    imported: (n) => bar.update(done, { imported: companies((imported = n)) }),
    log: (line) => {
      // Clear the bar's line, print, and let the bar redraw below.
      stream.write(`\r\x1b[K${line}\n`);
      bar.render();
    },
    stop: () => bar.stop(),
  };
}

/**
 * A line when a further tenth of the file has been read, printed when the next batch is written, with
 * the companies imported by then (`70% of the file read, 612 companies imported`). Reading runs ahead
 * of writing (batches in flight, stream buffers), and a small file is read in one chunk: tenths read
 * since the last line are told in one line, the furthest, so a one-line file prints one line, not ten.
 */
function tenthsReporter(total: number | null, stream: ProgressStream): Progress {
  let done = 0;
  let imported = 0;
  let readTenths = 0;
  let reportedTenths = 0;
  const report = () => {
    if (reportedTenths === readTenths) return;
    reportedTenths = readTenths;
    stream.write(`${readTenths * 10}% of the file read, ${companies(imported)} imported\n`);
  };
  return {
    advance: (bytes) => {
      done += bytes;
      while (total && readTenths < 10 && done >= (total * (readTenths + 1)) / 10) readTenths++;
    },
    imported: (n) => {
      imported = n;
      report();
    },
    log: (line) => stream.write(`${line}\n`),
    stop: report,
  };
}
