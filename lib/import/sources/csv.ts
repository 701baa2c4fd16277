/**
 * A registry's CSV file as a stream of rows (architecture "Registry files"): parsed by `csv-parse`
 * (RFC 4180: quoted fields with commas, doubled quotes and line breaks; a byte-order mark stripped;
 * CRLF and LF), never loaded whole. Every value stays a string (`"001"` is not `1`), and `""` and a bare
 * empty field both read as empty. Each row keeps the physical line it starts on (the header is line 1)
 * so that a rejection can say `enterprise.csv line N`.
 *
 * Rows come in batches and a `RowCursor` walks them synchronously: the merge-joins over several files
 * await only when a batch runs out, not once per row.
 */
import type { Readable } from 'node:stream';
import { parse, type Options } from 'csv-parse';
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

const BATCH = 512;

/** The stream's header and its rows; the header must hold every column in `required`. */
export async function readCsv(
  stream: Readable,
  file: string,
  required: readonly string[] = [],
): Promise<CsvTable> {
  // `info` would give each record's line, but costs more than the parse itself: the lines are counted
  // here instead (a record starts one line after the previous one ended; its quoted line breaks add).
  const parser = stream.pipe(
    parse({
      bom: true,
      relax_column_count: true,
      skip_empty_lines: false,
      trim: false,
      // Node's stream option, passed on by csv-parse: records buffered ahead, read in batches.
      readableHighWaterMark: 4 * BATCH,
    } as Options),
  );
  stream.on('error', (error) => parser.destroy(error));
  // A reader that stops early (a join past its last entity) closes the file or ZIP member as well.
  parser.on('close', () => stream.destroy());
  const batches = batchesOf(parser, file);
  const first = await batches.next();
  const header = first.done ? undefined : first.value[0];
  if (!header) throw new RegistryFileError(`${file} is empty: it has no header line`);
  const missing = required.filter((name) => !header.values.includes(name));
  if (missing.length > 0)
    throw new RegistryFileError(`${file} line 1: the header lacks ${missing.join(', ')}`);
  const rest = first.done ? [] : first.value.slice(1);
  return {
    file,
    header: header.values,
    rows: (async function* () {
      if (rest.length > 0) yield rest;
      yield* { [Symbol.asyncIterator]: () => batches };
    })(),
  };
}

/**
 * The parser's records in batches: read synchronously from its buffer as long as it holds some, awaited
 * only when it is empty (an async iterator over the stream would cost a promise per record).
 */
async function* batchesOf(parser: Readable, file: string): AsyncGenerator<CsvRow[]> {
  let line = 1;
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  parser.on('readable', () => wake?.());
  parser.on('end', () => {
    ended = true;
    wake?.();
  });
  parser.on('error', (error) => {
    failure = error;
    wake?.();
  });
  try {
    for (;;) {
      const batch: CsvRow[] = [];
      let record: string[] | null;
      while (batch.length < BATCH && (record = parser.read() as string[] | null) !== null) {
        const start = line;
        line += 1;
        for (const value of record) if (value.includes('\n')) line += countBreaks(value);
        // A blank line (no field, or one empty one) is no row, but it is a physical line.
        if (record.length === 0 || (record.length === 1 && record[0] === '')) continue;
        batch.push({ line: start, values: record });
      }
      if (batch.length > 0) {
        yield batch;
        continue;
      }
      if (failure !== undefined) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } catch (error) {
    if (error instanceof RegistryFileError) throw error;
    const where = (error as { lines?: number }).lines;
    throw new RegistryFileError(
      `${file}${where ? ` line ${where}` : ''}: not a readable CSV (${(error as Error).message})`,
      { cause: error },
    );
  } finally {
    if (!ended) parser.destroy();
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
 * A position in a table's rows: `row` is the current one (undefined when the batch ran out: call
 * `fill`, which says false at the end of the file). Walking is synchronous within a batch.
 */
export class RowCursor {
  private batch: CsvRow[] = [];
  private index = 0;
  private ended = false;
  private readonly iterator: AsyncIterator<CsvRow[]>;

  constructor(readonly table: CsvTable) {
    this.iterator = table.rows[Symbol.asyncIterator]();
  }

  get row(): CsvRow | undefined {
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
