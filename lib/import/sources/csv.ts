/**
 * A registry's CSV file as a stream of rows (architecture "Registry files"): parsed by `papaparse`
 * through its readable-stream entry (RFC 4180: quoted fields with commas, doubled quotes and line
 * breaks), never loaded whole. The bytes are decoded as UTF-8 before the parser sees them (a character
 * split between two chunks stays whole), a byte-order mark is stripped, and the file's line ending (CRLF
 * or LF) is read off its header line, which holds no quoted line break, so that the parser never guesses
 * it from a chunk. Every value stays a string (`"001"` is not `1`), and `""` and a bare empty field both
 * read as empty. Each row keeps the physical line it starts on (the header is line 1) so that a
 * rejection can say `enterprise.csv line N`.
 *
 * `papaparse` rather than `csv-parse`: it parses the registries' wide rows several times faster
 * (docs/benchmarks.md), and the conversion must keep up with 200,000 rows a second on one core
 * (contract §11.3). It is lenient where `csv-parse` stops: a stray quote inside a field is read as
 * text, so a mis-quoted row shows as a unit with a bad number or name (rejected with its line); a quote
 * never closed stops the file with its line, before it holds the rest of the file.
 *
 * The parser hands over the rows of each chunk of text at once (its `chunk` callback), not one by one:
 * a row costs the parser's array of values and nothing more. The reader gets them a chunk at a time,
 * and a `RowCursor` walks them synchronously: the merge-joins over several files await only when a
 * batch runs out, not once per row.
 */
import { Readable } from 'node:stream';
import Papa from 'papaparse';
import { RegistryFileError } from './files';

export interface CsvRow {
  /** The physical line the row starts on (the header is line 1). */
  line: number;
  values: string[];
}

export interface CsvTable {
  file: string;
  header: string[];
  rows: AsyncIterable<CsvRow[]>;
}

/**
 * Characters of text parsed at a time: their rows are one batch. Small, so that rows are parsed shortly
 * before the reader walks them: rows that wait long (those of a file the join takes a few rows of per
 * entity, such as KBO's contacts) outlive the garbage collector's young generation and fill its old one.
 * A caller whose rows are short may take smaller ones (`pieceChars`: KBO's, docs/benchmarks.md).
 */
const PIECE = 8 << 10;
/** Batches (one per piece of text) parsed ahead of the reader before the file is read further. */
const AHEAD = 1;
/**
 * Text fed to the parser without a row coming out: no registry row is near this long, so it is a quote
 * never closed, which would otherwise hold (and parse again and again) the rest of the file.
 */
export const MAX_ROW_CHARS = 16 << 20;

/**
 * The stream's header and its rows; the header must hold every column in `required`. `pieceChars`:
 * characters of text parsed at a time (`PIECE` by default).
 */
export async function readCsv(
  stream: Readable,
  file: string,
  required: readonly string[] = [],
  { pieceChars = PIECE }: { pieceChars?: number } = {},
): Promise<CsvTable> {
  const chunks = textOf(stream);
  const { head, newline } = await firstLine(chunks, file);
  const rows = new ParsedRows(() => stream.destroy());
  // Strings in, strings out (object mode): the text is not turned back into bytes for the parser.
  const text = Readable.from(
    (async function* () {
      if (head) yield rows.feed(head);
      for (;;) {
        // The parser is never paused (a pause mid-chunk makes it copy and parse the rest again): the
        // file is read further only when the reader has caught up.
        await rows.room();
        const next = await chunks.next();
        if (next.done) return;
        // Pieces of a bounded size: each one's rows are a batch, alive only while the reader walks them.
        for (let at = 0; at < next.value.length; at += pieceChars) {
          if (at > 0) await rows.room();
          yield rows.feed(next.value.slice(at, at + pieceChars));
        }
      }
    })(),
  );
  // The parser stops listening once the text ends or fails: a failure after that (the reader closing
  // the file early) still has a listener.
  text.on('error', (error) => rows.fail(error));
  Papa.parse<string[]>(text, {
    ...parsedAs(newline),
    chunk: (results) => rows.parsed(results.data, results.meta.cursor),
    complete: () => rows.end(),
    error: (error: Error) => rows.fail(error),
  });
  const batches = rows.batches(file);
  const first = await batches.next();
  const header = first.done ? undefined : first.value[0];
  // The file is refused: it is closed before the error goes up.
  await checkHeader(file, header?.values, required, () => batches.return(undefined));
  return { file, header: header!.values, rows: afterHeader(first, batches) };
}

/** How the registries' CSV is parsed: RFC 4180, every value a string, blank lines handed on. */
export const parsedAs = (newline: '\n' | '\r\n') =>
  ({
    delimiter: ',',
    newline,
    quoteChar: '"',
    escapeChar: '"',
    header: false,
    dynamicTyping: false,
    skipEmptyLines: false,
  }) as const;

/** A file's text as it streams, decoded as UTF-8 (a character split between two chunks stays whole). */
export function textOf(stream: Readable): AsyncIterator<string> {
  stream.setEncoding('utf8');
  return stream[Symbol.asyncIterator]() as AsyncIterator<string>;
}

/**
 * The text up to the first line break (a byte-order mark stripped), and the line ending it tells: the
 * header line holds no quoted line break, so its ending is the file's (CRLF or LF).
 */
export async function firstLine(
  chunks: AsyncIterator<string>,
  file: string,
): Promise<{ head: string; newline: '\n' | '\r\n' }> {
  let head = '';
  while (!head.includes('\n')) {
    const next = await nextText(chunks, file);
    if (next === undefined) break;
    head += next;
  }
  if (head.charCodeAt(0) === 0xfeff) head = head.slice(1);
  return { head, newline: head[head.indexOf('\n') - 1] === '\r' ? '\r\n' : '\n' };
}

/** The next piece of a file's text, undefined at its end; a read that fails is a file not readable. */
export async function nextText(chunks: AsyncIterator<string>, file: string): Promise<string | undefined> {
  try {
    const next = await chunks.next();
    return next.done ? undefined : next.value;
  } catch (error) {
    throw new RegistryFileError(`${file}: not readable (${(error as Error).message})`, { cause: error });
  }
}

/** The batches after the header: the rest of the first one, then the others. */
export async function* afterHeader<R>(
  first: IteratorResult<R[], unknown>,
  batches: AsyncIterator<R[]>,
): AsyncGenerator<R[]> {
  const rest = first.done ? [] : first.value.slice(1);
  if (rest.length > 0) yield rest;
  yield* { [Symbol.asyncIterator]: () => batches };
}

/**
 * Refuses a file without a header or without a column in `required` (after `close`, which lets the
 * file go), naming the file.
 */
export async function checkHeader(
  file: string,
  header: string[] | undefined,
  required: readonly string[],
  close: () => Promise<unknown>,
): Promise<void> {
  const missing = header ? required.filter((name) => !header.includes(name)) : [];
  if (header && missing.length === 0) return;
  await close();
  throw new RegistryFileError(
    header
      ? `${file} line 1: the header lacks ${missing.join(', ')}`
      : `${file} is empty: it has no header line`,
  );
}

/**
 * The parser's rows, a chunk's worth at a time, each with its physical line, queued for the reader.
 * The lines come from the text itself: a chunk's rows span as many line breaks as the text they were
 * parsed from, so when that is one each (no quoted line break, no last row without one), they are
 * numbered in turn without looking at their values.
 */
class ParsedRows {
  private readonly ready: CsvRow[][] = [];
  /** The text fed and not yet parsed into rows (the parser's own partial row). */
  private tail = '';
  /** Where the parsed rows end in the text fed (the parser's cursor). */
  private cursor = 0;
  /** The physical line of the next row. */
  private line = 1;
  private ended = false;
  /** The reader stopped: the feeder stops waiting for it. */
  private closed = false;
  private failure: unknown;
  private wakeReader: (() => void) | undefined;
  private wakeFeeder: (() => void) | undefined;

  constructor(private readonly stop: () => void) {}

  /** A chunk of text on its way to the parser. */
  feed(text: string): string {
    this.tail += text;
    if (this.tail.length > MAX_ROW_CHARS)
      throw new Error(`a quoted field is not closed: ${MAX_ROW_CHARS} characters hold no row end`);
    return text;
  }

  /** The rows parsed from the text up to `cursor`. */
  parsed(records: string[][], cursor: number): void {
    const consumed = this.tail.slice(0, cursor - this.cursor);
    this.tail = this.tail.slice(cursor - this.cursor);
    this.cursor = cursor;
    const batch: CsvRow[] = [];
    const oneLineEach = countBreaks(consumed) === records.length;
    for (const record of records) {
      const start = this.line;
      this.line += 1;
      if (!oneLineEach) for (const value of record) if (value.includes('\n')) this.line += countBreaks(value);
      // A blank line (no field, or one empty one) is no row, but it is a physical line.
      if (record.length === 0 || (record.length === 1 && record[0] === '')) continue;
      batch.push({ line: start, values: record });
    }
    if (batch.length === 0) return;
    this.ready.push(batch);
    this.wakeReader?.();
  }

  end(): void {
    this.ended = true;
    this.wakeReader?.();
  }

  /** Ends the rows with an error, after those parsed before it (so the error names the line after them). */
  fail(error: unknown): void {
    this.failure ??= error;
    this.wakeReader?.();
  }

  /** Resolves when the reader is fewer than `AHEAD` batches behind. */
  async room(): Promise<void> {
    while (this.ready.length >= AHEAD && !this.closed)
      await new Promise<void>((resolve) => (this.wakeFeeder = resolve));
  }

  async *batches(file: string): AsyncGenerator<CsvRow[]> {
    try {
      for (;;) {
        const batch = this.ready.shift();
        if (batch) {
          this.wakeFeeder?.();
          yield batch;
          continue;
        }
        if (this.failure !== undefined) throw this.failure;
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wakeReader = resolve));
        this.wakeReader = undefined;
      }
    } catch (error) {
      throw new RegistryFileError(
        `${file} line ${this.line}: not a readable CSV (${(error as Error).message})`,
        {
          cause: error,
        },
      );
    } finally {
      this.closed = true;
      this.wakeFeeder?.();
      if (!this.ended) this.stop();
    }
  }
}

function countBreaks(value: string): number {
  let n = 0;
  for (let i = value.indexOf('\n'); i !== -1; i = value.indexOf('\n', i + 1)) n++;
  return n;
}

/** The index of each named column in a header (read by name: the registries add columns over the years). */
export function columnsOf<const N extends string>(
  table: Pick<CsvTable, 'header'>,
  names: readonly N[],
): Record<N, number> {
  const index = {} as Record<N, number>;
  for (const name of names) index[name] = table.header.indexOf(name);
  return index;
}

/** A row's value in a column (`-1`: the file has no such column), empty when absent. */
export function valueAt(row: CsvRow, column: number): string {
  return column < 0 ? '' : (row.values[column] ?? '');
}

/**
 * A position in a table's rows (parsed, or raw records: csv-records.ts): `row` is the current one
 * (undefined when the batch ran out: call `fill`, which says false at the end of the file). Walking is
 * synchronous within a batch.
 */
export class RowCursor<R = CsvRow> {
  private batch: R[] = [];
  private index = 0;
  private ended = false;
  private readonly iterator: AsyncIterator<R[]>;

  constructor(readonly table: { file: string; header: string[]; rows: AsyncIterable<R[]> }) {
    this.iterator = table.rows[Symbol.asyncIterator]();
  }

  get row(): R | undefined {
    return this.batch[this.index];
  }

  next(): void {
    this.index++;
  }

  /** Loads the next batch when the current one is spent; false once the file has ended. */
  async fill(): Promise<boolean> {
    while (this.index >= this.batch.length) {
      if (this.ended) return false;
      const next = await this.iterator.next();
      if (next.done) {
        this.ended = true;
        this.batch = [];
        this.index = 0;
        return false;
      }
      this.batch = next.value;
      this.index = 0;
    }
    return true;
  }

  /** Stops reading the file early (its stream is closed). */
  async close(): Promise<void> {
    await this.iterator.return?.();
  }
}
