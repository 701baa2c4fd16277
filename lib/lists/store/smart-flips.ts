/**
 * What the import's smart-list evaluation stores: lists' flips (companies entering or leaving) at
 * once, the flips the import notes for its completion, and the smart lists it follows (their filters).
 *
 * Cost of one flip (flip-intents.ts has the protocol): its member and order item, put or deleted in
 * BatchWriteItem requests of 25 items across lists (2 items, 0.08 requests), after one consistent read
 * of its member (a key of a BatchGetItem of 100 across lists, rather than a Query of each small list
 * whole: flips touch few members of many lists). Per list per evaluation, whatever its number of flips up to
 * FLIPS_PER_CLAIM: its item read once, one UpdateItem that moves its counters and claims the flips,
 * one that releases them. No transaction.
 */
import { companyKey, type CompanyRef } from '../../companies/identifiers';
import { forEachLimited } from '../../concurrency';
import { backoff, queryAll, queryPartitions } from '../../storage/batch';
import { tableName } from '../../storage/client';
import { StorageUnavailableError } from '../../storage/errors';
import * as keys from '../../storage/keys';
import { companyOfKey, listOfKey, SMART_FLIP_SHARDS } from '../../storage/keys';
import type { Filters } from '../filters';
import { readListCounts, type ListCounts } from './contact-counts';
import { sendTransaction } from '../../storage/transactions';
import { cancellationReasons } from '../../storage/client';
import {
  claimIntent,
  claimUpdate,
  completeIntents,
  LEASE_MS,
  newIntent,
  settleExpired,
  type Intent,
  type ListIntent,
} from './flip-intents';
import { CONFLICT_RETRIES, type Item, type Member, type NewMember } from './model';
import {
  accountHoldUpdate,
  ensureSmartCount,
  holdOf,
  maxSmartCompanies,
  smartCompaniesOf,
} from './smart-holds';

/** Flips of one list in one claim: its intent (about 30 bytes a flip) keeps the list item small. */
const FLIPS_PER_CLAIM = 500;
/** List items claimed at once. */
const LISTS_IN_FLIGHT = 16;

export interface Flipped {
  entered: number;
  left: number;
}

/** A list's companies that should enter as NEW (unless in it already) and those that should leave if NEW. */
export interface FlipTarget {
  accountId: string;
  listId: number;
  entering: NewMember[];
  stopping: CompanyRef[];
  /**
   * The filters (JSON, as the list item stores them) the flips were evaluated against: a list whose
   * filters changed since is left alone (the newer filters' evaluation decides). Absent: any.
   */
  filters?: string;
}

/**
 * Lists' flips at once (§7.6): the companies `entering` each list enter as NEW at `now` unless they
 * are in it already (in any state), and those of `stopping` that are NEW leave (SAVED and ARCHIVED
 * ones stay). In rounds: the lists and their companies' members are read (consistent, list items
 * first); each list with flips is claimed (flip-intents.ts: counters moved once, conditional on the
 * revision read), a smart list's claim moving its account's count of smart-list companies in the same
 * transaction (smart-holds.ts: the lists of one account are claimed one after the other, so they do not
 * conflict on that count); the claimed flips of every list are written together in BatchWriteItem
 * requests; each list is released. A list whose revision moved meanwhile (a user's move, a contact
 * count, another import) is read again in the next round, after a backoff: what is there now decides,
 * so applying the same flips again (a resumed import) changes nothing. A list met with another
 * writer's intent waits for it (taking it over past its lease); a list gone is skipped. Where the
 * account's bound leaves room for fewer companies than enter, only that many enter (the rest are left
 * out, and logged).
 */
export async function flipLists(targets: FlipTarget[], now: Date): Promise<Flipped> {
  const result: Flipped = { entered: 0, left: 0 };
  // Each company once per list: a batch may not write one item twice.
  const unique = <T>(items: T[], ref: (item: T) => CompanyRef) => [
    ...new Map(items.map((item) => [companyKey(ref(item)), item])).values(),
  ];
  let pending = targets
    .map((t) => ({
      ...t,
      entering: unique(t.entering, (m) => m.ref),
      stopping: unique(t.stopping, (r) => r),
    }))
    .filter((t) => t.entering.length + t.stopping.length > 0);
  const giveUp = Date.now() + 2 * LEASE_MS;
  for (let contended = 0; pending.length > 0;) {
    // Each round reads the members of one claim's part per list, not of every flip left: a list with
    // 10,000 flips reads each member once over its 20 claims, not 20 times the ones still to come.
    const parts = pending.map((target) => ({ target, part: partOf(target) }));
    const byKey = new Map(parts.map((p) => [`${p.target.accountId}#${p.target.listId}`, p]));
    const lists = await readListCounts(
      parts.map(({ target, part }) => ({
        ...target,
        refs: [...part.entering.map((m) => m.ref), ...part.stopping],
      })),
    );
    const claimed: ListIntent[] = [];
    const again: FlipTarget[] = [];
    let waiting = false;
    let conflict = false;
    const byAccount = new Map<string, ListCounts[]>();
    for (const list of lists) byAccount.set(list.accountId, [...(byAccount.get(list.accountId) ?? []), list]);
    const claimOne = async (list: ListCounts) => {
      const { target, part } = byKey.get(`${list.accountId}#${list.listId}`)!;
      if (target.filters !== undefined && list.filters !== target.filters) return;
      if (list.intent) {
        await settleExpired(list.accountId, list.listId, list.intent);
        waiting = true;
        again.push(target);
        return;
      }
      const rest = { ...target, ...restOf(target, part) };
      // The rest in the next round (its members read then), without waiting.
      const goOn = () => {
        if (rest.entering.length + rest.stopping.length > 0) again.push(rest);
      };
      const members = new Map(list.members.map((m) => [companyKey(m.ref), m]));
      const enter = part.entering.filter((m) => !members.has(companyKey(m.ref)));
      const leave = part.stopping.flatMap((ref) => {
        const member = members.get(companyKey(ref));
        return member?.state === 'NEW' ? [member] : [];
      });
      if (enter.length + leave.length === 0) return goOn();
      const intent = newIntent(now.getTime(), enter, leave);
      const outcome = await claim(list, intent, leave, now, target.filters);
      if (outcome === 'claimed') {
        claimed.push({ accountId: list.accountId, listId: list.listId, intent });
        return goOn();
      }
      if (outcome === 'full') {
        // An account whose smart lists predate the count has them summed first (then there may be room).
        await ensureSmartCount(list.accountId);
        const room = await roomFor(list, leave.length);
        // The rest's companies not in the list yet (read now: a list at its bound is rare), so that
        // exactly those past the room are left out and logged.
        const entering = [...enter, ...(await notListedOf(list, rest.entering))];
        logLeftOut(list, entering.length - room);
        target.entering = entering.slice(0, room);
      }
      conflict = true;
      again.push(target);
    };
    await forEachLimited([...byAccount.values()], LISTS_IN_FLIGHT, async (accountLists) => {
      for (const list of accountLists) await claimOne(list);
    });
    for (const { intent } of await completeIntents(claimed)) {
      result.entered += intent.entering.length;
      result.left += intent.leaving.length;
    }
    pending = again;
    if (conflict) contended++;
    if (conflict || waiting) {
      // Contention for a list item (bounded in rounds), or another writer's intent (a lease at most).
      if (contended >= CONFLICT_RETRIES.maxAttempts || Date.now() > giveUp)
        throw new StorageUnavailableError();
      await backoff(contended + 1, CONFLICT_RETRIES.baseMs, CONFLICT_RETRIES.maxMs);
    }
  }
  return result;
}

/** The flips of a list that one claim decides: its first FLIPS_PER_CLAIM companies, entering first. */
function partOf(target: FlipTarget): Pick<FlipTarget, 'entering' | 'stopping'> {
  const entering = target.entering.slice(0, FLIPS_PER_CLAIM);
  return { entering, stopping: target.stopping.slice(0, FLIPS_PER_CLAIM - entering.length) };
}

/** The flips after `part`. */
const restOf = (target: FlipTarget, part: Pick<FlipTarget, 'entering' | 'stopping'>) => ({
  entering: target.entering.slice(part.entering.length),
  stopping: target.stopping.slice(part.stopping.length),
});

/** Those of `entering` not in the list (its members read, consistent). */
async function notListedOf(list: ListCounts, entering: NewMember[]): Promise<NewMember[]> {
  if (entering.length === 0) return [];
  const [read] = await readListCounts([
    { accountId: list.accountId, listId: list.listId, refs: entering.map((m) => m.ref) },
  ]);
  const members = new Set(read?.members.map((m) => companyKey(m.ref)) ?? []);
  return entering.filter((m) => !members.has(companyKey(m.ref)));
}

/** One list's flips (`flipLists` for one list). */
export function flipMembers(
  accountId: string,
  listId: number,
  entering: NewMember[],
  stopping: CompanyRef[],
  now: Date,
): Promise<Flipped> {
  return flipLists([{ accountId, listId, entering, stopping }], now);
}

/**
 * The claim of a list's flips (flip-intents.ts): NEW and `nContacts` move by them; members leaving
 * take their `cc` entries along (the map read, without them, is written back whole). A smart list's
 * claim moves its account's count of smart-list companies by what its hold changes, in the same
 * transaction (`full`: the bound leaves no room for that).
 */
async function claim(
  list: ListCounts,
  intent: Intent,
  leaving: Member[],
  now: Date,
  filters: string | undefined,
): Promise<'claimed' | 'changed' | 'full'> {
  const contacts =
    intent.entering.reduce((n, m) => n + m.contacts, 0) - leaving.reduce((n, m) => n + m.contacts, 0);
  const mapped = new Set(leaving.filter((m) => m.mapped).map((m) => companyKey(m.ref)));
  const contactCounts =
    mapped.size > 0
      ? Object.fromEntries(Object.entries(list.contactCounts).filter(([key]) => !mapped.has(key)))
      : null;
  const companies = list.companies + intent.entering.length - leaving.length;
  const held = list.held === null ? undefined : Math.max(list.held, companies);
  const owner = { accountId: list.accountId, listId: list.listId, intent };
  const changes = {
    counters: { NEW: intent.entering.length - leaving.length },
    contacts,
    contactCounts,
    now,
    ...(filters === undefined ? {} : { filters }),
    ...(held === undefined ? {} : { held }),
  };
  const delta =
    list.filters === null ? 0 : holdOf(companies, held ?? null) - holdOf(list.companies, list.held);
  if (delta === 0) return (await claimIntent(owner, list.revision, changes)) ? 'claimed' : 'changed';
  try {
    await sendTransaction([
      { Update: claimUpdate(owner, list.revision, changes) },
      accountHoldUpdate(list.accountId, delta),
    ]);
    return 'claimed';
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    return reasons[0] !== 'ConditionalCheckFailed' && reasons[1] === 'ConditionalCheckFailed'
      ? 'full'
      : 'changed';
  }
}

/** How many companies may enter the list within its account's bound, `leaving` taken out with them. */
async function roomFor(list: ListCounts, leaving: number): Promise<number> {
  const room = maxSmartCompanies() - (await smartCompaniesOf(list.accountId));
  return Math.max(0, room + holdOf(list.companies, list.held) - list.companies + leaving);
}

function logLeftOut(list: ListCounts, leftOut: number): void {
  if (leftOut <= 0) return;
  console.warn(
    JSON.stringify({
      level: 'WARN',
      message: "smart-list companies left out: the account's smart lists are at their bound",
      accountId: list.accountId,
      listId: list.listId,
      leftOut,
      bound: maxSmartCompanies(),
    }),
  );
}

/** A changed company entering or leaving a smart list, as the import's derivation found it. */
export interface SmartListFlip {
  /** The item that holds it (with the company's other flips of the same change). */
  key: { pk: string; sk: string };
  accountId: string;
  listId: number;
  ref: CompanyRef;
  /** The company's filter profile after the change (packed) and its contacts. */
  packed: string;
  contacts: number;
  /** Whether it matched the list before the change. */
  matched: boolean;
  /** When it was derived (ms): of two flips of one company and list, the later counts. */
  at: number;
}

/** One item for all the flips of one change of a company: what they share once, then each list. */
export function smartListFlipsItem(
  { ref, packed, contacts, at }: Pick<SmartListFlip, 'ref' | 'packed' | 'contacts' | 'at'>,
  lists: Pick<SmartListFlip, 'accountId' | 'listId' | 'matched'>[],
  change: string,
): Item {
  return {
    ...keys.smartListFlip(ref, change),
    entity: 'SmartListFlips',
    p: packed,
    c: contacts,
    at,
    l: JSON.stringify(lists.map((l) => [l.accountId, l.listId, l.matched ? 1 : 0])),
  };
}

/** Every flip waiting for the import's completion: one Query per shard, in parallel, consistent. */
export async function getSmartListFlips(): Promise<SmartListFlip[]> {
  const items = await queryPartitions(
    Array.from({ length: SMART_FLIP_SHARDS }, (_, shard) => keys.smartListFlips(shard)),
  );
  return items.flatMap((item) => {
    const key = { pk: item['pk'] as string, sk: item['sk'] as string };
    const lists = JSON.parse(item['l'] as string) as [string, number, 0 | 1][];
    return lists.map(([accountId, listId, matched]) => ({
      key,
      accountId,
      listId,
      ref: companyOfKey(key.sk),
      packed: item['p'] as string,
      contacts: Number(item['c'] ?? 0),
      matched: matched === 1,
      at: Number(item['at']),
    }));
  });
}

export interface SmartListEntry {
  accountId: string;
  listId: number;
  filters: Filters;
}

/** Every smart list's filters, across accounts (the import only; one partition, a Query). */
export async function getSmartLists(): Promise<SmartListEntry[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.smartLists() },
  });
  return items.map((item) => ({
    ...listOfKey(item['sk'] as string),
    filters: JSON.parse(item['filters'] as string) as Filters,
  }));
}
