/**
 * Smart lists follow the data (contract §7.6). `evaluateSmartLists` is the one evaluation: given
 * smart lists and candidate companies (their filter profiles, and whether each may be in the list
 * already), the companies that match and are not in the list enter as NEW with `matchedSince` = now;
 * NEW ones that no longer match leave; SAVED and ARCHIVED ones stay (a dismissed company never comes
 * back as NEW). Two callers:
 *
 * - creating a list or changing its filters (lib/lists/manage.ts): every company of the filter's
 *   countries is a candidate (`candidatesForList`, from the filter profiles the import keeps);
 * - the import's derivation point (`deriveSmartLists`, run by lib/import/derive.ts for every changed
 *   company): the changed company is the candidate, for the smart lists it could touch only.
 *
 * Cost. Evaluating a list reads every filter profile of its countries (about 60 bytes a company, one
 * Query per shard, in parallel) and writes its new members. An import finds the lists a changed
 * company could touch in memory: every smart list is filed under its countries × NACE divisions
 * (`filterBuckets`), and a company looks up only its own country × its divisions (plus the lists
 * without a country or activity criterion), before and after the change; only those are evaluated,
 * and only a company whose match flips writes (one transaction for all the lists it enters, one read
 * and one transaction for all it leaves). So an import costs
 * O(changed companies × lists filed under their buckets) filter checks in memory and
 * O(flips) writes, plus one Query of the smart lists per import batch.
 */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import type { CompanyRecord } from '../companies/record';
import type { CompanyChange, Derived } from '../import/derive';
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
import {
  addMembers,
  filterProfileItem,
  getFilterProfiles,
  getMembers,
  getSmartLists,
  joinLists,
  leaveLists,
  removeNewMembers,
  revealList,
  writeHiddenMembers,
  type ListRef,
  type Member,
  type SmartListEntry,
  type StoredList,
} from './store';
import { COUNTRIES } from '../companies/identifiers';

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
}

/**
 * The one evaluation of §7.6 (see the module comment), over one list and many companies (creation,
 * filter change) or many lists and one company (import). Writes are grouped by the shape: a list
 * with several companies entering or leaving takes them in transactions of its own (49 a
 * transaction); a company entering or leaving several lists takes them in transactions of its own
 * (33 lists a transaction).
 */
export async function evaluateSmartLists(targets: Target[], now: Date): Promise<Evaluated> {
  const result: Evaluated = { entered: 0, left: 0 };
  const joining = new Map<string, { candidate: Candidate; lists: ListRef[] }>();
  const leaving = new Map<string, { candidate: Candidate; lists: ListRef[] }>();
  const single = (into: typeof joining, candidate: Candidate, list: SmartList) => {
    const key = companyKey(candidate.ref);
    const entry = into.get(key) ?? { candidate, lists: [] };
    entry.lists.push({ accountId: list.accountId, listId: list.id });
    into.set(key, entry);
  };
  for (const { list, candidates } of targets) {
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
      await revealList(list as StoredList, { NEW: members.length, SAVED: 0, ARCHIVED: 0 }, contacts);
      result.entered += members.length;
      continue;
    }
    if (entering.length === 1) single(joining, entering[0]!, list);
    else if (entering.length > 1)
      result.entered += (
        await addMembers(list.accountId, list.id, members, { state: 'NEW', now })
      ).added.length;
    if (stopping.length === 1) single(leaving, stopping[0]!, list);
    else if (stopping.length > 1) {
      const present = await getMembers(
        list.accountId,
        list.id,
        stopping.map((c) => c.ref),
      );
      result.left += await removeNewMembers(list.accountId, list.id, [...present.values()]);
    }
  }
  for (const { candidate, lists } of joining.values()) {
    result.entered += await joinLists(
      { ref: candidate.ref, contacts: candidate.contacts },
      lists,
      'NEW',
      now,
    );
  }
  for (const { candidate, lists } of leaving.values()) result.left += await leaveLists(candidate.ref, lists);
  return result;
}

/** Every company a list's filters could match (the countries it names, or all), as candidates. */
export async function candidatesForList(filters: Filters, members: Member[] | null): Promise<Candidate[]> {
  const listed = members && new Set(members.map((m) => companyKey(m.ref)));
  const profiles = await getFilterProfiles(filters.countries ?? COUNTRIES);
  return profiles.map(({ ref, packed, contacts }) => ({
    ref,
    profile: unpackProfile(ref.country, packed),
    contacts,
    listed: listed ? listed.has(companyKey(ref)) : false,
  }));
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
 * The derivation (contract §11.2, §7.6): the company's filter profile follows the new record (a
 * batched put), and the smart lists it could touch before or after the change are evaluated with
 * the company as the candidate, `listed` being whether it matched before. Deriving the same change
 * twice changes nothing the second time (entering is add-if-absent, leaving only if still NEW).
 */
export async function deriveSmartLists({ before, after }: CompanyChange): Promise<Derived> {
  const next = filterProfileOf(after);
  const previous = before ? filterProfileOf(before) : null;
  const packed = packProfile(next);
  const writes = {
    puts: [filterProfileItem(after, packed, after.contacts.length)],
    deletes: [],
  };
  if (previous && packProfile(previous) === packed) {
    return { updates: 0, writes };
  }
  const lists = listsTouching(await smartListsByBucket(), previous ? [previous, next] : [next]);
  const targets: Target[] = [];
  for (const list of lists) {
    const matched = previous !== null && matchesFilters(list.filters, previous);
    // Only a list the company enters or leaves is a target (`listed`: whether it matched before).
    if (matched === matchesFilters(list.filters, next)) continue;
    targets.push({
      list: { accountId: list.accountId, id: list.listId, pending: false, filters: list.filters },
      candidates: [{ ref: refOf(after), profile: next, contacts: after.contacts.length, listed: matched }],
    });
  }
  // A list deleted since the smart lists were read is skipped by the writes themselves.
  if (targets.length > 0) await evaluateSmartLists(targets, new Date());
  return { updates: 0, writes };
}

const refOf = (record: CompanyRecord): CompanyRef => ({
  country: record.country,
  companyNumber: record.companyNumber,
});
