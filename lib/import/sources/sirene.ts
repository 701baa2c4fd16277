/**
 * The French SIRENE stock (contract §11.3; `registries.md` §2) → one item per row of
 * `StockUniteLegale`, in `siren` order. With `StockEtablissement` the unit's head office gives its
 * address, place and shop signs: both files are in ascending `siren` order (observed), so they are
 * merged as they stream, the order checked as it goes, and of a unit's establishments only the head
 * office is kept. A file found out of that order by a pass over its bytes before the join is copied in
 * order through sorted runs on disk (§11.5.10), its rows still named by their own lines.
 *
 * Each unit is mapped by `sirene-unit.ts`, or handed on unmapped as its raw values, those of a piece of
 * the units file together.
 */
import { RegistryFileError, type RegistryFiles } from './files';
import { RowCursor, readCsv, valueAt, type CsvRow } from './csv';
import type { ReadItem, RegistryItem } from './unit';
import {
  ESTABLISHMENT_COLUMNS,
  sireneItem,
  sireneMapping,
  UNIT_COLUMNS,
  type EstablishmentRow,
  type SireneOptions,
  type UnitRow,
} from './sirene-unit';
import { firstColumnAscending } from './key-order';
import { ORIGINAL_LINE, sortedCopy, withCopies } from './sorted-copy';
import type { SortedRunsOptions } from './sorted-runs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export { sireneItem, type SireneOptions } from './sirene-unit';

/**
 * The units file (and the establishments file) as items, streamed and merged by `siren`. `unmapped`:
 * each unit is handed on as its raw values (`RawUnit`), mapped only by whoever needs it mapped, in
 * arrays of the units parsed together (one await an array).
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
  let unitCursor: NamedCursor<UnitRow> | undefined;
  let officeCursor: NamedCursor<EstablishmentRow> | undefined;
  try {
    // Both files' order is known before either is parsed: rows parsed and left waiting through the
    // other file's pass would live long enough for the garbage collector to move them to its old
    // generation, and to keep doing so for the rows after them.
    const unitFile = await inOrder(units, 'StockUniteLegale', folder, options.runs);
    const officeFile =
      establishments && (await inOrder(establishments, 'StockEtablissement', folder, options.runs));
    unitCursor = await cursorOf(unitFile, UNIT_COLUMNS);
    officeCursor = officeFile && (await cursorOf(officeFile, ESTABLISHMENT_COLUMNS));
    const offices = officeCursor && new HeadOffices(officeCursor);
    const mapped = { ...options, withEstablishments: Boolean(establishments) };
    const mapping = unmapped ? sireneMapping(mapped) : undefined;
    const sirenAt = unitCursor.cursor.table.header.indexOf('siren');
    const nicAt = unitCursor.cursor.table.header.indexOf('nicSiegeUniteLegale');
    let previous = '';
    let previousLine = 0;
    // Unmapped, the units of each piece of the units file go on together: one await a piece, not a unit.
    let batch: ReadItem[] = [];
    for (;;) {
      let row = unitCursor.cursor.row;
      if (!row) {
        if (batch.length > 0) yield batch;
        batch = [];
        if (!(await unitCursor.cursor.fill())) return;
        row = unitCursor.cursor.row!;
      }
      unitCursor.cursor.next();
      const line = unitCursor.line(row);
      const siren = valueAt(row, sirenAt).trim();
      const wellFormed = /^\d{9}$/.test(siren);
      if (wellFormed) {
        // A repeat follows its first (the import rejects it); a lower number breaks the join.
        if (siren < previous)
          throw outOfOrder(unitCursor.cursor.table.file, line, siren, previous, previousLine);
        previous = siren;
        previousLine = line;
      }
      let office = offices && wellFormed ? offices.of(siren, valueAt(row, nicAt).trim()) : undefined;
      if (office instanceof Promise) office = await office;
      const source = { file: unitCursor.cursor.table.file, line };
      if (mapping) {
        // The values the mapping reads, as read: the whole unit to its block's digest.
        const text = JSON.stringify([unitCursor.values(row), office ? officeCursor!.values(office) : null]);
        const company = wellFormed ? { country: 'FR' as const, companyNumber: siren } : undefined;
        batch.push({ kind: 'raw', source, company, text, mapping });
      } else yield sireneItem(unitCursor.read(row), office && officeCursor!.read(office), source, mapped);
    }
  } finally {
    await unitCursor?.cursor.close();
    await officeCursor?.cursor.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

interface NamedCursor<R> {
  cursor: RowCursor;
  read(row: CsvRow): R;
  /** The row's values in the cursor's columns' order. */
  values(row: CsvRow): string[];
  /** The row's physical line in the file as published (a sorted copy keeps it in a column). */
  line(row: CsvRow): number;
}

/** A stock file, as the files hold it or as a sorted copy. */
interface OrderedFile {
  files: RegistryFiles;
  file: string;
}

/**
 * The file in `siren` order: itself when a pass over its bytes finds it in that order (as INSEE
 * publishes it), else a copy sorted in runs on disk in `folder()` (§11.5.10).
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
): Promise<OrderedFile> {
  const csvs = files.names.filter((name) => /\.csv$/i.test(name));
  const file =
    csvs.find((name) => name.toLowerCase().startsWith(stem.toLowerCase())) ??
    (csvs.length === 1 ? csvs[0] : undefined);
  if (!file) throw new RegistryFileError(`${files.origin} holds no ${stem} CSV file`);
  if (await firstColumnAscending(await files.open(file), SIREN_LENGTH)) return { files, file };
  const copy = await sortedCopy(files, file, 'siren', (siren) => siren.trim(), await folder(), runs);
  return { files: withCopies(files, new Map([[file, copy]])), file };
}

/** The file's rows, read as they stream. */
async function cursorOf<const N extends string>(
  { files, file }: OrderedFile,
  columns: readonly N[],
): Promise<NamedCursor<Record<N, string>>> {
  const csv = await readCsv(await files.open(file), file, ['siren']);
  const at = columns.map((column) => csv.header.indexOf(column));
  const originalLine = csv.header.indexOf(ORIGINAL_LINE);
  return {
    cursor: new RowCursor(csv),
    read: (row) => {
      // An indexed loop: this runs once a unit and once a head office.
      const record = {} as Record<N, string>;
      for (let i = 0; i < columns.length; i++) record[columns[i]!] = valueAt(row, at[i]!);
      return record;
    },
    values: (row) => {
      const values: string[] = new Array<string>(columns.length);
      for (let i = 0; i < columns.length; i++) values[i] = valueAt(row, at[i]!);
      return values;
    },
    line: (row) => (originalLine < 0 ? row.line : Number(row.values[originalLine])),
  };
}

const SIREN_LENGTH = 9;

/** The establishments, walked in `siren` order: of each unit's, the head office alone is kept. */
class HeadOffices {
  private previous = '';
  private previousLine = 0;
  private readonly siren: number;
  private readonly nic: number;
  private readonly siege: number;

  constructor(private readonly establishments: NamedCursor<EstablishmentRow>) {
    const { header } = establishments.cursor.table;
    this.siren = header.indexOf('siren');
    this.nic = header.indexOf('nic');
    this.siege = header.indexOf('etablissementSiege');
  }

  /** The unit's establishment with its head office's `nic`, and the one flagged head office, so far. */
  private byNic: CsvRow | undefined;
  private flagged: CsvRow | undefined;

  /**
   * The head office's row among the establishments of `siren` (undefined: none found): at once when
   * their rows are at hand, a promise only when the file must be read further (most units need none).
   */
  of(siren: string, nicSiege: string): CsvRow | undefined | Promise<CsvRow | undefined> {
    this.byNic = undefined;
    this.flagged = undefined;
    return this.walk(siren, nicSiege) ? this.found() : this.rest(siren, nicSiege);
  }

  private async rest(siren: string, nicSiege: string): Promise<CsvRow | undefined> {
    while (await this.establishments.cursor.fill()) if (this.walk(siren, nicSiege)) break;
    return this.found();
  }

  private found(): CsvRow | undefined {
    return this.byNic ?? this.flagged;
  }

  /** Walks the rows at hand: true once past those of `siren`, false when they ran out first. */
  private walk(siren: string, nicSiege: string): boolean {
    const { cursor } = this.establishments;
    for (let row = cursor.row; row; row = cursor.row) {
      const key = valueAt(row, this.siren).trim();
      const line = this.establishments.line(row);
      if (key < this.previous)
        throw outOfOrder(cursor.table.file, line, key, this.previous, this.previousLine);
      this.previous = key;
      this.previousLine = line;
      if (key > siren) return true;
      cursor.next();
      if (key < siren) continue; // an establishment of a unit the units file does not hold
      if (!this.byNic && nicSiege && valueAt(row, this.nic).trim() === nicSiege) this.byNic = row;
      if (!this.flagged && valueAt(row, this.siege).trim().toLowerCase() === 'true') this.flagged = row;
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
