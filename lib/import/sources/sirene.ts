/**
 * The French SIRENE stock (contract §11.3; `registries.md` §2) → one item per row of
 * `StockUniteLegale`, in `siren` order. With `StockEtablissement` the unit's head office gives its
 * address, place and shop signs: both files are in ascending `siren` order (observed), so they are
 * merged as they stream, the order checked as it goes, and of a unit's establishments only the head
 * office is kept. A file found out of that order by a pass over its bytes before the join is copied in
 * order through sorted runs on disk (§11.5.10), its rows still named by their own lines.
 *
 * Each unit is mapped by `sirene-unit.ts`, or handed on unmapped (a re-import's stream): as its
 * records' text as published, its unit's and its head office's, when the same pass over the bytes
 * found the files in order and their quoting plain (csv-records.ts: neither file is parsed into
 * values then, only the few fields the join reads are looked up); else mapped after all.
 */
import { createHash } from 'node:crypto';
import { RegistryFileError, type RegistryFiles } from './files';
import { RowCursor, readCsv, valueAt, type CsvRow } from './csv';
import { fieldAt, parseRecord, readCsvRecords, type CsvRecord, type CsvRecords } from './csv-records';
import type { ReadItem, RegistryItem, UnitSource } from './unit';
import {
  ESTABLISHMENT_COLUMNS,
  sireneItem,
  sireneMapping,
  UNIT_COLUMNS,
  type EstablishmentRow,
  type SireneOptions,
  type UnitRow,
} from './sirene-unit';
import { firstColumnAscending, PlainQuoting } from './key-order';
import { ORIGINAL_LINE, sortedCopy, withCopies } from './sorted-copy';
import type { SortedRunsOptions } from './sorted-runs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export { sireneItem, type SireneOptions } from './sirene-unit';

/**
 * The units file (and the establishments file) as items, streamed and merged by `siren`. `unmapped`:
 * each unit is handed on as its raw text (`RawUnit`), mapped only by whoever needs it mapped, in
 * arrays of the units read together (one await an array).
 */
export function sireneItems(
  units: RegistryFiles,
  establishments: RegistryFiles | undefined,
  options?: Omit<SireneOptions, 'withEstablishments'> & { unmapped?: false },
): AsyncGenerator<RegistryItem>;
export function sireneItems(
  units: RegistryFiles,
  establishments: RegistryFiles | undefined,
  options: Omit<SireneOptions, 'withEstablishments'> & { unmapped: true },
): AsyncGenerator<ReadItem[]>;
export async function* sireneItems(
  units: RegistryFiles,
  establishments: RegistryFiles | undefined,
  { unmapped = false, ...options }: Omit<SireneOptions, 'withEstablishments'> & { unmapped?: boolean } = {},
): AsyncGenerator<ReadItem | ReadItem[]> {
  let scratch: string | undefined;
  const folder = async () =>
    (scratch ??= await mkdtemp(join(options.runs?.dir ?? tmpdir(), 'sirene-sorted-')));
  const cursors: Array<RowCursor<unknown>> = [];
  try {
    // Both files' order is known before either is parsed: rows parsed and left waiting through the
    // other file's pass would live long enough for the garbage collector to move them to its old
    // generation, and to keep doing so for the rows after them.
    const unitFile = await inOrder(units, 'StockUniteLegale', folder, options.runs, unmapped);
    const officeFile =
      establishments && (await inOrder(establishments, 'StockEtablissement', folder, options.runs, unmapped));
    const mapped = { ...options, withEstablishments: Boolean(establishments) };
    if (unmapped && unitFile.plain && (!officeFile || officeFile.plain)) {
      const unitTable = await recordsOf(unitFile);
      cursors.push(unitTable.cursor);
      const officeTable = officeFile && (await recordsOf(officeFile));
      if (officeTable) cursors.push(officeTable.cursor);
      const mapping = sireneMapping(
        mapped,
        rawFormat(unitTable, officeTable),
        rowsOf(unitTable, officeTable),
      );
      for await (const joined of joinedUnits(unitTable, officeTable)) {
        const batch: ReadItem[] = new Array<ReadItem>(joined.length);
        for (let i = 0; i < joined.length; i++) {
          const { row, office, source, company } = joined[i]!;
          batch[i] = { kind: 'raw', source, company, text: rawText(row.text, office?.text), mapping };
        }
        yield batch;
      }
      return;
    }
    const unitTable = await parsedOf(unitFile, UNIT_COLUMNS);
    cursors.push(unitTable.cursor);
    const officeTable = officeFile && (await parsedOf(officeFile, ESTABLISHMENT_COLUMNS));
    if (officeTable) cursors.push(officeTable.cursor);
    const item = ({ row, office, source }: Joined<CsvRow>) =>
      sireneItem(unitTable.read(row), office && officeTable!.read(office), source, mapped);
    for await (const joined of joinedUnits(unitTable, officeTable)) {
      // Unmapped but not plain: mapped after all, a batch at a time.
      if (unmapped) yield joined.map(item);
      else for (const one of joined) yield item(one);
    }
  } finally {
    for (const cursor of cursors) await cursor.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

/** A stock file as the join walks it: its rows parsed (`CsvRow`) or as raw records (`CsvRecord`). */
interface Table<R> {
  cursor: RowCursor<R>;
  /** A row's value in a column (-1: the file has none), empty when absent. */
  value(row: R, column: number): string;
  /** The row's physical line in the file as published (a sorted copy keeps it in a column). */
  line(row: R): number;
}

/** A unit's row joined to its head office's, and which company it is (none: a malformed siren). */
interface Joined<R> {
  row: R;
  office: R | undefined;
  source: UnitSource;
  company: { country: 'FR'; companyNumber: string } | undefined;
}

/**
 * The units with their head offices, in file order, the rows of each piece of the units file together:
 * the establishments walked beside the units (`HeadOffices`), the order of both checked as they go.
 */
async function* joinedUnits<R>(
  units: Table<R>,
  establishments: Table<R> | undefined,
): AsyncGenerator<Joined<R>[]> {
  const offices = establishments && new HeadOffices(establishments);
  const { cursor } = units;
  const sirenAt = cursor.table.header.indexOf('siren');
  const nicAt = cursor.table.header.indexOf('nicSiegeUniteLegale');
  let previous = '';
  let previousLine = 0;
  let batch: Joined<R>[] = [];
  for (;;) {
    let row = cursor.row;
    if (!row) {
      if (batch.length > 0) yield batch;
      batch = [];
      if (!(await cursor.fill())) return;
      row = cursor.row!;
    }
    cursor.next();
    const line = units.line(row);
    const siren = units.value(row, sirenAt).trim();
    const wellFormed = /^\d{9}$/.test(siren);
    if (wellFormed) {
      // A repeat follows its first (the import rejects it); a lower number breaks the join.
      if (siren < previous) throw outOfOrder(cursor.table.file, line, siren, previous, previousLine);
      previous = siren;
      previousLine = line;
    }
    let office = offices && wellFormed ? offices.of(siren, units.value(row, nicAt).trim()) : undefined;
    if (office instanceof Promise) office = await office;
    batch.push({
      row,
      office,
      source: { file: cursor.table.file, line },
      company: wellFormed ? { country: 'FR', companyNumber: siren } : undefined,
    });
  }
}

/** A parsed stock file that also reads a row by the converter's column names. */
interface ParsedTable<N extends string> extends Table<CsvRow> {
  read(row: CsvRow): Record<N, string>;
}

/** A stock file read as raw records, with its header as published. */
interface RecordsTable extends Table<CsvRecord> {
  records: CsvRecords;
}

/**
 * A unit's raw text: its record's and its head office's, each length first (`units,office,` then the
 * two texts), so that a text tells its parts apart whatever they hold, and so does a block's digest of
 * several (lib/import/registry-digest-block.ts).
 */
const rawText = (unit: string, office: string | undefined) =>
  `${unit.length},${office?.length ?? 0},${unit}${office ?? ''}`;

/** What a raw text means: the two files' headers as published (a record's fields are read by them). */
const rawFormat = (units: RecordsTable, offices: RecordsTable | undefined) =>
  `csv:${createHash('sha256')
    .update(`${units.records.headerText}\n${offices?.records.headerText ?? ''}`)
    .digest('base64url')}`;

/** A raw text read back: each record parsed as the parser parses the file, its values by column name. */
function rowsOf(units: RecordsTable, offices: RecordsTable | undefined) {
  const unitAt = UNIT_COLUMNS.map((column) => units.records.header.indexOf(column));
  const officeAt = ESTABLISHMENT_COLUMNS.map((column) => offices?.records.header.indexOf(column) ?? -1);
  return (text: string): [UnitRow, EstablishmentRow | undefined] => {
    const first = text.indexOf(',');
    const second = text.indexOf(',', first + 1);
    const unitEnd = second + 1 + Number(text.slice(0, first));
    const unit = parseRecord(text.slice(second + 1, unitEnd), units.records.newline);
    const office =
      offices && unitEnd < text.length
        ? parseRecord(text.slice(unitEnd), offices.records.newline)
        : undefined;
    return [byName(UNIT_COLUMNS, unitAt, unit), office && byName(ESTABLISHMENT_COLUMNS, officeAt, office)];
  };
}

/** A row's values by the converter's column names (`at`: each one's index; -1: the file has none). */
function byName<const N extends string>(
  columns: readonly N[],
  at: readonly number[],
  values: readonly string[],
): Record<N, string> {
  // An indexed loop, no closure: this runs once a unit and once a head office.
  const record = {} as Record<N, string>;
  for (let i = 0; i < columns.length; i++) record[columns[i]!] = at[i]! < 0 ? '' : (values[at[i]!] ?? '');
  return record;
}

/** A stock file, as the files hold it or as a sorted copy. */
interface OrderedFile {
  files: RegistryFiles;
  file: string;
  /** The file as published, its quoting found plain (csv-records.ts reads it). */
  plain: boolean;
}

/**
 * The file in `siren` order: itself when a pass over its bytes finds it in that order (as INSEE
 * publishes it), else a copy sorted in runs on disk in `folder()` (§11.5.10). `quoting`: the same
 * pass finds whether its quoting is plain.
 *
 * The order is known before the join starts, not found by the join itself: the join hands each unit on
 * as it reads it, in the `siren` order the import relies on (a repeat is told by the unit before it,
 * lib/import/registry-import.ts), so a file found out of order half-way could no longer be sorted
 * without units handed on twice or out of order, or every unit first spooled to disk, which costs far
 * more than the pass.
 */
async function inOrder(
  files: RegistryFiles,
  stem: string,
  folder: () => Promise<string>,
  runs: SortedRunsOptions | undefined,
  quoting: boolean,
): Promise<OrderedFile> {
  const csvs = files.names.filter((name) => /\.csv$/i.test(name));
  const file =
    csvs.find((name) => name.toLowerCase().startsWith(stem.toLowerCase())) ??
    (csvs.length === 1 ? csvs[0] : undefined);
  if (!file) throw new RegistryFileError(`${files.origin} holds no ${stem} CSV file`);
  const plain = quoting ? new PlainQuoting() : undefined;
  if (
    await firstColumnAscending(await files.open(file, { chunkBytes: PASS_CHUNK_BYTES }), SIREN_LENGTH, plain)
  )
    return { files, file, plain: plain?.plain ?? false };
  const copy = await sortedCopy(files, file, 'siren', (siren) => siren.trim(), await folder(), runs);
  return { files: withCopies(files, new Map([[file, copy]])), file, plain: false };
}

/** The file's rows, parsed as they stream. */
async function parsedOf<const N extends string>(
  { files, file }: OrderedFile,
  columns: readonly N[],
): Promise<ParsedTable<N>> {
  const csv = await readCsv(await files.open(file), file, ['siren']);
  const at = columns.map((column) => csv.header.indexOf(column));
  const originalLine = csv.header.indexOf(ORIGINAL_LINE);
  return {
    cursor: new RowCursor(csv),
    value: valueAt,
    read: (row) => byName(columns, at, row.values),
    line: (row) => (originalLine < 0 ? row.line : Number(row.values[originalLine])),
  };
}

/** The file's raw records, as they stream (a plain file as published). */
async function recordsOf({ files, file }: OrderedFile): Promise<RecordsTable> {
  const records = await readCsvRecords(await files.open(file), file, ['siren']);
  return {
    cursor: new RowCursor(records),
    value: (row, column) => (column < 0 ? '' : fieldAt(row.text, column)),
    line: (row) => row.line,
    records,
  };
}

const SIREN_LENGTH = 9;

/**
 * Bytes read from disk at a time by the order pass, which scans them and keeps none: a read from disk
 * costs a round trip to the thread that makes it, and the pass waits for each one. 1 MiB instead of
 * 64 KiB made the 20,000-unit files' conversion about a tenth faster (docs/benchmarks.md); the readers
 * that decode and parse keep 64 KiB, which they are faster with.
 */
const PASS_CHUNK_BYTES = 1 << 20;

/** The establishments, walked in `siren` order: of each unit's, the head office alone is kept. */
class HeadOffices<R> {
  private previous = '';
  private previousLine = 0;
  private readonly siren: number;
  private readonly nic: number;
  private readonly siege: number;

  constructor(private readonly establishments: Table<R>) {
    const { header } = establishments.cursor.table;
    this.siren = header.indexOf('siren');
    this.nic = header.indexOf('nic');
    this.siege = header.indexOf('etablissementSiege');
  }

  /** The unit's establishment with its head office's `nic`, and the one flagged head office, so far. */
  private byNic: R | undefined;
  private flagged: R | undefined;

  /**
   * The head office's row among the establishments of `siren` (undefined: none found): at once when
   * their rows are at hand, a promise only when the file must be read further (most units need none).
   */
  of(siren: string, nicSiege: string): R | undefined | Promise<R | undefined> {
    this.byNic = undefined;
    this.flagged = undefined;
    return this.walk(siren, nicSiege) ? this.found() : this.rest(siren, nicSiege);
  }

  private async rest(siren: string, nicSiege: string): Promise<R | undefined> {
    while (await this.establishments.cursor.fill()) if (this.walk(siren, nicSiege)) break;
    return this.found();
  }

  private found(): R | undefined {
    return this.byNic ?? this.flagged;
  }

  /** Walks the rows at hand: true once past those of `siren`, false when they ran out first. */
  private walk(siren: string, nicSiege: string): boolean {
    const { cursor, value } = this.establishments;
    for (let row = cursor.row; row; row = cursor.row) {
      const key = value(row, this.siren).trim();
      const line = this.establishments.line(row);
      if (key < this.previous)
        throw outOfOrder(cursor.table.file, line, key, this.previous, this.previousLine);
      this.previous = key;
      this.previousLine = line;
      if (key > siren) return true;
      cursor.next();
      if (key < siren) continue; // an establishment of a unit the units file does not hold
      if (!this.byNic && nicSiege && value(row, this.nic).trim() === nicSiege) this.byNic = row;
      if (!this.flagged && value(row, this.siege).trim().toLowerCase() === 'true') this.flagged = row;
    }
    return false;
  }
}

function outOfOrder(file: string, line: number, siren: string, previous: string, previousLine: number) {
  return new RegistryFileError(
    `${file} line ${line}: siren ${siren} comes after ${previous} (line ${previousLine}); the join relies on ` +
      `the stock files being in ascending siren order, as INSEE publishes them`,
  );
}
