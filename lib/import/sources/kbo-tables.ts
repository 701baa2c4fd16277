/**
 * KBO's CSV files as streams of kept rows, walked entity by entity. The files are grouped by entity
 * number in ascending order (`registries.md` §1.4, observed): in the mixed files (denominations,
 * addresses, contacts, activities) the enterprises (`0…`, `1…`) come before the establishments (`2…`)
 * and the branches (`9…`), so one walk takes the enterprises' rows and then the establishments', and the
 * join holds no more than one entity's rows. The order is checked as the rows go by: a file out of order
 * throws `OutOfOrderError` (its name and line) rather than join wrongly.
 */
import { RegistryFileError, type RegistryFiles } from './files';
import { RowCursor, readCsv, valueAt, type CsvRow } from './csv';
import { KBO_COLUMNS, entityKey, type KboRow, type KboTable } from './kbo-unit';
import { isoFromDayMonthYear } from './fields';
import { ORIGINAL_LINE, OutOfOrderError } from './sorted-copy';

/**
 * Characters of CSV text parsed at a time: KBO's rows are short (a few dozen characters), and of the
 * sizes tried 4 KiB makes a conversion cost the fewest instructions (docs/benchmarks.md).
 */
const PIECE_CHARS = 4 << 10;

/** One table's rows, entity by entity, in key order. */
export class EntityRows {
  private last = '';
  private lastLine = 0;
  /** The current row's key. */
  private key = '';
  /** The number `key` was read from: an entity's rows follow each other, so most rows repeat it. */
  private keyOf: string | undefined;
  /** The file's columns are `KBO_COLUMNS` in their published order: a row is kept as the parser gave it. */
  private readonly asPublished: boolean;

  private constructor(
    private readonly cursor: RowCursor,
    private readonly columns: number[],
    /** Hands on rows whose number is malformed (`enterprise.csv`, to reject them); the others pass them over. */
    private readonly keepsMalformed: boolean,
    /** A sorted copy's column holding each row's line in the original file (-1: the file is the original). */
    private readonly originalLine: number,
  ) {
    this.asPublished = columns.every((column, i) => column === i);
  }

  static async open(files: RegistryFiles, name: string, table: KboTable): Promise<EntityRows> {
    const file = files.find(name);
    if (!file) throw new RegistryFileError(`${files.origin} has no ${name}: a KBO extract holds it`);
    const key = KBO_COLUMNS[table][0];
    const csv = await readCsv(await files.open(file), file, [key], { pieceChars: PIECE_CHARS });
    return new EntityRows(
      new RowCursor(csv),
      KBO_COLUMNS[table].map((column) => csv.header.indexOf(column)),
      table === 'enterprise',
      csv.header.indexOf(ORIGINAL_LINE),
    );
  }

  get file(): string {
    return this.cursor.table.file;
  }

  /** The row (in `KBO_COLUMNS` order) and line of the next entity, without taking it; undefined at the end. */
  async peek(): Promise<{ key: string; row: KboRow; line: number } | undefined> {
    const row = this.inBatch() ?? (await this.current());
    return row && { key: this.key, row: this.kept(row), line: this.lineOf(row) };
  }

  /** Every row of the entity `key`, passing over the rows of entities before it (no other file names them). */
  async take(key: string): Promise<KboRow[]> {
    const rows: KboRow[] = [];
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
  private async current(): Promise<CsvRow | undefined> {
    for (;;) {
      const row = this.inBatch();
      if (row) return row;
      if (!(await this.cursor.fill())) return undefined;
    }
  }

  /** `current`'s row when the parser's batch still holds one; null when the batch must be filled first. */
  private inBatch(): CsvRow | null {
    for (;;) {
      const row = this.cursor.row;
      if (!row) return null;
      const number = row.values[this.columns[0]!] ?? '';
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

  private lineOf(row: CsvRow): number {
    return this.originalLine < 0 ? row.line : Number(row.values[this.originalLine]);
  }

  private kept(row: CsvRow): KboRow {
    if (this.asPublished && row.values.length === this.columns.length) return row.values;
    return this.columns.map((column) => valueAt(row, column));
  }
}

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
