/**
 * The lists' items in the table and the domain types they map to: what every module of the list store
 * writes and reads, and the constants they share (key patterns in lib/storage/keys.ts). Every list key
 * carries the account, so a caller's account is part of every lookup: a list of another account is
 * simply absent.
 *
 * - List: one item per list, with its counters: companies per state (`nNew`, `nSaved`, `nArchived`) and
 *   `nContacts` (contacts of its non-archived companies). Counters move with `ADD` in the same
 *   TransactWriteItems as the members they count, or, for the import's flips and folds, in one
 *   UpdateItem that stores them as an intent (`fx`) until their batched writes landed
 *   (flip-intents.ts). Two more attributes keep contact counts cheap for the import: `cc`, a map companyKey → number of contacts, holds the numbers the import changed
 *   since the members were written (a member's count is its entry there, else its own `contacts`);
 *   `rev`, a revision every write of members or of `cc` bumps, so the import's one update of `cc`
 *   and `nContacts` per list (contact-counts.ts) holds only if nothing changed since it read them.
 * - Member: one item per company in a list (state, matchedSince, its contact count as written), keyed
 *   by the company: "add only if absent" is a conditional put. Its gsi1 entry lists a company's lists,
 *   which the import uses to keep contact counts right when a company's contacts change.
 * - Order: one small item per member in a partition per state, keyed in the contract's order
 *   (matchedSince descending, country, number). A page is one Query with Limit offset + limit, reading
 *   keys only (about 70 bytes an item, so even an offset of 10,000 fits the 1 MB a Query returns).
 */
import { companyKey, type CompanyRef } from '../../companies/identifiers';
import * as keys from '../../storage/keys';
import { companyOfKey } from '../../storage/keys';
import { tableDefinition } from '../../storage/table';
import type { Filters } from '../filters';

export type ListType = 'STATIC' | 'SMART';
export const MEMBER_STATES = ['NEW', 'SAVED', 'ARCHIVED'] as const;
export type MemberState = (typeof MEMBER_STATES)[number];

export interface StoredList {
  accountId: string;
  id: number;
  name: string;
  type: ListType;
  columns: string[];
  shared: boolean;
  notificationsEnabled: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  /** Companies per state. */
  counts: Record<MemberState, number>;
  /** Contacts of the companies that are not ARCHIVED. */
  contacts: number;
  /**
   * Members' numbers of contacts the import changed, by `companyKey` (`cc`): they count instead of
   * the numbers their members and order items hold. Only members holding more than 0 have an entry.
   */
  contactCounts: Record<string, number>;
  /** A SMART list's filters (§7.6), validated; null on a STATIC list. */
  filters: Filters | null;
  /**
   * A new SMART list whose first members are still being written: not visible to anyone yet (and
   * holding its name), so it appears whole, with exact counters (see `createList`).
   */
  pending: boolean;
}

export interface NewMember {
  ref: CompanyRef;
  /** How many contacts the company has now (it counts towards the list's contacts unless ARCHIVED). */
  contacts: number;
}

export interface OrderEntry {
  ref: CompanyRef;
  matchedSinceMs: number;
  contacts: number;
}

export type Item = Record<string, unknown>;
export const GSI1 = tableDefinition.indexes[0];
export const COUNTER: Record<MemberState, string> = { NEW: 'nNew', SAVED: 'nSaved', ARCHIVED: 'nArchived' };
/** Companies a list item counts, every state (the sum of its counters). */
export const companiesOf = (item: Item): number =>
  Object.values(COUNTER).reduce((n, counter) => n + Number(item[counter] ?? 0), 0);
/** Transactions on one list conflict on its item while others write it: retried this often, with jitter. */
export const CONFLICT_RETRIES = { maxAttempts: 12, baseMs: 20, maxMs: 800 };

/**
 * Why a write on a list stopped: the list is gone or changed meanwhile, or (adding members with
 * `onlyType`) it is of another type.
 */
export class ListChangedError extends Error {
  override readonly name = 'ListChangedError';
}

export function listItem(list: StoredList): Item {
  return {
    ...keys.list(list.accountId, list.id),
    entity: 'List',
    accountId: list.accountId,
    id: list.id,
    name: list.name,
    type: list.type,
    columns: list.columns,
    shared: list.shared,
    notificationsEnabled: list.notificationsEnabled,
    createdBy: list.createdBy,
    createdAt: list.createdAt,
    updatedAt: list.updatedAt,
    nNew: list.counts.NEW,
    nSaved: list.counts.SAVED,
    nArchived: list.counts.ARCHIVED,
    nContacts: list.contacts,
    ...(list.filters === null ? {} : { filters: JSON.stringify(list.filters) }),
    ...(list.pending ? { pending: true } : {}),
  };
}

export function toList(item: Item): StoredList {
  return {
    accountId: item['accountId'] as string,
    id: Number(item['id']),
    name: item['name'] as string,
    type: item['type'] as ListType,
    columns: (item['columns'] as string[] | undefined) ?? [],
    shared: item['shared'] === true,
    notificationsEnabled: item['notificationsEnabled'] === true,
    createdBy: item['createdBy'] as string,
    createdAt: item['createdAt'] as string,
    updatedAt: item['updatedAt'] as string,
    counts: {
      NEW: Number(item['nNew'] ?? 0),
      SAVED: Number(item['nSaved'] ?? 0),
      ARCHIVED: Number(item['nArchived'] ?? 0),
    },
    contacts: Number(item['nContacts'] ?? 0),
    contactCounts: contactCountsOf(item),
    filters: typeof item['filters'] === 'string' ? (JSON.parse(item['filters']) as Filters) : null,
    pending: item['pending'] === true,
  };
}

/** The list item's attributes the import's contact counts write (see the module comment). */
export const CONTACT_COUNTS = 'cc';
export const REVISION = 'rev';

/**
 * The list item's condition that it exists at the revision read: nothing wrote its members or counts
 * since (every such write bumps the revision).
 */
export function revisionCondition(revision: number) {
  return {
    condition: `attribute_exists(pk) AND ${revision === 0 ? `attribute_not_exists(${REVISION})` : `${REVISION} = :rev`}`,
    values: revision === 0 ? {} : { ':rev': revision },
  };
}

/** The list item's map of changed contact counts (absent: none). */
export function contactCountsOf(item: Item | undefined): Record<string, number> {
  const map = (item?.[CONTACT_COUNTS] ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(map).map(([key, n]) => [key, Number(n)]));
}

export function memberItem(
  accountId: string,
  listId: number,
  ref: CompanyRef,
  state: MemberState,
  matchedSince: string,
  contacts: number,
): Item {
  return {
    ...keys.listMember(accountId, listId, ref),
    ...keys.listMembership(accountId, listId, ref),
    entity: 'ListMember',
    state,
    matchedSince,
    contacts,
  };
}

export function orderItem(
  accountId: string,
  listId: number,
  state: MemberState,
  matchedSinceMs: number,
  ref: CompanyRef,
  contacts: number,
): Item {
  return {
    ...keys.listOrder(accountId, listId, state, matchedSinceMs, ref),
    ...keys.listOrderAll(accountId, listId, matchedSinceMs, ref),
    entity: 'ListOrder',
    state,
    contacts,
  };
}

/** A member as read: `contacts` is its count now (the list's `cc` entry, when it has one). */
export interface Member extends OrderEntry {
  state: MemberState;
  /** The count its member item holds (what a write of it is conditional on). */
  storedContacts: number;
  /** Whether its count is the list's `cc` entry (a write of it is conditional on that entry too). */
  mapped: boolean;
}

/** A member item read, with the list's `cc` map read in the same request (`contactCountsOf`). */
export function toMember(item: Item, contactCounts: Record<string, number> = {}): Member {
  const ref = companyOfKey(`COMPANY#${(item['sk'] as string).slice('COMPANY#'.length)}`);
  const stored = Number(item['contacts'] ?? 0);
  const mapped = contactCounts[companyKey(ref)];
  return {
    ref,
    state: item['state'] as MemberState,
    matchedSinceMs: Date.parse(item['matchedSince'] as string),
    contacts: mapped ?? stored,
    storedContacts: stored,
    mapped: mapped !== undefined,
  };
}

export const MEMBER_ATTRIBUTES = ['sk', 'state', 'matchedSince', 'contacts'];
