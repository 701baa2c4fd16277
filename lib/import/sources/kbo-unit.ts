/**
 * One KBO enterprise, from its registry rows to the company fields KBO owns (contract §11.3, §11.5;
 * `registries.md` §1). Pure: the rows in, a unit out. The same rows are what the import keeps with the
 * company (`registryRows`), so that an update applies to them exactly (`kbo-update.ts`) and the unit is
 * mapped again from the result.
 */
import type { Address } from '../../companies/record';
import { RECORD_LIMITS } from '../../companies/record';
import { parseCompanyNumber } from '../../companies/identifiers';
import { byCodePoint } from '../../order';
import { countryCode, isoFromDayMonthYear, otherNamesOf, textOf, websiteOf } from './fields';
import {
  NAME_WITHHELD,
  REGISTRY_FIELDS,
  type RegistryField,
  type RegistryItem,
  type RegistryUnit,
  type UnitSource,
} from './unit';

/** Each kept table's columns, in the order a row keeps them (the published order). */
export const KBO_COLUMNS = {
  enterprise: [
    'EnterpriseNumber',
    'Status',
    'JuridicalSituation',
    'TypeOfEnterprise',
    'JuridicalForm',
    'JuridicalFormCAC',
    'StartDate',
  ],
  establishment: ['EstablishmentNumber', 'StartDate', 'EnterpriseNumber'],
  denomination: ['EntityNumber', 'Language', 'TypeOfDenomination', 'Denomination'],
  address: [
    'EntityNumber',
    'TypeOfAddress',
    'CountryNL',
    'CountryFR',
    'Zipcode',
    'MunicipalityNL',
    'MunicipalityFR',
    'StreetNL',
    'StreetFR',
    'HouseNumber',
    'Box',
    'ExtraAddressInfo',
    'DateStrikingOff',
  ],
  contact: ['EntityNumber', 'EntityContact', 'ContactType', 'Value'],
  activity: ['EntityNumber', 'ActivityGroup', 'NaceVersion', 'NaceCode', 'Classification'],
} as const;

export type KboTable = keyof typeof KBO_COLUMNS;
export const KBO_TABLES = Object.keys(KBO_COLUMNS) as KboTable[];

/** A row as kept: the table's values in `KBO_COLUMNS` order, as published (strings, codes unpadded as given). */
export type KboRow = string[];

/**
 * What is kept of one enterprise: its own row and, per table, the rows of the enterprise and of its
 * establishments that its fields depend on (denominations and contacts of the enterprise; addresses and
 * activities of both; the establishments' own rows, which link them to it).
 */
export interface KboRows {
  enterprise: KboRow;
  establishments: KboRow[];
  denominations: KboRow[];
  addresses: KboRow[];
  contacts: KboRow[];
  activities: KboRow[];
  /** The `SnapshotDate` of the update that deleted the enterprise without inserting it again (`kbo-update.ts`). */
  ceasedOn?: string;
}

/** What the mapping needs besides the rows. */
export interface KboContext {
  source: UnitSource;
}

/** KBO gives every field a registry may own (§11.5.1). */
export const KBO_OWNS: readonly RegistryField[] = REGISTRY_FIELDS;

/** `0712.345.630` and `0712345630` are one entity: the digits are the key the files are grouped by. */
export function entityKey(number: string): string {
  // The published forms (`0712.345.630`, `2.000.123.469`) without a regular expression: it runs once a row.
  if (number.length === 12 && number[4] === '.' && number[8] === '.')
    return number.slice(0, 4) + number.slice(5, 8) + number.slice(9);
  if (number.length === 13 && number[1] === '.' && number[5] === '.' && number[9] === '.')
    return number[0] + number.slice(2, 5) + number.slice(6, 9) + number.slice(10);
  return number.replace(/\D/g, '');
}

/** Denomination `Language` codes, in the order a name is looked for when the seat's region says nothing. */
const LANGUAGE_ORDER = ['2', '1', '3', '4', '0'];
const DUTCH = '2';
const FRENCH = '1';
const GERMAN = '3';

/** NACE versions in the order of preference: NACE Rev. 2 for the whole stage, NACE 2025 when it is all there is (§11.5.7). */
const NACE_VERSIONS = ['2008', '2025'];
/** Activity groups in the order their MAIN activity is preferred (`registries.md` §1.8): VAT, general, social security. */
const GROUP_ORDER = ['001', '003', '006'];

export function kboUnit(rows: KboRows, { source }: KboContext): RegistryItem {
  const [number = '', , , type = '', juridicalForm = '', , startDate = ''] = rows.enterprise;
  const companyNumber = parseCompanyNumber('BE', number);
  if (!companyNumber)
    return {
      kind: 'rejected',
      source,
      reason: `EnterpriseNumber ${shown(number)} is not a valid BE company number`,
    };
  const key = entityKey(number);
  let dropped = 0;

  const own = ownRow(number, key);
  const seat = rows.addresses.find((a) => a[1] === 'REGO' && !a[12]?.trim() && own(a));
  const name = nameOf(rows.denominations, own, seat ? regionLanguage(seat) : null);
  const naturalPerson = type.trim() === '1';
  // A natural person's name is personal: one the extract does not give is withheld (§11.3 privacy),
  // and a stored company of that number is erased (§11.5.6). A legal person without one is rejected.
  if (!name && naturalPerson)
    return { kind: 'skipped', reason: NAME_WITHHELD, source, company: { country: 'BE', companyNumber } };
  if (!name)
    return { kind: 'rejected', source, reason: `enterprise ${number.trim()} has no name (denomination 001)` };
  const addressLanguage = name.language === DUTCH ? 'NL' : 'FR';

  const foundedOn = startDate.trim() ? isoFromDayMonthYear(startDate) : null;
  if (startDate.trim() && !foundedOn) dropped++;

  const activities = activitiesOf(rows, own);
  if (activities.unreadable) dropped++;

  const webs = rows.contacts.filter((c) => c[2]?.trim().toUpperCase() === 'WEB' && own(c));
  const website = webs.length > 0 ? websiteOf(webs[0]![3] ?? '') : null;
  if (webs.length > 0 && !website) dropped++;

  const address = seat ? addressOf(seat, addressLanguage) : null;
  const place = address?.place ?? firstEstablishmentPlace(rows, addressLanguage);

  const unit: RegistryUnit = {
    source,
    country: 'BE',
    companyNumber: number,
    owns: KBO_OWNS,
    fields: {
      name: name.text,
      otherNames: otherNamesOf(name.text, otherDenominations(rows.denominations, own, name)),
      address,
      place,
      legalForm: naturalPerson ? null : textOf(juridicalForm),
      foundedOn,
      stoppedOn: null,
      activities: activities.codes,
      vatNumber: activities.vat ? `BE${companyNumber}` : null,
      website,
    },
    dropped,
    registryRows: rows,
    links: rows.establishments.map((e) => entityKey(e[0]!)),
  };
  return { kind: 'unit', unit };
}

/**
 * Whether a row is the enterprise's own (not one of its establishments'): the rows of one entity
 * normally spell its number exactly as `enterprise.csv` does, so the digits are compared only when
 * the spelling differs (this runs for every row of every enterprise).
 */
function ownRow(number: string, key: string): (row: KboRow) => boolean {
  return (row) => row[0] === number || entityKey(row[0]!) === key;
}

interface Name {
  text: string;
  language: string;
}

/** The seat's region's language from its Belgian postal code: Brussels and Wallonia French, the German-speaking area German, Flanders Dutch. */
export function regionLanguage(seat: KboRow): string | null {
  if (seat[2]?.trim() || seat[3]?.trim()) return null; // a seat abroad
  const zip = Number(seat[4]?.trim());
  if (!Number.isInteger(zip) || zip < 1000 || zip > 9999) return null;
  if (zip < 1500) return FRENCH; // Brussels (1000–1299), Walloon Brabant (1300–1499)
  if (zip < 4000) return DUTCH; // Flemish Brabant, Antwerp, Limburg
  if (zip >= 4700 && zip < 4800) return GERMAN; // Eupen, Kelmis, Raeren, Sankt Vith, …
  if (zip < 8000) return FRENCH; // Liège, Namur, Hainaut, Luxembourg
  return DUTCH; // West and East Flanders
}

function nameOf(
  denominations: KboRow[],
  own: (row: KboRow) => boolean,
  regionLanguage: string | null,
): Name | null {
  const names = new Map<string, string>();
  for (const d of denominations) {
    if (d[2]?.trim() !== '001' || !own(d)) continue;
    const text = textOf(d[3]);
    const language = d[1]?.trim() ?? '';
    if (text && !names.has(language)) names.set(language, text);
  }
  for (const language of regionLanguage ? [regionLanguage, ...LANGUAGE_ORDER] : LANGUAGE_ORDER) {
    const text = names.get(language);
    if (text) return { text, language };
  }
  const [first] = names;
  return first ? { text: first[1], language: first[0] } : null;
}

/** Type 001 in the other languages, then abbreviations (002), then commercial names (003). */
function* otherDenominations(
  denominations: KboRow[],
  own: (row: KboRow) => boolean,
  name: Name,
): Iterable<string | null> {
  const ofEnterprise = denominations.filter(own);
  for (const type of OTHER_NAME_TYPES) {
    const ofType = ofEnterprise.filter((d) => d[2]?.trim() === type).sort(byLanguageRank);
    for (const d of ofType) if (!(type === '001' && d[1]?.trim() === name.language)) yield textOf(d[3]);
  }
}

/** Denomination types that give other names, in the order they are listed. */
const OTHER_NAME_TYPES = ['001', '002', '003'];

const languageRank = (d: KboRow) => {
  const rank = LANGUAGE_ORDER.indexOf(d[1]?.trim() ?? '');
  return rank < 0 ? LANGUAGE_ORDER.length : rank;
};
const byLanguageRank = (a: KboRow, b: KboRow) => languageRank(a) - languageRank(b);

type AddressWithCountry = Address;

/** A seat abroad names its country (ISO 3166); a Belgian one names none (the company's own, §11.1). */
const abroad = (country: string | null | undefined) => (country ? { country } : {});

/** Street and municipality in the name's language (the other one when that one is empty). */
function addressOf(row: KboRow, language: 'NL' | 'FR'): AddressWithCountry {
  const inLanguage = (nl: number, fr: number) =>
    language === 'NL' ? (textOf(row[nl]) ?? textOf(row[fr])) : (textOf(row[fr]) ?? textOf(row[nl]));
  const foreign = inLanguage(2, 3);
  return {
    street: inLanguage(7, 8),
    number: textOf(row[9]),
    box: textOf(row[10]),
    postalCode: textOf(row[4]),
    place: inLanguage(5, 6),
    ...abroad(foreign ? (countryCode(textOf(row[2]) ?? '') ?? countryCode(textOf(row[3]) ?? '')) : null),
  };
}

/** A natural person's seat is withheld: its place is that of its first establishment (lowest number) with an address. */
function firstEstablishmentPlace(rows: KboRows, language: 'NL' | 'FR'): string | null {
  const establishments = rows.establishments.map((e) => entityKey(e[0]!)).sort(byCodePoint);
  for (const establishment of establishments) {
    const row = rows.addresses.find((a) => entityKey(a[0]!) === establishment && !a[12]?.trim());
    const place = row && addressOf(row, language).place;
    if (place) return place;
  }
  return null;
}

interface Activities {
  codes: string[];
  /** It has a VAT activity (group 001), at the enterprise or one of its establishments. */
  vat: boolean;
  /** It has activities, but none in a version the stage keeps, or none readable. */
  unreadable: boolean;
}

/**
 * MAIN then SECO codes of one NACE version (Rev. 2, else 2025), the main ones ordered by group
 * preference then code, without repeats, cut to 5 digits, at most 50; the establishments' when the
 * enterprise itself has none.
 */
function activitiesOf(rows: KboRows, own: (row: KboRow) => boolean): Activities {
  let vat = false;
  const ofEnterprise: KboRow[] = [];
  const ofEstablishments: KboRow[] = [];
  for (const a of rows.activities) {
    if (a[1]?.trim() === '001') vat = true;
    (own(a) ? ofEnterprise : ofEstablishments).push(a);
  }
  let picked = codesOf(ofEnterprise);
  if (picked.codes.length === 0) {
    const fallback = codesOf(ofEstablishments);
    if (fallback.codes.length > 0 || ofEnterprise.length === 0) picked = fallback;
  }
  return { codes: picked.codes, vat, unreadable: picked.codes.length === 0 && picked.present };
}

/** A MAIN or SECO activity row as the ordering reads it: its values trimmed once. */
interface Ranked {
  main: boolean;
  groupRank: number;
  group: string;
  code: string;
}

function codesOf(activities: KboRow[]): { codes: string[]; present: boolean } {
  // Each relevant row read once: its classification, version, group and code (trimmed).
  const byVersion = new Map<string, Ranked[]>();
  let present = false;
  for (const a of activities) {
    const classification = a[4]?.trim();
    if (classification !== 'MAIN' && classification !== 'SECO') continue;
    present = true;
    const version = a[2]?.trim() ?? '';
    if (!NACE_VERSIONS.includes(version)) continue;
    const group = a[1]?.trim() ?? '';
    const rank = GROUP_ORDER.indexOf(group);
    const ranked = {
      main: classification === 'MAIN',
      groupRank: rank < 0 ? GROUP_ORDER.length : rank,
      group,
      code: a[3]?.trim() ?? '',
    };
    const ofVersion = byVersion.get(version);
    if (ofVersion) ofVersion.push(ranked);
    else byVersion.set(version, [ranked]);
  }
  const version = NACE_VERSIONS.find((v) => byVersion.has(v));
  const rows = version ? byVersion.get(version)! : [];
  rows.sort(byActivityRank);
  const codes: string[] = [];
  for (const row of rows) {
    const code = row.code.replace(DOTS, '').slice(0, 5);
    if (!NACE_CODE.test(code) || codes.includes(code)) continue;
    codes.push(code);
    if (codes.length === RECORD_LIMITS.activities) break;
  }
  return { codes, present };
}

/** MAIN before SECO, then by group preference, group and code (a stable sort: ties keep the file's order). */
const byActivityRank = (a: Ranked, b: Ranked) =>
  (a.main ? 0 : 1) - (b.main ? 0 : 1) ||
  a.groupRank - b.groupRank ||
  byCodePoint(a.group, b.group) ||
  byCodePoint(a.code, b.code);
const DOTS = /\./g;
const NACE_CODE = /^\d{2,5}$/;

const shown = (value: string) => (value.trim() ? value.trim() : '""');
