/**
 * Reading lists (contract §7.1–§7.4): the overview, a list's companies and its contacts, each only for
 * a caller who may see the list — a list of its own account that is shared or that it created. Any
 * other id answers exactly like a missing one: 404 `List not found`.
 *
 * What a page costs (DynamoDB round trips, in sequence): the overview 1 (one Query of the account's
 * lists); a page of companies or contacts 3 whatever the offset — the list item (visibility, the
 * totals), one Query of the order from its nearer end (store/pages.ts `getOrderSlice`), one BatchGet of the
 * page's companies.
 */
import { toIdentifier } from '../companies/company';
import { companyKey } from '../companies/identifiers';
import { ListNotFound } from '../errors';
import type { Caller } from '../tokens/caller';
import { paginate, type PageRequest } from '../http/pagination';
import type { CompanyType, ListAnswer, ListCompaniesPage, ListContactsPage, OverviewType } from './schemas';
import { getAccountLists, getList } from './store/lists';
import { MEMBER_STATES, type StoredList } from './store/model';
import { getContactSlice, getListedCompanies, getOrderSlice } from './store/pages';
import { byContactName } from '../companies/contact-order';
import { isListVisibleTo } from './visibility';

/** Contract §7.1 (./visibility.ts): own account, and shared or created by the caller. */
const canSee = (caller: Caller, list: StoredList) =>
  isListVisibleTo(list, caller.accountId, caller.userEmail);

/** The list if the caller may see it; else 404, the same for a missing and an invisible list. */
export async function visibleList(caller: Caller, listId: number): Promise<StoredList> {
  const list = await getList(caller.accountId, listId);
  if (!list || !canSee(caller, list)) throw new ListNotFound();
  return list;
}

export function toListAnswer(list: StoredList): ListAnswer {
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
  const list = await visibleList(caller, listId);
  const total =
    query.type === 'ALL' ? MEMBER_STATES.reduce((n, s) => n + list.counts[s], 0) : list.counts[query.type];
  const page = await getOrderSlice(caller.accountId, listId, query.type, {
    offset: query.offset,
    count: query.limit,
    total,
  });
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
  const list = await visibleList(caller, listId);
  const { covering, first } = await getContactSlice(
    caller.accountId,
    listId,
    list.type,
    { offset: query.offset, count: query.limit, total: list.contacts },
    list.contactCounts,
  );
  const companies = await getListedCompanies(
    covering.map((entry) => entry.ref),
    true,
  );
  const contacts = covering.flatMap((entry) => {
    const company = companies.get(companyKey(entry.ref));
    if (!company) return [];
    return [...company.contacts].sort(byContactName).map((contact) => ({
      jobTitle: contact.jobTitle ?? null,
      identifier: { contactId: contact.contactId, firstName: contact.firstName, lastName: contact.lastName },
      company: toIdentifier(company),
    }));
  });
  const data = contacts.slice(Math.max(0, query.offset - first), query.offset + query.limit - first);
  return { data, pagination: { limit: query.limit, offset: query.offset, total: list.contacts } };
}
