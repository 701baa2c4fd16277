/**
 * The events derivation (contract §12), run by the import at its one derivation point for each batch
 * of changed companies, after the holdings (so every company's legal entity id is stored): the updates
 * each change derives (lib/updates/derive.ts, the same pure rules the update feed is written from),
 * and for each account whose notification-enabled static lists hold the company now, one event per
 * update, naming those lists.
 *
 * - **Only from now on**: events come from updates as they are derived; enabling notifications on a
 *   list replays nothing.
 * - **Never twice**: an event's id is its account's and its update's (lib/events/event.ts); a batch
 *   derived again (a resumed import) finds its block of numbers by its change id and writes the same
 *   events under the same numbers (lib/events/store.ts).
 * - **Cost**: per batch one Query of the watched lists (`WATCHED_LISTS`, written with the lists): when
 *   there are none, nothing more. Else the companies of every watched list, read keys only and kept in
 *   memory for `MEMBERS_FRESH_MS` (read again at once when the watched lists change), so a big import
 *   reads them a few times, not once per company; past `MAX_CACHED_MEMBERS` memberships, each company
 *   with updates looks its lists up instead (a keys-only gsi1 Query). Per account with events, one
 *   reservation (a read and a three-item transaction) and its events in BatchWriteItem requests of 25.
 *   Membership is thus as of at most a few seconds before the derivation.
 */
import { getRelationshipsOf } from '../companies/holdings-store';
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { forEachLimited } from '../concurrency';
import type { CompanyChange, Derived } from '../import/change';
import { getMemberships, type Membership } from '../lists/store/contact-counts';
import { queryAll } from '../storage/batch';
import { tableName } from '../storage/client';
import { keys } from '../storage/keys';
import { deriveUpdates, type Update } from '../updates/derive';
import { companyUpdateEvent, eventId, type CompanyUpdateEvent } from './event';
import { reserveBlock, writeBlock } from './store';

/** Companies whose lists are looked up at once (a Query each). */
const QUERIES_IN_FLIGHT = 16;
/** How long the watched lists' companies read are used before they are read again. */
export const MEMBERS_FRESH_MS = 5000;
/** Past this many memberships of watched lists, companies look their lists up one by one instead. */
const MAX_CACHED_MEMBERS = 500_000;

/** The companies of the watched lists as last read: companyKey → the lists (`account#listId`) holding it. */
let cached: { watched: string; readAt: number; lists: Map<string, Membership[]> | null } | null = null;

interface Watched {
  change: CompanyChange;
  updates: Update[];
  /** The account's notification-enabled static lists holding the company, by account. */
  lists: Map<string, number[]>;
}

export interface EventsDerived {
  /** Events written, per account. */
  events: Map<string, number>;
}

export async function deriveEvents(changes: CompanyChange[]): Promise<Derived> {
  await deriveAndWriteEvents(changes);
  // Events are no updates (§8): the import's count of updates stays the update feed's.
  return { updates: 0 };
}

/** The derivation itself, answering what it wrote (the tests read it). */
export async function deriveAndWriteEvents(
  changes: CompanyChange[],
  now: () => Date = () => new Date(),
): Promise<EventsDerived> {
  const withUpdates = changes
    .map((change) => ({ change, updates: deriveUpdates(change.before, change.after, change.asOf) }))
    .filter((c) => c.updates.length > 0);
  const watched = await watchedBy(withUpdates);
  if (watched.length === 0) return { events: new Map() };
  const legalEntityIds = await legalEntityIdsOf(watched.map((w) => w.change));

  // Each account's events, in a fixed order (company, then update id), so a resumed batch numbers them alike.
  const byAccount = new Map<
    string,
    Array<{ ref: CompanyRef; update: Update; lists: number[]; w: Watched }>
  >();
  for (const w of watched) {
    for (const [accountId, lists] of w.lists) {
      const events = byAccount.get(accountId) ?? [];
      for (const update of w.updates) events.push({ ref: w.change.after, update, lists, w });
      byAccount.set(accountId, events);
    }
  }
  const written = new Map<string, number>();
  const changeId = changes[0]!.changeId;
  await Promise.all(
    [...byAccount].map(async ([accountId, pending]) => {
      pending.sort(
        (a, b) =>
          compareText(companyKey(a.ref), companyKey(b.ref)) ||
          a.update.id.length - b.update.id.length ||
          compareText(a.update.id, b.update.id),
      );
      const ids = pending.map(({ update }) => eventId(accountId, update.id));
      const block = await reserveBlock(accountId, changeId, ids, now);
      const events: CompanyUpdateEvent[] = pending.map(({ ref, update, lists, w }) =>
        companyUpdateEvent(accountId, {
          company: {
            country: ref.country,
            companyNumber: ref.companyNumber,
            name: w.change.after.name,
            place: w.change.after.place,
          },
          legalEntityId: legalEntityIds.get(companyKey(ref))!,
          lists,
          update,
          createdAt: block.createdAt,
        }),
      );
      await writeBlock(
        accountId,
        block,
        events.map((event) => ({ id: event.id, body: JSON.stringify(event) })),
      );
      const named = new Set(block.ids);
      written.set(accountId, events.filter((e) => named.has(e.id)).length);
    }),
  );
  return { events: written };
}

/**
 * The changes whose company is in a notification-enabled static list now, with those lists per
 * account: the lists of each company (gsi1, keys only), then the lists themselves, each read once.
 */
async function watchedBy(changes: Array<{ change: CompanyChange; updates: Update[] }>): Promise<Watched[]> {
  if (changes.length === 0) return [];
  const notifying = await watchedLists();
  if (notifying.size === 0) return [];
  const memberships = new Map<CompanyChange, Membership[]>();
  const members = await membersOf(notifying);
  await forEachLimited(changes, QUERIES_IN_FLIGHT, async ({ change }) => {
    const lists = members
      ? (members.get(companyKey(change.after)) ?? [])
      : await getMemberships(change.after);
    if (lists.length > 0) memberships.set(change, lists);
  });
  const watched: Watched[] = [];
  for (const { change, updates } of changes) {
    const lists = new Map<string, number[]>();
    for (const { accountId, listId } of memberships.get(change) ?? []) {
      if (!notifying.has(`${accountId}#${listId}`)) continue;
      lists.set(accountId, [...(lists.get(accountId) ?? []), listId]);
    }
    if (lists.size > 0) watched.push({ change, updates, lists });
  }
  return watched;
}

/** The STATIC lists with notifications enabled now, as `account#listId` (one strongly consistent Query). */
async function watchedLists(): Promise<Set<string>> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.watchedLists() },
    ConsistentRead: true,
  });
  return new Set(items.map((i) => `${String(i['accountId'])}#${String(i['listId'])}`));
}

/**
 * Each company of the watched lists and the watched lists holding it (see `cached`), or null when
 * they hold too many to keep in memory (then each company's lists are looked up).
 */
async function membersOf(watched: Set<string>): Promise<Map<string, Membership[]> | null> {
  const key = [...watched].sort().join(' ');
  if (cached && cached.watched === key && Date.now() - cached.readAt < MEMBERS_FRESH_MS) return cached.lists;
  const readAt = Date.now();
  const lists = new Map<string, Membership[]>();
  let total = 0;
  for (const list of watched) {
    const at = list.lastIndexOf('#');
    const membership = { accountId: list.slice(0, at), listId: Number(list.slice(at + 1)) };
    const items = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: {
        ':pk': keys.listMember(membership.accountId, membership.listId, { country: 'BE', companyNumber: '' })
          .pk,
      },
      ProjectionExpression: 'sk',
    });
    total += items.length;
    if (total > MAX_CACHED_MEMBERS) {
      cached = { watched: key, readAt, lists: null };
      return null;
    }
    for (const item of items) {
      const company = String(item['sk']).slice('COMPANY#'.length);
      lists.set(company, [...(lists.get(company) ?? []), membership]);
    }
  }
  cached = { watched: key, readAt, lists };
  return lists;
}

/** Each change's legal entity id: the import's, else the one the holdings derivation stored just before. */
async function legalEntityIdsOf(changes: CompanyChange[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const missing: CompanyRef[] = [];
  for (const change of changes) {
    if (change.legalEntityId) ids.set(companyKey(change.after), change.legalEntityId);
    else missing.push(change.after);
  }
  if (missing.length > 0) {
    for (const [key, stored] of await getRelationshipsOf(missing)) ids.set(key, stored.legalEntityId);
  }
  return ids;
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
