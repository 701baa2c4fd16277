/**
 * (ext) What company details and company contacts read (contract §6.5): the company item only, its
 * profile with its stored periods and contacts (lib/companies/store.ts says how they are stored).
 *
 * Access patterns: details of one company, or its contacts: one GetItem; details of up to 100
 * companies: one BatchGetItem (2 rounds when DynamoDB leaves keys unprocessed).
 */
import { batchGet, getItem } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import type { CompanyRef } from './identifiers';
import type { CompanyProfile, Contact } from './record';
import type { FinancialPeriod } from './schemas';
import { keyOf, toProfile } from './store';
import { newestPeriod } from './stored-periods';

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

/** What details show of the stored record: the profile, the newest period and the number of contacts. */
export interface StoredDetails {
  company: CompanyProfile;
  newestPeriod: FinancialPeriod | null;
  contactCount: number;
}

/** The profile with every contact, as stored. */
export interface StoredContacts {
  company: CompanyProfile;
  contacts: Contact[];
}

export const DETAILS_PROJECTION = [...PROFILE, 'periods', 'contacts'];
/** A constant, so its ProjectionExpression is built once (lib/storage/batch.ts keeps it by the array). */
export const CONTACTS_PROJECTION = [...PROFILE, 'contacts'];

export async function getCompanyDetailsItem(ref: CompanyRef): Promise<StoredDetails | null> {
  const item = await getItem(tableName(), keys.company(ref), { projection: DETAILS_PROJECTION });
  return item ? toDetails(item) : null;
}

/** Keyed by `companyKey`; unknown companies are absent. */
export async function getCompanyDetailsItems(refs: CompanyRef[]): Promise<Map<string, StoredDetails>> {
  const items = await batchGet(tableName(), refs.map(keys.company), { projection: DETAILS_PROJECTION });
  const found = new Map<string, StoredDetails>();
  for (const item of items) found.set(keyOf(item), toDetails(item));
  return found;
}

/** A company's profile and its contacts, or null when it is unknown. */
export async function getCompanyContactsItem(ref: CompanyRef): Promise<StoredContacts | null> {
  const item = await getItem(tableName(), keys.company(ref), { projection: CONTACTS_PROJECTION });
  return item ? { company: toProfile(item), contacts: storedContacts(item) } : null;
}

function toDetails(item: Record<string, unknown>): StoredDetails {
  return {
    company: toProfile(item),
    newestPeriod: newestPeriod(item['periods']),
    contactCount: storedContacts(item).length,
  };
}

/** The stored contacts (one JSON text, lib/companies/store.ts), [] when absent. */
const storedContacts = (item: Record<string, unknown>): Contact[] =>
  typeof item['contacts'] === 'string' ? (JSON.parse(item['contacts']) as Contact[]) : [];
