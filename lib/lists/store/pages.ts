/**
 * What a list's pages read: a slice of its order (companies) or of its contacts, read from the nearer
 * end, and the companies as lists show them.
 */
import { companyKey, type CompanyRef } from '../../companies/identifiers';
import { batchGet, queryAll } from '../../storage/batch';
import { tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { companyOfKey, listOrderOfKey } from '../../storage/keys';
import { GSI1, type Item, type ListType, type MemberState, type OrderEntry } from './model';

/** One state's companies (the table partition of that state) or every state's (`ALL`, gsi1). */
export type OrderView = MemberState | 'ALL';

function orderQuery(accountId: string, listId: number, view: OrderView) {
  return view === 'ALL'
    ? {
        TableName: tableName(),
        IndexName: GSI1.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': GSI1.partitionKey, '#sk': 'sk', '#contacts': 'contacts' },
        ExpressionAttributeValues: { ':pk': keys.listOrderAllPartition(accountId, listId) } as Item,
        ProjectionExpression: '#sk, #contacts',
      }
    : {
        TableName: tableName(),
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#contacts': 'contacts' },
        ExpressionAttributeValues: { ':pk': keys.listOrderPartition(accountId, listId, view) } as Item,
        ProjectionExpression: '#sk, #contacts',
      };
}

function toOrderEntry(item: Item, contactCounts: Record<string, number> = {}): OrderEntry {
  const { matchedSinceMs, ref } = listOrderOfKey(item['sk'] as string);
  return { ref, matchedSinceMs, contacts: contactCounts[companyKey(ref)] ?? Number(item['contacts'] ?? 0) };
}

export interface Slice {
  offset: number;
  count: number;
  /** How many entries the view holds (the list's counter). */
  total: number;
}

/**
 * Entries `offset` to `offset + count` of a view in the contract's order. A Query has no offset, so
 * the entries before the slice are read too — from whichever end is nearer: forwards `offset + count`
 * keys-only items, or backwards `total − offset`. One Query page (1 MB) holds about 14,000 such
 * items, more than the contract's largest offset (10,000) plus limit (500): always one round trip.
 */
export async function getOrderSlice(
  accountId: string,
  listId: number,
  view: OrderView,
  { offset, count, total }: Slice,
): Promise<OrderEntry[]> {
  const end = Math.min(offset + count, total);
  if (offset >= end) return [];
  const query = orderQuery(accountId, listId, view);
  if (end <= total - offset) {
    return (await queryAll(query, { limit: end })).slice(offset, end).map((item) => toOrderEntry(item));
  }
  const tail = (await queryAll({ ...query, ScanIndexForward: false }, { limit: total - offset }))
    .map((item) => toOrderEntry(item))
    .reverse();
  // `tail` holds positions total − tail.length … total − 1.
  const first = total - tail.length;
  return tail.slice(Math.max(0, offset - first), end - first);
}

/**
 * The companies whose contacts cover contacts `offset` to `offset + count` of a list (§7.4: the
 * contacts of its companies that are not ARCHIVED, in the list's order), and the position of the
 * first one's first contact. Reads from the nearer end of the contacts too, only companies that have
 * contacts (a FilterExpression; each of them holds at least one contact, so the items needed are at
 * most the contacts needed). A STATIC list has no NEW companies: its SAVED partition is the view.
 *
 * `contactCounts` is the list item's `cc` map (read with the list): a company's count there replaces
 * its order item's. Only order items holding more than 0 have an entry (the filter never hides one),
 * and the entries that say 0 are read past: the Query's Limit grows by their number.
 */
export async function getContactSlice(
  accountId: string,
  listId: number,
  listType: ListType,
  { offset, count, total }: Slice,
  contactCounts: Record<string, number> = {},
): Promise<{ covering: OrderEntry[]; first: number }> {
  const end = Math.min(offset + count, total);
  if (offset >= end) return { covering: [], first: offset };
  const smart = listType === 'SMART';
  const base = orderQuery(accountId, listId, smart ? 'ALL' : 'SAVED');
  const query = {
    ...base,
    FilterExpression: smart ? '#contacts > :zero AND #state <> :archived' : '#contacts > :zero',
    ExpressionAttributeNames: { ...base.ExpressionAttributeNames, ...(smart ? { '#state': 'state' } : {}) },
    ExpressionAttributeValues: {
      ...base.ExpressionAttributeValues,
      ':zero': 0,
      ...(smart ? { ':archived': 'ARCHIVED' } : {}),
    },
  };
  const countOf = (item: Item) => toOrderEntry(item, contactCounts).contacts;
  const sum = (items: Item[]) => items.reduce((n, item) => n + countOf(item), 0);
  const zeros = Object.values(contactCounts).filter((n) => n === 0).length;
  const forward = end <= total - offset;
  const needed = forward ? end : total - offset;
  const items = await queryAll(
    { ...query, Limit: needed + zeros, ...(forward ? {} : { ScanIndexForward: false }) },
    { until: (read) => sum(read) >= needed },
  );
  const entries = (forward ? items : items.reverse()).map((item) => toOrderEntry(item, contactCounts));
  let position = forward ? 0 : total - sum(items);
  const covering: OrderEntry[] = [];
  let first = position;
  for (const entry of entries) {
    if (position >= end) break;
    if (entry.contacts === 0) continue;
    if (position + entry.contacts > offset) {
      if (covering.length === 0) first = position;
      covering.push(entry);
    }
    position += entry.contacts;
  }
  return { covering, first };
}

// ---- Companies as lists show them ----------------------------------------------------------------

export interface ListedCompany extends CompanyRef {
  name: string;
  place: string | null;
  /** Only when asked for (`withContacts`); the record's contacts, as stored. */
  contacts: StoredContact[];
  contactCount: number;
}

export interface StoredContact {
  contactId: number;
  firstName: string;
  lastName: string;
  jobTitle: string | null;
}

/** Name, place and contacts of companies, keyed by `companyKey`; unknown companies are absent. */
export async function getListedCompanies(
  refs: CompanyRef[],
  withContacts: boolean,
): Promise<Map<string, ListedCompany>> {
  const attributes = ['pk', 'name', 'place', ...(withContacts ? ['contacts'] : [])];
  const items = await batchGet(tableName(), refs.map(keys.company), { projection: attributes });
  return new Map(
    items.map((item) => {
      const ref = companyOfKey(item['pk'] as string);
      const contacts =
        typeof item['contacts'] === 'string' ? (JSON.parse(item['contacts']) as StoredContact[]) : [];
      return [
        companyKey(ref),
        {
          ...ref,
          name: item['name'] as string,
          place: (item['place'] as string | undefined) ?? null,
          contacts,
          contactCount: contacts.length,
        },
      ];
    }),
  );
}
