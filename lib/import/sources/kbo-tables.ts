/**
 * KBO's CSV files as streams of kept rows, walked entity by entity. The files are grouped by entity
 * number in ascending order (`registries.md` §1.4, observed): in the mixed files (denominations,
 * addresses, contacts, activities) the enterprises (`0…`, `1…`) come before the establishments (`2…`)
 * and the branches (`9…`), so one walk takes the enterprises' rows and then the establishments', and the
 * join holds no more than one entity's rows. The order is checked as the rows go by: a file out of order
 * throws `OutOfOrderError` (its name and line) rather than join wrongly.
 *
 * A walk reads its file parsed (`KboRow`: the values in `KBO_COLUMNS` order) or, for a re-import, as
 * raw records (csv-records.ts: each row kept as the text the file holds, only its numbers looked up),
 * which a `KboRecordReader` parses later, when the row is mapped at all. Raw records are the parser's
 * rows only where the quoting is plain: the walk says whether it was (`plain`), and a join that read a
 * file that was not starts again parsed.
 */
import { createHash } from 'node:crypto';
import { RegistryFileError, type RegistryFiles } from './files';
import { RowCursor, readCsv, valueAt, type CsvRow } from './csv';
import { fieldAt, parseRecords, readCsvRecords, type CsvRecord, type CsvRecords } from './csv-records';
import { KBO_COLUMNS, entityKey, type KboRow, type KboTable } from './kbo-unit';
import { isoFromDayMonthYear } from './fields';
import { ORIGINAL_LINE, OutOfOrderError } from './sorted-copy';

/**
 * Characters of CSV text parsed at a time: KBO's rows are short (a few dozen characters), and of the
 * sizes tried 4 KiB makes a conversion cost the fewest instructions (docs/benchmarks.md).
 */
const PIECE_CHARS = 4 << 10;

/** How a walk reads its file: each row parsed into values, or kept as its raw record's text. */
export type KboReading = 'parsed' | 'records';

/** A row as a walk keeps it: a `KboRow` when parsed, the record's text as published when raw. */
export type KeptRow<W extends KboReading> = W extends 'records' ? string : KboRow;

/** A raw record of a table read back as a `KboRow` (`EntityRows.reader`). */
export interface KboRecordReader {
  /** What the records mean: the table's header as published and its line ending. */
  format: string;
  /** The records' rows, in their order. */
  rows(texts: readonly string[]): KboRow[];
}

/** One table's rows, entity by entity, in key order. */
export class EntityRows<W extends KboReading = 'parsed'> {
  private last = '';
  private lastLine = 0;
  /** The current row's key. */
  private key = '';
  /** The number `key` was read from: an entity's rows follow each other, so most rows repeat it. */
  private keyOf: string | undefined;
  /** The file's columns are `KBO_COLUMNS` in their published order: a row is kept as the parser gave it. */
  private readonly asPublished: boolean;

  private constructor(
    private readonly cursor: RowCursor<CsvRow | CsvRecord>,
    /** The raw records read (`records`), or undefined when the rows are parsed. */
    private readonly records: CsvRecords | undefined,
    private readonly columns: number[],
    /** Hands on rows whose number is malformed (`enterprise.csv`, to reject them); the others pass them over. */
    private readonly keepsMalformed: boolean,
    /** A sorted copy's column holding each row's line in the original file (-1: the file is the original). */
    private readonly originalLine: number,
  ) {
    this.asPublished = columns.every((column, i) => column === i);
  }

  static async open<W extends KboReading = 'parsed'>(
    files: RegistryFiles,
    name: string,
    table: KboTable,
    reading: W = 'parsed' as W,
  ): Promise<EntityRows<W>> {
    const file = files.find(name);
    if (!file) throw new RegistryFileError(`${files.origin} has no ${name}: a KBO extract holds it`);
    const key = KBO_COLUMNS[table][0];
    const stream = await files.open(file);
    const csv =
      reading === 'records'
        ? await readCsvRecords(stream, file, [key])
        : await readCsv(stream, file, [key], { pieceChars: PIECE_CHARS });
    return new EntityRows<W>(
      new RowCursor<CsvRow | CsvRecord>(csv),
      reading === 'records' ? (csv as CsvRecords) : undefined,
      KBO_COLUMNS[table].map((column) => csv.header.indexOf(column)),
      table === 'enterprise',
      csv.header.indexOf(ORIGINAL_LINE),
    );
  }

  get file(): string {
    return this.cursor.table.file;
  }

  /** Whether the rows read so far are the parser's: always when parsed; as raw records, where the quoting was plain. */
  get plain(): boolean {
    return this.records?.plain() ?? true;
  }

  /** How this walk's raw records are read back as rows (the walk itself may be closed by then). */
  reader(): KboRecordReader {
    const { records, columns, asPublished } = this;
    if (!records) throw new Error(`${this.file} is read parsed, not as raw records`);
    const { newline, headerText } = records;
    return {
      format: `${JSON.stringify(newline)}${headerText}`,
      rows: (texts) => parseRecords(texts, newline).map((values) => inKboOrder(values, columns, asPublished)),
    };
  }

  /** A kept row's value in a column (its index in `KBO_COLUMNS`). */
  valueIn(row: KeptRow<W>, column: number): string {
    return typeof row === 'string' ? recordValue(row, this.columns[column]!) : (row[column] ?? '');
  }

  /** The row and line of the next entity, without taking it; undefined at the end. */
  async peek(): Promise<{ key: string; row: KeptRow<W>; line: number } | undefined> {
    const row = this.inBatch() ?? (await this.current());
    return row && { key: this.key, row: this.kept(row), line: this.lineOf(row) };
  }

  /** Every row of the entity `key`, passing over the rows of entities before it (no other file names them). */
  async take(key: string): Promise<KeptRow<W>[]> {
    const rows: KeptRow<W>[] = [];
    for (;;) {
      // An await only when the parser's batch runs out, not one a row.
      const row = this.inBatch() ?? (await this.current());
      if (!row || this.key > key) return rows;
      if (this.key === key) rows.push(this.kept(row));
      this.cursor.next();
    }
  }

  /** Reads the rest of the file, checking its order and keeping nothing. */
  async checkOrder(): Promise<void> {
    while (this.inBatch() ?? (await this.current())) this.cursor.next();
  }

  /** Moves past the current row. */
  skip(): void {
    this.cursor.next();
  }

  close(): Promise<void> {
    return this.cursor.close();
  }

  /** The next row with a number (or any, for `enterprise.csv`), its key checked not to go backwards. */
  private async current(): Promise<CsvRow | CsvRecord | undefined> {
    for (;;) {
      const row = this.inBatch();
      if (row) return row;
      if (!(await this.cursor.fill())) return undefined;
    }
  }

  /** `current`'s row when the batch read still holds one; null when the batch must be filled first. */
  private inBatch(): CsvRow | CsvRecord | null {
    for (;;) {
      const row = this.cursor.row;
      if (!row) return null;
      const number = this.valueAt(row, this.columns[0]!);
      if (number !== this.keyOf) {
        this.keyOf = number;
        this.key = entityKey(number);
      }
      const key = this.key;
      const wellFormed = key.length === 10;
      const line = this.lineOf(row);
      if (wellFormed && line !== this.lastLine) {
        if (key < this.last) throw outOfOrder(this.file, line, key, this.last, this.lastLine);
        this.last = key;
        this.lastLine = line;
      }
      // A malformed number joins nothing: `enterprise.csv` hands it on (to be rejected), the others pass it over.
      if (!wellFormed && !this.keepsMalformed) {
        this.cursor.next();
        continue;
      }
      return row;
    }
  }

  /** A row's value in a column of the file (-1: none), empty when absent. */
  private valueAt(row: CsvRow | CsvRecord, column: number): string {
    return 'values' in row ? valueAt(row, column) : recordValue(row.text, column);
  }

  private lineOf(row: CsvRow | CsvRecord): number {
    return this.originalLine < 0 ? row.line : Number(this.valueAt(row, this.originalLine));
  }

  private kept(row: CsvRow | CsvRecord): KeptRow<W> {
    return (
      'values' in row ? inKboOrder(row.values, this.columns, this.asPublished) : row.text
    ) as KeptRow<W>;
  }
}

/** A record's value in a column of its file (-1: none), empty when absent. */
const recordValue = (text: string, column: number): string => (column < 0 ? '' : fieldAt(text, column));

/**
 * A row's values in `KBO_COLUMNS` order, given each column's place in the file (-1: absent); as given
 * when the file has those columns alone, in that order (`asPublished`).
 */
function inKboOrder(values: string[], columns: readonly number[], asPublished: boolean): KboRow {
  if (asPublished && values.length === columns.length) return values;
  return columns.map((column) => (column < 0 ? '' : (values[column] ?? '')));
}

/** A hash of what several tables' raw records mean (their `KboRecordReader` formats), to name a mapping by. */
export const formatsHash = (readers: readonly KboRecordReader[]) =>
  createHash('sha256')
    .update(readers.map((reader) => reader.format).join('\n'))
    .digest('base64url');

function outOfOrder(file: string, line: number, key: string, previous: string, previousLine: number) {
  return new OutOfOrderError(
    file,
    line,
    `${file} line ${line}: entity ${key} comes after ${previous} (line ${previousLine}); the join relies on ` +
      `the file being grouped by entity number in ascending order, as KBO publishes it`,
  );
}

export interface KboMeta {
  /** `SnapshotDate` as an ISO date. */
  snapshotDate: string;
  /** `full` or `update` (any case, as published). */
  extractType: string;
  extractNumber: number;
}

/** `meta.csv`, which every KBO extract has: without it the folder or ZIP is refused (§11.5.2). */
export async function readKboMeta(files: RegistryFiles): Promise<KboMeta> {
  const file = files.find('meta.csv');
  if (!file)
    throw new RegistryFileError(
      `${files.origin} has no meta.csv: it is not a KBO extract as published (refused)`,
    );
  const csv = await readCsv(await files.open(file), file, ['Variable', 'Value']);
  const variable = csv.header.indexOf('Variable');
  const value = csv.header.indexOf('Value');
  const meta = new Map<string, string>();
  for await (const batch of csv.rows)
    for (const row of batch) meta.set(valueAt(row, variable).trim(), valueAt(row, value).trim());
  const snapshotDate = isoFromDayMonthYear(meta.get('SnapshotDate') ?? '');
  const extractNumber = Number(meta.get('ExtractNumber'));
  if (!snapshotDate) throw new RegistryFileError(`${file}: SnapshotDate is not a dd-mm-yyyy date`);
  if (!Number.isSafeInteger(extractNumber) || extractNumber < 0)
    throw new RegistryFileError(`${file}: ExtractNumber is not a whole number`);
  return { snapshotDate, extractType: (meta.get('ExtractType') ?? '').toLowerCase(), extractNumber };
}
