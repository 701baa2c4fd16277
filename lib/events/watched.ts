/**
 * Which notification-enabled static lists hold a company at the moment its update is derived
 * (contract §12: "lists are the account's notification-enabled lists that held the company when the
 * update was derived"), read for each batch of the import:
 *
 * 1. the watched lists: the `WATCHED_LISTS` partition (one Query, consistent), which the list store
 *    keeps in the same transactions that create, change and delete lists;
 * 2. each watched list's item (BatchGetItem, consistent, keys and counters only): its revision moves in
 *    every transaction that writes its members, so a list whose revision, counters or pending mark did
 *    not move since its companies were read still holds exactly those;
 * 3. the companies (keys only, consistent) of the lists that moved or were never read, kept in memory.
 *
 * So a company added to a watched list a moment before its update is derived is in the event, and an
 * unchanged list costs nothing but its share of step 2. Past `MAX_CACHED_MEMBERS` memberships, each
 * company with updates looks its lists up instead (a keys-only gsi1 Query: as of the index, which
 * DynamoDB keeps within about a second).
 */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { forEachLimited } from '../concurrency';
import { getMemberships, type Membership } from '../lists/store/contact-counts';
import { batchGet, queryAll } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';

/** What says whether a list's companies moved: its revision, counters and pending mark. */
const LIST_STATE = ['pk', 'sk', 'rev', 'nNew', 'nSaved', 'nArchived', 'pending'] as const;

/** Companies whose lists are looked up at once (a Query each), past the limit below. */
const QUERIES_IN_FLIGHT = 16;
/** Past this many memberships of watched lists, companies look their lists up one by one instead. */
const MAX_CACHED_MEMBERS = 500_000;

/** The watched lists as `account#listId`, and whether the backfill of older lists ever ran. */
export interface WatchedLists {
  lists: Set<string>;
  backfilled: boolean;
}

/** The STATIC lists with notifications enabled now (one strongly consistent Query). */
export async function watchedLists(): Promise<WatchedLists> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.watchedLists() },
    ConsistentRead: true,
  });
  const lists = new Set<string>();
  let backfilled = false;
  for (const item of items) {
    if (item['sk'] === keys.watchedListsBackfill().sk) backfilled = true;
    else lists.add(`${String(item['accountId'])}#${String(item['listId'])}`);
  }
  return { lists, backfilled };
}

/** Each watched list's companies as last read, and the state of its item they were read at. */
const read = new Map<string, { state: string; companies: string[] }>();
/** The same, by company: companyKey → the watched lists holding it. */
const byCompany = new Map<string, Membership[]>();
let cachedMembers = 0;

const membershipOf = (list: string): Membership => {
  const at = list.lastIndexOf('#');
  return { accountId: list.slice(0, at), listId: Number(list.slice(at + 1)) };
};

/** The watched lists (of `watched`) holding each company: companyKey → lists. */
export async function watchedListsOf(
  watched: Set<string>,
  companies: CompanyRef[],
  lookUp: (ref: CompanyRef) => Promise<Membership[]> = getMemberships,
): Promise<Map<string, Membership[]>> {
  const found = new Map<string, Membership[]>();
  const cached = await membersOf(watched);
  await forEachLimited(companies, QUERIES_IN_FLIGHT, async (ref) => {
    const key = companyKey(ref);
    const lists = cached
      ? (cached.get(key) ?? [])
      : (await lookUp(ref)).filter((m) => watched.has(`${m.accountId}#${m.listId}`));
    if (lists.length > 0) found.set(key, lists);
  });
  return found;
}

/** The companies of the watched lists, read again for each list that moved; null past the limit. */
async function membersOf(watched: Set<string>): Promise<Map<string, Membership[]> | null> {
  for (const list of [...read.keys()]) if (!watched.has(list)) forget(list);
  const states = await listStates(watched);
  // The lists that moved, read QUERIES_IN_FLIGHT at a time (a new process reads every one).
  await forEachLimited([...watched], QUERIES_IN_FLIGHT, async (list) => {
    const state = states.get(list) ?? 'gone';
    if (read.get(list)?.state === state) return;
    forget(list);
    if (cachedMembers > MAX_CACHED_MEMBERS) return;
    remember(list, state, await companiesOf(membershipOf(list)));
  });
  return cachedMembers > MAX_CACHED_MEMBERS || [...watched].some((l) => !read.has(l)) ? null : byCompany;
}

/** Each list's revision, counters and pending mark, as one text (consistent reads, 100 to a request). */
async function listStates(watched: Set<string>): Promise<Map<string, string>> {
  const items = await batchGet(
    tableName(),
    [...watched].map((list) => {
      const { accountId, listId } = membershipOf(list);
      return keys.list(accountId, listId);
    }),
    { consistent: true, projection: LIST_STATE },
  );
  const states = new Map<string, string>();
  for (const item of items) {
    const accountId = String(item['pk']).slice('ACCOUNT#'.length);
    const listId = String(item['sk']).slice('LIST#'.length);
    const state = LIST_STATE.slice(2)
      .map((a) => String(item[a] ?? ''))
      .join('|');
    states.set(`${accountId}#${listId}`, state);
  }
  return states;
}

async function companiesOf(list: Membership): Promise<string[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: {
      ':pk': keys.listMember(list.accountId, list.listId, { country: 'BE', companyNumber: '' }).pk,
    },
    ProjectionExpression: 'sk',
    ConsistentRead: true,
  });
  return items.map((item) => String(item['sk']).slice('COMPANY#'.length));
}

function remember(list: string, state: string, companies: string[]): void {
  const membership = membershipOf(list);
  read.set(list, { state, companies });
  cachedMembers += companies.length;
  for (const company of companies) byCompany.set(company, [...(byCompany.get(company) ?? []), membership]);
}

function forget(list: string): void {
  const was = read.get(list);
  if (!was) return;
  read.delete(list);
  cachedMembers -= was.companies.length;
  const { accountId, listId } = membershipOf(list);
  for (const company of was.companies) {
    const rest = (byCompany.get(company) ?? []).filter(
      (m) => m.accountId !== accountId || m.listId !== listId,
    );
    if (rest.length > 0) byCompany.set(company, rest);
    else byCompany.delete(company);
  }
}
