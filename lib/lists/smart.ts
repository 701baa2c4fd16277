/**
 * Smart lists follow the data (contract §7.6). `evaluateSmartLists` is the one evaluation: given
 * smart lists and candidate companies (their filter profiles, and whether each may be in the list
 * already), the companies that match and are not in the list enter as NEW with `matchedSince` = now;
 * NEW ones that no longer match leave; SAVED and ARCHIVED ones stay (a dismissed company never comes
 * back as NEW). Three callers:
 *
 * - creating a list or changing its filters (lib/lists/manage.ts): the request evaluates its NEW
 *   members and its candidates (smart-bounds.ts, smart-candidates.ts), whole when they are few enough;
 * - the smart-list worker (smart-background.ts): the rest, a bounded slice a turn;
 * - the import (lib/import/derive.ts): its derivation (`deriveSmartLists`, for every changed company)
 *   notes the smart lists the company enters or leaves, among those it could touch only; its
 *   completion (`applySmartListFlips`) evaluates them per list when the run ends.
 *
 * Cost. Evaluating a whole list reads its candidates' filter profiles (about 60 bytes a company: the
 * entries of its NACE codes, places or a range in a figure's tail, or every profile of its countries,
 * whichever the counts say is fewer), a bounded slice a request or a worker's turn, and writes its new members. An import finds the lists a changed
 * company could touch in memory: every smart list is filed under its countries × NACE divisions
 * (`filterBuckets`), and a company looks up only its own country × its divisions (plus the lists
 * without a country or activity criterion), before and after the change; only those are evaluated,
 * and only a company whose match flips writes (one note item per company, put with its batch, deleted
 * by the completion). The completion reads the flipping companies' members (by key across lists), then
 * per list one UpdateItem that moves its counters for all its
 * flips and one that releases them, and for every flip its member and order item in BatchWriteItem
 * requests across lists (store/flip-intents.ts): 2 items and 0.08 requests a flip, no transaction. So an import
 * costs O(changed companies × lists filed under their buckets) filter checks in memory and O(flips)
 * member writes plus O(lists flipped) counter updates, plus one Query of the smart lists per import
 * batch.
 */
import { randomUUID } from 'node:crypto';
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { batchDelete } from '../storage/batch';
import { tableName } from '../storage/client';
import type { CompanyRecord } from '../companies/record';
import type { CompanyChange, Derived } from '../derivation/change';
import {
  companyBuckets,
  filterBuckets,
  filterProfileOf,
  matchesFilters,
  packProfile,
  unpackProfile,
  type FilterProfile,
  type Filters,
} from './filters';
import { revealList, writeHiddenMembers } from './store/lists';
import type { StoredList } from './store/model';
import { filterProfileItem, filterProfileKey, profileEntryItems, profileEntryKeys } from './store/profiles';
import {
  flipLists,
  getSmartListFlips,
  getSmartLists,
  smartListFlipsItem,
  type FlipTarget,
  type SmartListEntry,
  type SmartListFlip,
} from './store/smart-flips';

export interface Candidate {
  ref: CompanyRef;
  profile: FilterProfile;
  /** Contacts of the company (they count towards the list's contacts while it is not ARCHIVED). */
  contacts: number;
  /**
   * Whether the company may be in the list already: false skips the leave check (it cannot be
   * there), true skips the enter (it is there, in some state); undefined checks both.
   */
  listed?: boolean;
}

export interface Evaluated {
  entered: number;
  left: number;
}

type SmartList = Pick<StoredList, 'accountId' | 'id' | 'pending'> & { filters: Filters };

export interface Target {
  list: SmartList;
  candidates: Candidate[];
  /**
   * A new (pending) list whose evaluation these candidates complete: its hold of the account's bound
   * (`held`, store/smart-holds.ts) gives way to its companies when it appears.
   */
  completes?: { held: number };
}

/**
 * The one evaluation of §7.6 (see the module comment), over one list and many companies (creation,
 * filter change) or many lists and a few companies each (the import's completion). The flips of
 * every list are written together (smart-flips.ts `flipLists`: the members in BatchWriteItem requests
 * across lists, each list's counters moved by one update), never a transaction per company.
 */
export async function evaluateSmartLists(targets: Target[], now: Date): Promise<Evaluated> {
  const result: Evaluated = { entered: 0, left: 0 };
  const flips: FlipTarget[] = [];
  for (const { list, candidates, completes } of targets) {
    const entering: Candidate[] = [];
    const stopping: Candidate[] = [];
    for (const candidate of candidates) {
      const matches = matchesFilters(list.filters, candidate.profile);
      if (matches && candidate.listed !== true) entering.push(candidate);
      else if (!matches && candidate.listed !== false) stopping.push(candidate);
    }
    const members = entering.map(({ ref, contacts }) => ({ ref, contacts }));
    if (list.pending) {
      // A new list nobody can see yet: its members first, then it appears with exact counters.
      await writeHiddenMembers(list as StoredList, members, 'NEW', now);
      const contacts = members.reduce((n, m) => n + m.contacts, 0);
      await revealList(
        list as StoredList,
        { NEW: members.length, SAVED: 0, ARCHIVED: 0 },
        contacts,
        completes,
      );
      result.entered += members.length;
    } else if (members.length > 0 || stopping.length > 0) {
      flips.push({
        accountId: list.accountId,
        listId: list.id,
        entering: members,
        stopping: stopping.map((c) => c.ref),
        // Evaluated against these filters: a list whose filters changed since is the newer change's.
        filters: JSON.stringify(list.filters),
      });
    }
  }
  const flipped = await flipLists(flips, now);
  return { entered: result.entered + flipped.entered, left: result.left + flipped.left };
}

// ---- The import's caller ---------------------------------------------------------------------------

/** The smart lists filed by bucket (`filterBuckets`), read at most once per SMART_LISTS_MAX_AGE_MS. */
let filed: { at: number; byBucket: Map<string, SmartListEntry[]> } | null = null;
const SMART_LISTS_MAX_AGE_MS = 2_000;

async function smartListsByBucket(): Promise<Map<string, SmartListEntry[]>> {
  if (filed && Date.now() - filed.at < SMART_LISTS_MAX_AGE_MS) return filed.byBucket;
  const byBucket = new Map<string, SmartListEntry[]>();
  for (const list of await getSmartLists()) {
    for (const bucket of filterBuckets(list.filters))
      byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), list]);
  }
  filed = { at: Date.now(), byBucket };
  return byBucket;
}

/** Forget the filed smart lists (a list was created, changed or deleted in this process). */
export function forgetSmartLists(): void {
  filed = null;
}

/** The smart lists a company with these profiles could match, each once. */
function listsTouching(byBucket: Map<string, SmartListEntry[]>, profiles: FilterProfile[]): SmartListEntry[] {
  const found = new Map<string, SmartListEntry>();
  for (const profile of profiles) {
    for (const bucket of companyBuckets(profile)) {
      for (const list of byBucket.get(bucket) ?? []) found.set(`${list.accountId}#${list.listId}`, list);
    }
  }
  return [...found.values()];
}

/**
 * The derivation (contract §11.2, §7.6): the company's filter profile and its entries (under its NACE
 * codes and its place) follow the new record — entries it no longer has deleted, none written when
 * neither the profile nor its contacts changed — and the smart lists it could touch whose match it
 * flips (entering or leaving) are noted, all in one item.
 * Both are unconditional puts the import makes in BatchWriteItem requests for the whole batch; the flips are
 * applied by `applySmartListFlips` when the import run ends (before it returns), so an import with
 * many flips into one list moves its counters once and writes its members in batches shared by all
 * lists, not a write per company.
 */
export async function deriveSmartLists({ before, after, gone }: CompanyChange): Promise<Derived> {
  const ref = refOf(after);
  const previous = before ? filterProfileOf(before) : null;
  const had = previous ? profileEntryKeys(ref, previous) : [];
  // An erased company (§11.5.6): no filter profile, so no list matches it again (lib/lists/derive.ts
  // takes it out of the lists it is in).
  if (gone) return { updates: 0, writes: { puts: [], deletes: [filterProfileKey(ref), ...had] } };
  const next = filterProfileOf(after);
  const packed = packProfile(next);
  const contacts = after.contacts.length;
  // The stored profile and its entries are the previous record's: an unchanged profile writes nothing.
  if (previous && before && packProfile(previous) === packed && before.contacts.length === contacts)
    return { updates: 0 };
  const puts = [filterProfileItem(ref, packed, contacts), ...profileEntryItems(ref, next, packed, contacts)];
  const has = new Set(puts.map(({ pk, sk }) => `${String(pk)}|${String(sk)}`));
  const deletes = had.filter(({ pk, sk }) => !has.has(`${pk}|${sk}`));
  if (!previous || packProfile(previous) !== packed) {
    const lists = listsTouching(await smartListsByBucket(), previous ? [previous, next] : [next]);
    const flipped = lists.flatMap(({ accountId, listId, filters }) => {
      const matched = previous !== null && matchesFilters(filters, previous);
      return matched === matchesFilters(filters, next) ? [] : [{ accountId, listId, matched }];
    });
    if (flipped.length > 0) {
      const company = { ref, packed, contacts, at: Date.now() };
      puts.push(smartListFlipsItem(company, flipped, randomUUID()));
    }
  }
  return { updates: 0, writes: { puts, deletes } };
}

/**
 * The import's completion for smart lists: every noted flip, the latest per list and company, is
 * evaluated by `evaluateSmartLists` against the list's filters now (a list deleted meanwhile is
 * skipped), then the flips read are deleted. A run cut off before this leaves its flips for the next
 * run's completion; applying a flip twice changes nothing (entering is add-if-absent, leaving only
 * if still NEW).
 */
export async function applySmartListFlips(): Promise<Evaluated> {
  const flips = await getSmartListFlips();
  if (flips.length === 0) return { entered: 0, left: 0 };
  forgetSmartLists();
  const lists = new Map<string, SmartListEntry>();
  for (const bucket of (await smartListsByBucket()).values()) {
    for (const list of bucket) lists.set(`${list.accountId}#${list.listId}`, list);
  }
  const latest = new Map<string, SmartListFlip>();
  for (const flip of flips) {
    const key = `${flip.accountId}#${flip.listId}#${companyKey(flip.ref)}`;
    if ((latest.get(key)?.at ?? -1) < flip.at) latest.set(key, flip);
  }
  const targets = new Map<string, Target>();
  for (const flip of latest.values()) {
    const list = lists.get(`${flip.accountId}#${flip.listId}`);
    if (!list) continue;
    const target = targets.get(`${flip.accountId}#${flip.listId}`) ?? {
      list: { accountId: list.accountId, id: list.listId, pending: false, filters: list.filters },
      candidates: [],
    };
    target.candidates.push({
      ref: flip.ref,
      profile: unpackProfile(flip.ref.country, flip.packed),
      contacts: flip.contacts,
      listed: flip.matched,
    });
    targets.set(`${flip.accountId}#${flip.listId}`, target);
  }
  const result = await evaluateSmartLists([...targets.values()], new Date());
  await batchDelete(tableName(), [...new Map(flips.map((flip) => [flip.key.sk, flip.key])).values()]);
  return result;
}

const refOf = (record: CompanyRecord): CompanyRef => ({
  country: record.country,
  companyNumber: record.companyNumber,
});
