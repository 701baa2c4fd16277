/**
 * (ext) What company details and company contacts read (contract §6.5): the company item only, its
 * profile with the figures details show (lib/companies/details-figures.ts), or with its contacts.
 *
 * Access patterns: details of one company, or its contacts: one GetItem; details of up to 100
 * companies: one BatchGetItem (2 rounds when DynamoDB leaves keys unprocessed). An item that keeps no
 * figures costs one more read, for its periods and contacts.
 */
import { batchGet, getItem } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import {
  DETAILS_FIGURE_ATTRIBUTES,
  detailsFiguresOfSections,
  keptDetailsFigures,
  type DetailsFigures,
} from './details-figures';
import { companyKey, type CompanyRef } from './identifiers';
import type { CompanyProfile, Contact } from './record';
import { keyOf, toProfile } from './store';

const PROFILE = [
  'pk',
  'country',
  'companyNumber',
  'name',
  'place',
  'vatNumber',
  'website',
  'legalForm',
  'foundedOn',
  'stoppedOn',
  'address',
  'otherNames',
  'activities',
] as const;

/** What details show of the stored record: the profile and the figures of its periods and contacts. */
export interface StoredDetails {
  company: CompanyProfile;
  figures: DetailsFigures;
}

/** The profile with every contact, as stored. */
export interface StoredContacts {
  company: CompanyProfile;
  contacts: Contact[];
}

export const DETAILS_PROJECTION = [...PROFILE, ...DETAILS_FIGURE_ATTRIBUTES];
/** A constant, so its ProjectionExpression is built once (lib/storage/batch.ts keeps it by the array). */
export const CONTACTS_PROJECTION = [...PROFILE, 'contacts'];
/** What an item that keeps no figures gives them from. */
const SECTIONS_PROJECTION = ['pk', 'periods', 'contacts'];

export async function getCompanyDetailsItem(ref: CompanyRef): Promise<StoredDetails | null> {
  const item = await getItem(tableName(), keys.company(ref), { projection: DETAILS_PROJECTION });
  if (!item) return null;
  const figures =
    keptDetailsFigures(item) ??
    detailsFiguresOfSections(
      await getItem(tableName(), keys.company(ref), { projection: SECTIONS_PROJECTION }),
    );
  return { company: toProfile(item), figures };
}

/**
 * Keyed by `companyKey`; unknown companies are absent. Items that keep no figures are read again for
 * their periods and contacts, all in one more BatchGetItem.
 */
export async function getCompanyDetailsItems(refs: CompanyRef[]): Promise<Map<string, StoredDetails>> {
  const items = await batchGet(tableName(), refs.map(keys.company), { projection: DETAILS_PROJECTION });
  const found = new Map<string, StoredDetails>();
  const withoutFigures: CompanyProfile[] = [];
  for (const item of items) {
    const figures = keptDetailsFigures(item);
    if (figures) found.set(keyOf(item), { company: toProfile(item), figures });
    else withoutFigures.push(toProfile(item));
  }
  if (withoutFigures.length > 0) {
    const sections = await batchGet(tableName(), withoutFigures.map(keys.company), {
      projection: SECTIONS_PROJECTION,
    });
    const byKey = new Map(sections.map((item) => [keyOf(item), item]));
    for (const company of withoutFigures) {
      const key = companyKey(company);
      found.set(key, { company, figures: detailsFiguresOfSections(byKey.get(key)) });
    }
  }
  return found;
}

/** A company's profile and its contacts, or null when it is unknown. */
export async function getCompanyContactsItem(ref: CompanyRef): Promise<StoredContacts | null> {
  const item = await getItem(tableName(), keys.company(ref), { projection: CONTACTS_PROJECTION });
  if (!item) return null;
  const contacts = item['contacts'];
  return {
    company: toProfile(item),
    contacts: typeof contacts === 'string' ? (JSON.parse(contacts) as Contact[]) : [],
  };
}
