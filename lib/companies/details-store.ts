/**
 * (ext) What company details and company contacts read (contract §6.5): the company item only, its
 * profile with the stored JSON text of its periods and contacts (lib/companies/store.ts says why text).
 *
 * Access patterns: details of one company, or its contacts: one GetItem; details of up to 100
 * companies: one BatchGetItem (2 rounds when DynamoDB leaves keys unprocessed).
 */
import { batchGet, getItem } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import type { CompanyRef } from './identifiers';
import type { CompanyProfile } from './record';
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

/** The profile with the periods and contacts as stored: JSON text, cut or counted without a full parse. */
export interface StoredDetails {
  company: CompanyProfile;
  periodsJson: string;
  contactsJson: string;
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

/** A company's profile and its contacts' JSON text, or null when it is unknown. */
export async function getCompanyContactsItem(ref: CompanyRef): Promise<StoredDetails | null> {
  const item = await getItem(tableName(), keys.company(ref), { projection: CONTACTS_PROJECTION });
  return item ? toDetails(item) : null;
}

function toDetails(item: Record<string, unknown>): StoredDetails {
  return {
    company: toProfile(item),
    periodsJson: jsonText(item, 'periods'),
    contactsJson: jsonText(item, 'contacts'),
  };
}

/** A stored JSON list's text, `[]` when absent (a function of the module: see `textOrNull` in store.ts). */
const jsonText = (item: Record<string, unknown>, name: string) =>
  typeof item[name] === 'string' ? (item[name] as string) : '[]';
