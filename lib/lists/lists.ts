/**
 * Reading lists (contract §7.1–§7.4): the overview, a list's companies and its contacts, each only for
 * a caller who may see the list — a list of its own account that is shared or that it created. Any
 * other id answers exactly like a missing one: 404 `List not found`.
 *
 * What a page costs (DynamoDB round trips, in sequence):
 * - overview: 1 (one Query of the account's lists);
 * - companies: 2 — the list item and the state partitions' Queries in parallel (Limit offset+limit,
 *   keys only: an offset of 9,000 reads 9,500 order items of ~70 bytes, one Query page each), then one
 *   BatchGet of the page's companies (name, place);
 * - contacts: 2 — the list item and the non-archived order partitions in parallel (every member's
 *   contact count, so the page's companies are known without reading their contacts), then one
 *   BatchGet of the page's companies with their contacts.
 * A Query page holds 1 MB, about 14,000 order items: past that a Query takes one round trip more.
 */
import { toIdentifier } from '../companies/company';
import { companyKey } from '../companies/identifiers';
import { NotFoundError } from '../http/errors';
import type { Caller } from '../http/caller';
import { paginate, type PageRequest } from '../http/pagination';
import type { CompanyType, ListAnswer, ListCompaniesPage, ListContactsPage, OverviewType } from './schemas';
import {
  getAccountLists,
  getList,
  getListedCompanies,
  getOrder,
  MEMBER_STATES,
  type MemberState,
  type OrderEntry,
  type StoredContact,
  type StoredList,
} from './store';
import { byCodePoint } from '../order';

const LIST_NOT_FOUND = 'List not found';

/** Contract §7.1: own account (by the key), and shared or created by the caller. */
const canSee = (caller: Caller, list: StoredList) =>
  list.accountId === caller.accountId && (list.shared || list.createdBy === caller.userEmail);

/** The list if the caller may see it; else 404, the same for a missing and an invisible list. */
export async function visibleList(caller: Caller, listId: number): Promise<StoredList> {
  const list = await getList(caller.accountId, listId);
  if (!list || !canSee(caller, list)) throw new NotFoundError(LIST_NOT_FOUND);
  return list;
}

function toListAnswer(list: StoredList): ListAnswer {
  return {
    id: list.id,
    name: list.name,
    type: list.type,
    columns: list.columns as ListAnswer['columns'],
    shared: list.shared,
    notifications: { enabled: list.type === 'SMART' ? false : list.notificationsEnabled },
    amountOfCompanies: list.counts.SAVED + list.counts.NEW,
    newResults: list.type === 'SMART' ? list.counts.NEW : null,
    updatedAt: list.updatedAt,
    createdAt: list.createdAt,
    createdBy: list.createdBy,
  };
}

/** §7.2: `updatedAt` descending, ties by id. */
export async function getLists(caller: Caller, query: { type: OverviewType } & PageRequest) {
  const lists = (await getAccountLists(caller.accountId))
    .filter((list) => canSee(caller, list) && (query.type === 'OVERVIEW' || list.type === query.type))
    .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id - b.id));
  return paginate(lists.map(toListAnswer), query);
}

/** §7.3: `matchedSince` descending, then country and number (the order items' key order). */
export async function getListCompanies(
  caller: Caller,
  listId: number,
  query: { type: CompanyType } & PageRequest,
): Promise<ListCompaniesPage> {
  const { type } = query;
  const states: readonly MemberState[] = type === 'ALL' ? MEMBER_STATES : [type];
  const wanted = query.offset + query.limit;
  // Read in parallel with the list; nothing of it is shown unless the caller may see the list.
  const [list, ordered] = await Promise.all([
    visibleList(caller, listId),
    mergedOrder(caller.accountId, listId, states, wanted),
  ]);
  const total = states.reduce((sum, state) => sum + list.counts[state], 0);
  const page = ordered.slice(query.offset, wanted);
  const companies = await getListedCompanies(
    page.map((entry) => entry.ref),
    false,
  );
  return {
    data: page.flatMap((entry) => {
      const company = companies.get(companyKey(entry.ref));
      // Companies are never deleted; a member without its company would be a bug, not a 500.
      return company
        ? [{ identifier: toIdentifier(company), matchedSince: new Date(entry.matchedSinceMs).toISOString() }]
        : [];
    }),
    pagination: { limit: query.limit, offset: query.offset, total },
  };
}

/**
 * §7.4: the contacts of the companies that are not ARCHIVED, in the list's company order, then
 * lastName, firstName, contactId (compared by code point: the same order on every machine).
 */
export async function getListContacts(
  caller: Caller,
  listId: number,
  query: PageRequest,
): Promise<ListContactsPage> {
  const [list, ordered] = await Promise.all([
    visibleList(caller, listId),
    mergedOrder(caller.accountId, listId, ['SAVED', 'NEW']),
  ]);
  // The companies whose contacts overlap [offset, offset + limit), by the members' contact counts.
  const end = query.offset + query.limit;
  const covering: OrderEntry[] = [];
  let first = 0;
  let seen = 0;
  for (const entry of ordered) {
    if (seen >= end) break;
    if (seen + entry.contacts > query.offset) {
      if (covering.length === 0) first = seen;
      covering.push(entry);
    }
    seen += entry.contacts;
  }
  const companies = await getListedCompanies(
    covering.map((entry) => entry.ref),
    true,
  );
  const contacts = covering.flatMap((entry) => {
    const company = companies.get(companyKey(entry.ref));
    if (!company) return [];
    return [...company.contacts].sort(byName).map((contact) => ({
      jobTitle: contact.jobTitle ?? null,
      identifier: { contactId: contact.contactId, firstName: contact.firstName, lastName: contact.lastName },
      company: toIdentifier(company),
    }));
  });
  const data = contacts.slice(query.offset - first, end - first);
  return { data, pagination: { limit: query.limit, offset: query.offset, total: list.contacts } };
}

/** The first `limit` members over the given states, in the contract's order (all without `limit`). */
async function mergedOrder(
  accountId: string,
  listId: number,
  states: readonly MemberState[],
  limit?: number,
): Promise<OrderEntry[]> {
  const parts = await Promise.all(states.map((state) => getOrder(accountId, listId, state, limit)));
  const merged = parts.flat().sort(byListOrder);
  return limit === undefined ? merged : merged.slice(0, limit);
}

function byListOrder(a: OrderEntry, b: OrderEntry): number {
  return (
    b.matchedSinceMs - a.matchedSinceMs ||
    byCodePoint(a.ref.country, b.ref.country) ||
    byCodePoint(a.ref.companyNumber, b.ref.companyNumber)
  );
}

function byName(a: StoredContact, b: StoredContact): number {
  return (
    byCodePoint(a.lastName, b.lastName) || byCodePoint(a.firstName, b.firstName) || a.contactId - b.contactId
  );
}
