/**
 * The French SIRENE stock (contract §11.3; `registries.md` §2) → one item per row of
 * `StockUniteLegale`, in `siren` order. With `StockEtablissement` the unit's head office gives its
 * address, place and shop signs: both files are in ascending `siren` order (observed), so they are
 * merged as they stream, the order checked as it goes, and of a unit's establishments only the head
 * office is kept. A file found out of that order by a pass over its bytes before the join is copied in
 * order through sorted runs on disk (§11.5.10), its rows still named by their own lines.
 *
 * Privacy: a value the registry withholds (`[ND]`) is never output; a unit whose name is withheld is
 * skipped; of a partially diffusible unit (`P`) only the municipality is kept.
 */
import { RegistryFileError, type RegistryFiles } from './files';
import { RowCursor, readCsv, valueAt, type CsvRow } from './csv';
import { countryCode, isoDate, otherNamesOf, textOf } from './fields';
import {
  NAME_WITHHELD,
  type RegistryField,
  type RegistryItem,
  type RegistryUnit,
  type UnitSource,
} from './unit';
import { firstColumnAscending } from './key-order';
import { ORIGINAL_LINE, sortedCopy, withCopies } from './sorted-copy';
import type { SortedRunsOptions } from './sorted-runs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { frenchVatKey, parseCompanyNumber } from '../../companies/identifiers';

export const UNIT_COLUMNS = [
  'siren',
  'statutDiffusionUniteLegale',
  'dateCreationUniteLegale',
  'sigleUniteLegale',
  'prenom1UniteLegale',
  'prenomUsuelUniteLegale',
  'dateDebut',
  'etatAdministratifUniteLegale',
  'nomUniteLegale',
  'nomUsageUniteLegale',
  'denominationUniteLegale',
  'denominationUsuelle1UniteLegale',
  'denominationUsuelle2UniteLegale',
  'denominationUsuelle3UniteLegale',
  'categorieJuridiqueUniteLegale',
  'activitePrincipaleUniteLegale',
  'nomenclatureActivitePrincipaleUniteLegale',
  'nicSiegeUniteLegale',
  'activitePrincipaleNAF25UniteLegale',
] as const;

export const ESTABLISHMENT_COLUMNS = [
  'siren',
  'nic',
  'statutDiffusionEtablissement',
  'etablissementSiege',
  'numeroVoieEtablissement',
  'indiceRepetitionEtablissement',
  'typeVoieEtablissement',
  'libelleVoieEtablissement',
  'codePostalEtablissement',
  'libelleCommuneEtablissement',
  'libelleCommuneEtrangerEtablissement',
  'libellePaysEtrangerEtablissement',
  'enseigne1Etablissement',
  'enseigne2Etablissement',
  'enseigne3Etablissement',
  'denominationUsuelleEtablissement',
] as const;

export type UnitRow = Record<(typeof UNIT_COLUMNS)[number], string>;
export type EstablishmentRow = Record<(typeof ESTABLISHMENT_COLUMNS)[number], string>;

export interface SireneOptions {
  /** Ceased units are left out (skipped, with the unit for a stored company to be stopped still, §11.5.6). */
  activeOnly?: boolean;
  /** The establishments file was given: the unit owns its address and place. */
  withEstablishments?: boolean;
  /** Where a file out of `siren` order is copied in order (default: the system's temporary folder), and the runs' size. */
  runs?: SortedRunsOptions;
}

const WITHHELD = '[ND]';
/** A value as output: a withheld one (`[ND]`) is no value. */
const open = (value: string) => (value.trim() === WITHHELD ? null : textOf(value));

/** One unit and, when the establishments were given, its head office (undefined: none found). */
export function sireneItem(
  unit: UnitRow,
  headOffice: EstablishmentRow | undefined,
  source: UnitSource,
  options: SireneOptions = {},
): RegistryItem {
  const siren = unit.siren.trim();
  const companyNumber = parseCompanyNumber('FR', siren);
  if (!companyNumber || siren.length !== 9)
    return { kind: 'rejected', source, reason: `siren ${siren || '""'} is not a valid FR company number` };
  const company = { country: 'FR' as const, companyNumber };

  const name = nameOf(unit);
  if (name === WITHHELD) return { kind: 'skipped', reason: NAME_WITHHELD, source, company };
  if (!name) return { kind: 'rejected', source, reason: `unit ${siren} has no name` };

  let dropped = 0;
  const foundedOn = dateOf(unit.dateCreationUniteLegale);
  if (foundedOn === undefined) dropped++;
  const ceased = unit.etatAdministratifUniteLegale.trim() === 'C';
  const stoppedOn = ceased ? dateOf(unit.dateDebut) : null;
  if (stoppedOn === undefined) dropped++;
  const activity = activityOf(unit);
  if (activity === undefined) dropped++;

  const partial =
    unit.statutDiffusionUniteLegale.trim() === 'P' || headOffice?.statutDiffusionEtablissement.trim() === 'P';
  const address = options.withEstablishments && headOffice ? addressOf(headOffice, partial) : null;
  const owns: RegistryField[] = [
    'name',
    'otherNames',
    'legalForm',
    'foundedOn',
    'stoppedOn',
    'activities',
    'vatNumber',
  ];
  if (options.withEstablishments) owns.push('address', 'place');
  // Without the establishments a unit now partially diffusible still erases the street of an address
  // stored before (§11.5.6): only its municipality, `place`, stays.
  else if (partial) owns.push('address');

  const result: RegistryUnit = {
    source,
    country: 'FR',
    companyNumber: siren,
    owns,
    fields: {
      name,
      otherNames: otherNamesOf(name, [
        open(unit.sigleUniteLegale),
        open(unit.denominationUsuelle1UniteLegale),
        open(unit.denominationUsuelle2UniteLegale),
        open(unit.denominationUsuelle3UniteLegale),
        ...(headOffice && !partial
          ? [
              open(headOffice.enseigne1Etablissement),
              open(headOffice.enseigne2Etablissement),
              open(headOffice.enseigne3Etablissement),
              open(headOffice.denominationUsuelleEtablissement),
            ]
          : []),
      ]),
      legalForm: open(unit.categorieJuridiqueUniteLegale),
      foundedOn: foundedOn ?? null,
      stoppedOn: stoppedOn ?? null,
      activities: activity ? [activity] : [],
      vatNumber: `FR${String(frenchVatKey(siren)).padStart(2, '0')}${siren}`,
      ...(options.withEstablishments
        ? { address, place: address?.place ?? null }
        : partial
          ? { address: null }
          : {}),
    },
    dropped,
  };
  if (ceased && options.activeOnly)
    return { kind: 'skipped', reason: 'ceased', source, company, unit: result };
  return { kind: 'unit', unit: result };
}

/** The corporate name; a natural person's usual (else first) first name and usage (else birth) name; `[ND]` when withheld. */
function nameOf(unit: UnitRow): string | null {
  const denomination = unit.denominationUniteLegale.trim();
  const naturalPerson =
    unit.categorieJuridiqueUniteLegale.trim().startsWith('1') ||
    (!denomination && (unit.nomUniteLegale.trim() !== '' || unit.nomUsageUniteLegale.trim() !== ''));
  if (!naturalPerson) return denomination === WITHHELD ? WITHHELD : textOf(denomination);
  const first = unit.prenomUsuelUniteLegale.trim() || unit.prenom1UniteLegale.trim();
  const last = unit.nomUsageUniteLegale.trim() || unit.nomUniteLegale.trim();
  if (first === WITHHELD || last === WITHHELD) return WITHHELD;
  return textOf([first, last].filter(Boolean).join(' '));
}

/** An ISO date, null when empty or withheld, undefined when unreadable (a dropped field). */
function dateOf(value: string): string | null | undefined {
  const trimmed = value.trim();
  if (!trimmed || trimmed === WITHHELD) return null;
  return isoDate(trimmed) ?? undefined;
}

/**
 * The NACE class of the APE code (`62.01Z` → `6201`): NAF rév. 2, else NAF 2025 (§11.5.7); null when
 * none, undefined when the code is of another nomenclature or unreadable (a dropped field).
 */
function activityOf(unit: UnitRow): string | null | undefined {
  const code = unit.activitePrincipaleUniteLegale.trim();
  const rev2 = unit.nomenclatureActivitePrincipaleUniteLegale.trim() === 'NAFRev2' ? nace(code) : null;
  if (rev2) return rev2[1]! + rev2[2]!;
  const naf25 = nace(unit.activitePrincipaleNAF25UniteLegale);
  if (naf25) return naf25[1]! + naf25[2]!;
  return code && code !== WITHHELD ? undefined : null;
}

/** An APE code's NACE class digits (`62.01Z` → `62`, `01`). */
const nace = (code: string) => /^(\d{2})\.?(\d{2})[A-Z]?$/.exec(code.trim());

/** The head office's address; of a partially diffusible unit, only its municipality. */
function addressOf(office: EstablishmentRow, partial: boolean) {
  const foreignPlace = open(office.libelleCommuneEtrangerEtablissement);
  const place = open(office.libelleCommuneEtablissement) ?? foreignPlace;
  const foreignCountry = open(office.libellePaysEtrangerEtablissement);
  // A seat abroad names its country (ISO 3166); a French one names none (the company's own, §11.1).
  const country = foreignCountry ? countryCode(foreignCountry) : null;
  const abroad = country ? { country } : {};
  if (partial) return { street: null, number: null, box: null, postalCode: null, place, ...abroad };
  const number = [open(office.numeroVoieEtablissement), open(office.indiceRepetitionEtablissement)].join('');
  const street = [open(office.typeVoieEtablissement), open(office.libelleVoieEtablissement)]
    .filter(Boolean)
    .join(' ');
  return {
    street: street || null,
    number: number || null,
    box: null,
    postalCode: open(office.codePostalEtablissement),
    place,
    ...abroad,
  };
}

/** The units file (and the establishments file) as items, streamed and merged by `siren`. */
export async function* sireneItems(
  units: RegistryFiles,
  establishments: RegistryFiles | undefined,
  options: Omit<SireneOptions, 'withEstablishments'> = {},
): AsyncGenerator<RegistryItem> {
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
    let previous = '';
    let previousLine = 0;
    for (;;) {
      let row = unitCursor.cursor.row;
      if (!row) {
        if (!(await unitCursor.cursor.fill())) return;
        row = unitCursor.cursor.row!;
      }
      unitCursor.cursor.next();
      const unit = unitCursor.read(row);
      const line = unitCursor.line(row);
      const siren = unit.siren.trim();
      const wellFormed = /^\d{9}$/.test(siren);
      if (wellFormed) {
        // A repeat follows its first (the import rejects it); a lower number breaks the join.
        if (siren < previous)
          throw outOfOrder(unitCursor.cursor.table.file, line, siren, previous, previousLine);
        previous = siren;
        previousLine = line;
      }
      const headOffice =
        offices && wellFormed ? await offices.of(siren, unit.nicSiegeUniteLegale.trim()) : undefined;
      yield sireneItem(unit, headOffice, { file: unitCursor.cursor.table.file, line }, mapped);
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

  async of(siren: string, nicSiege: string): Promise<EstablishmentRow | undefined> {
    const { cursor } = this.establishments;
    let byNic: CsvRow | undefined;
    let flagged: CsvRow | undefined;
    for (;;) {
      let row = cursor.row;
      if (!row) {
        if (!(await cursor.fill())) break;
        row = cursor.row!;
      }
      const key = valueAt(row, this.siren).trim();
      const line = this.establishments.line(row);
      if (key < this.previous)
        throw outOfOrder(cursor.table.file, line, key, this.previous, this.previousLine);
      this.previous = key;
      this.previousLine = line;
      if (key > siren) break;
      cursor.next();
      if (key < siren) continue; // an establishment of a unit the units file does not hold
      if (!byNic && nicSiege && valueAt(row, this.nic).trim() === nicSiege) byNic = row;
      if (!flagged && valueAt(row, this.siege).trim().toLowerCase() === 'true') flagged = row;
    }
    const office = byNic ?? flagged;
    return office && this.establishments.read(office);
  }
}

function outOfOrder(file: string, line: number, siren: string, previous: string, previousLine: number) {
  return new RegistryFileError(
    `${file} line ${line}: siren ${siren} comes after ${previous} (line ${previousLine}); the join relies on ` +
      `the stock files being in ascending siren order, as INSEE publishes them`,
  );
}
