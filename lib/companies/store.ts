/**
 * Where a company sits in the table: one item holds the whole record (key pattern in
 * lib/storage/keys.ts), so an import writes a company in one atomic put and never leaves it half-written.
 * Shareholders and contacts, only ever read whole, are one JSON string each; the periods, read a page
 * at a time, are a list of one JSON string per period (lib/companies/stored-periods.ts).
 * A string keeps the contract's key order and parses far faster than a nested DynamoDB map. The figures
 * company details show of the periods and contacts are kept beside them as numbers
 * (lib/companies/details-figures.ts). Readers project only the attributes they show.
 *
 * Access patterns:
 * - financials of one company: one GetItem → 1 round trip;
 * - financials of up to 100 companies: one BatchGetItem of 100 keys → 1 round trip (2 when DynamoDB
 *   leaves keys unprocessed, say for very large records), however many periods;
 * - the import: the content hashes and change ids of a batch (projected), then the whole records of
 *   the changed companies only.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { batchGet, getItem } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { companyOfKey } from '../storage/keys';
import { companyKey, type CompanyRef } from './identifiers';
import { detailsFigureAttributes } from './details-figures';
import type { CompanyProfile, CompanyRecord } from './record';
import { periodsAttribute, periodTexts, storedPeriods } from './stored-periods';

type Item = Record<string, unknown>;

const PROFILE_ATTRIBUTES = [
  'country',
  'companyNumber',
  'name',
  'place',
  'vatNumber',
  'website',
  'legalForm',
  'foundedOn',
  'activities',
] as const satisfies ReadonlyArray<keyof CompanyProfile>;

export interface StoredFinancials {
  company: CompanyProfile;
  /**
   * The §6.1 periods as stored, newest first: one JSON text per period, written by the import with
   * JSON.stringify (contract key order, no white space). A page of them is sent as it is, never parsed
   * (financials.ts).
   */
  periods: readonly string[];
}

/** What the financials endpoints read of the item (exported for the benchmark's floor, which reads the same). */
export const FINANCIALS_PROJECTION = ['pk', ...PROFILE_ATTRIBUTES, 'periods'];

/** A company's profile and financials, or null when it is unknown. */
export async function getCompanyWithFinancials(ref: CompanyRef): Promise<StoredFinancials | null> {
  const item = await getItem(tableName(), keys.company(ref), { projection: FINANCIALS_PROJECTION });
  return item ? toFinancials(item) : null;
}

/** Profiles and financials of the given companies, keyed by `companyKey`; unknown companies are absent. */
export async function getCompaniesWithFinancials(refs: CompanyRef[]): Promise<Map<string, StoredFinancials>> {
  const items = await batchGet(tableName(), refs.map(keys.company), { projection: FINANCIALS_PROJECTION });
  const found = new Map<string, StoredFinancials>();
  for (const item of items) found.set(keyOf(item), toFinancials(item));
  return found;
}

/** What the import needs to decide whether a company changed, and whether a change may still be deriving. */
export interface CompanyState {
  hash: string;
  /** The import change that wrote the company (see lib/import/store.ts). */
  changeId: string;
  /**
   * The id of its legal entity (contract §6.4), kept here so that a change of a known company claims
   * nothing; absent on companies written before it was kept (the import claims theirs again, no write).
   */
  legalEntityId?: string;
  /**
   * The fingerprint of the import line the record was written from (lib/import/lines.ts): the same
   * line again is unchanged without being parsed. Absent on companies written before it was kept.
   */
  lineHash?: string;
  /**
   * (ext) What a registry import keeps of the company's registry rows to apply later updates exactly
   * (contract §11.5.2): JSON text, opaque here, kept when another source writes the company. Stored
   * deflated (`registryRowsAttribute`): the rows repeat their entity number and codes, and are most of
   * a registry company's item.
   */
  registryRows?: string;
  /** (ext) The registered address in each language its registry gives it (JSON text), for MOVED (§8.2). */
  addressForms?: string;
  /** (ext) The sources that wrote the company (`kbo`, `sirene`, …); absent: JSON Lines alone. */
  sources?: string[];
  /**
   * (ext) Which filing brought each period (lib/filings/apply.ts `FiledPeriods`): JSON text, opaque
   * here, kept when another source writes the company; absent until a filing import wrote it.
   */
  filed?: string;
}

export async function getCompanyStates(refs: CompanyRef[]): Promise<Map<string, CompanyState>> {
  const items = await batchGet(tableName(), refs.map(keys.company), {
    projection: ['pk', 'contentHash', 'changeId', 'lineHash'],
    consistent: true,
  });
  return new Map(
    items.map((item) => [
      keyOf(item),
      {
        hash: item['contentHash'] as string,
        changeId: item['changeId'] as string,
        ...(typeof item['lineHash'] === 'string' ? { lineHash: item['lineHash'] } : {}),
      },
    ]),
  );
}

export interface StoredCompany {
  record: CompanyRecord;
  state: CompanyState;
}

/** Whole records with their state, keyed by `companyKey`; unknown companies are absent. Strongly consistent. */
export async function getCompanyRecords(refs: CompanyRef[]): Promise<Map<string, StoredCompany>> {
  const items = await batchGet(tableName(), refs.map(keys.company), { consistent: true });
  return new Map(
    items.map((item) => [
      keyOf(item),
      {
        record: {
          ...toProfile(item),
          financials: storedPeriods(item['periods']),
          shareholders: parseJson(item['shareholders']),
          contacts: parseJson(item['contacts']),
        },
        state: {
          hash: item['contentHash'] as string,
          changeId: item['changeId'] as string,
          ...(typeof item['legalEntityId'] === 'string' ? { legalEntityId: item['legalEntityId'] } : {}),
          ...(typeof item['lineHash'] === 'string' ? { lineHash: item['lineHash'] } : {}),
          ...registryRowsOf(item),
          ...(typeof item['addressForms'] === 'string' ? { addressForms: item['addressForms'] } : {}),
          ...(Array.isArray(item['sources']) ? { sources: item['sources'] as string[] } : {}),
          ...(typeof item['filed'] === 'string' ? { filed: item['filed'] } : {}),
        },
      },
    ]),
  );
}

/** The item that holds a record, marked with its content hash and the import change that wrote it. */
export function companyItem(record: CompanyRecord, state: CompanyState): Item {
  const { financials, shareholders, contacts, ...profile } = record;
  return {
    ...keys.company(record),
    entity: 'Company',
    // DynamoDB has no use for NULL attributes here: absent reads back as null (no other names as []).
    ...Object.fromEntries(
      Object.entries(profile).filter(
        ([key, value]) => value !== null && !(key === 'otherNames' && profile.otherNames.length === 0),
      ),
    ),
    periods: periodsAttribute(financials),
    shareholders: JSON.stringify(shareholders),
    contacts: JSON.stringify(contacts),
    ...detailsFigureAttributes(financials, contacts),
    contentHash: state.hash,
    changeId: state.changeId,
    ...(state.legalEntityId ? { legalEntityId: state.legalEntityId } : {}),
    ...(state.lineHash ? { lineHash: state.lineHash } : {}),
    ...(state.registryRows === undefined ? {} : { registryRows: registryRowsAttribute(state.registryRows) }),
    ...(state.addressForms === undefined ? {} : { addressForms: state.addressForms }),
    ...(state.sources ? { sources: state.sources } : {}),
    ...(state.filed === undefined ? {} : { filed: state.filed }),
  };
}

/**
 * The registry rows as the company item keeps them: deflated bytes (a KBO enterprise's rows are about
 * a fifth of their JSON text), read back by `registryRowsText`.
 */
export const registryRowsAttribute = (text: string): Uint8Array => deflateRawSync(text);

/** The registry rows' JSON text from a company item's attribute (deflated bytes, or text as once kept); null when absent. */
export function registryRowsText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return value instanceof Uint8Array ? inflateRawSync(value).toString('utf8') : null;
}

const registryRowsOf = (item: Item): { registryRows?: string } => {
  const text = registryRowsText(item['registryRows']);
  return text === null ? {} : { registryRows: text };
};

export const keyOf = (item: Item) => companyKey(companyOfKey(item['pk'] as string));

function toFinancials(item: Item): StoredFinancials {
  return { company: toProfile(item), periods: periodTexts(item['periods']) };
}

function parseJson<T>(json: unknown): T[] {
  return typeof json === 'string' ? (JSON.parse(json) as T[]) : [];
}

/**
 * A text attribute, or null when absent. A function of the module rather than an arrow made per item:
 * an arrow made in every call is compiled again for each new one once it gets hot (a bulk answer makes
 * 100 of them a request).
 */
const textOrNull = (item: Item, name: string) => (item[name] as string | undefined) ?? null;

export function toProfile(item: Item): CompanyProfile {
  return {
    country: item['country'] as CompanyProfile['country'],
    companyNumber: item['companyNumber'] as string,
    name: item['name'] as string,
    place: textOrNull(item, 'place'),
    vatNumber: textOrNull(item, 'vatNumber'),
    website: textOrNull(item, 'website'),
    legalForm: textOrNull(item, 'legalForm'),
    foundedOn: textOrNull(item, 'foundedOn'),
    stoppedOn: textOrNull(item, 'stoppedOn'),
    address: (item['address'] as CompanyProfile['address'] | undefined) ?? null,
    otherNames: (item['otherNames'] as string[] | undefined) ?? [],
    activities: (item['activities'] as string[] | undefined) ?? [],
  };
}
