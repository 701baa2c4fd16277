/**
 * What a create or filter change of a SMART list does in the request (contract §7.6: it evaluates the
 * filters at once; only a filter that matches more than 10,000 companies is answered with the counters
 * so far and completed in the background), bounded whatever the size of its countries. The account's
 * bound is checked against the filters' estimated matches (match-counts.ts, a few counter items) before
 * anything else is read; the same items say which filter profiles can hold its matches (its
 * candidates, smart-candidates.ts: the entries of its NACE codes, places or tail ranges, or every
 * profile of a country) and how many. Then, in the request:
 *
 * 1. a filter change reads at most `evaluateAtOnce()` of the list's NEW members, each checked against
 *    the new filters by its filter profile (read by key), and takes out those that no longer match;
 * 2. when the counts put the candidates at most `readAtOnce()` (READS_PER_MATCH times the bound), it
 *    reads them all (at most `readAtOnce()` items, should the counts have drifted), so a filter that
 *    matches at most `evaluateAtOnce()` companies is evaluated whole; when they are sieved where they
 *    are read (a code's entries by the filter's places, or the other way round: smart-candidates.ts)
 *    the same holds up to `scanAtOnce()` entries evaluated, at most `readAtOnce()` of them answered;
 *    else it reads what is left of `evaluateAtOnce()`. The matches enter as NEW, at most
 *    `evaluateAtOnce()` of them.
 *
 * So a request has at most `evaluateAtOnce() + scanAtOnce()` items evaluated, receives at most
 * `evaluateAtOnce() + readAtOnce()` (plus the rest of a page) and flips at most twice
 * `evaluateAtOnce()` companies. What it did not read (NEW members beyond the bound, candidates past
 * `readAtOnce()`, matches past `evaluateAtOnce()`) becomes a job for the background worker
 * (smart-background.ts), its cursor where the request stopped: the NEW members after the last one
 * read, then the candidates after the last one entered or read.
 *
 * While that job runs, the list holds `held` of its account's bound (store/smart-holds.ts): at least
 * the estimate, its companies now and the matches the request found; the worker's claims raise it,
 * conditional on the bound, where more companies enter than it holds, and the job's end trues it to
 * the list's companies. Apart from the worker so the create and change functions bundle only this.
 */
import { companyKey, type CompanyRef, type Country } from '../companies/identifiers';
import { smartListConfig } from '../config';
import { matchesFilters, unpackProfile, type Filters } from './filters';
import type { Assessment } from './smart-candidates';
import type { Candidate } from './smart';
import { readNewMembersFrom } from './store/members';
import { getProfilesOf, readSweep, type StoredProfile } from './store/profiles';
import type { JobCursor } from './store/smart-jobs';

/** Companies entering (and NEW members read for leaving) in one request, by default. */
export const EVALUATE_AT_ONCE = 10_000;

/** The bound as configured (EVALUATE_AT_ONCE unless a test lowers it). */
export const evaluateAtOnce = (): number => Math.floor(smartListConfig.evaluateAtOnce() ?? EVALUATE_AT_ONCE);

/**
 * Candidates a request reads per company it may enter: a filter whose candidates are at most this
 * many times the bound is evaluated whole in the request (about 2.4 MB of profiles at 10,000).
 */
export const READS_PER_MATCH = 4;

/** Candidate profiles one request reads at most when it evaluates a filter whole. */
export const readAtOnce = (): number => READS_PER_MATCH * evaluateAtOnce();

/**
 * Entries a request lets DynamoDB evaluate per company it may enter when the set is sieved where it
 * is read (smart-candidates.ts): only the entries holding the filter's other codes or places travel
 * (at most `readAtOnce()` of them), so the cost is the read units and the 1 MB pages of the entries
 * evaluated (about 20 pages at 200,000), not the function's memory.
 */
export const SCANS_PER_MATCH = 20;

/** Candidate entries one request lets DynamoDB evaluate at most when a sieved set is read whole. */
export const scanAtOnce = (): number => SCANS_PER_MATCH * evaluateAtOnce();

/**
 * Segments (codes', places' sets, or parts of one set) a request reads at the same time when it reads
 * its candidates whole: each a Query of its own, so the request waits about as long as its largest
 * segment's pages, not their sum; a few, so one request does not take a partition's whole throughput.
 */
export const PARALLEL_SEGMENTS = 8;

export interface Plan {
  /**
   * What the list holds of its account's bound from now on: the exact matches when the request
   * evaluates a new list whole; else the most of the estimate, its companies and the matches found now.
   */
  held: number;
  /** What the request evaluates: companies entering (`listed: false`) and NEW ones leaving (`listed: true`). */
  now: Candidate[];
  /** What is left for the worker; null when nothing is. */
  rest: JobCursor | null;
}

/** The list whose filters change: where its NEW members are, and how many companies it holds. */
export interface ChangedList {
  accountId: string;
  listId: number;
  companies: number;
}

/**
 * The request's part of an evaluation (see the module comment). `assessed`: the filters' estimated
 * matches and candidates; `list`: the list whose filters change (none for a new list).
 */
export async function planEvaluation(
  filters: Filters,
  { estimate, candidates }: Assessment,
  list?: ChangedList,
): Promise<Plan> {
  const budget = evaluateAtOnce();
  const rest: JobCursor = {};
  const via = candidates.sweep;
  let leaving: Candidate[] = [];
  let read = 0;
  if (list) {
    const { refs, next } = await readNewMembersFrom(list.accountId, list.listId, undefined, budget);
    read = refs.length;
    leaving = (await newMembersAsCandidates(refs)).filter((c) => !matchesFilters(filters, c.profile));
    if (next) rest.leave = { key: next };
  }
  let entering: Candidate[] = [];
  if (rest.leave) rest.enter = { shard: 0, via };
  else {
    const scan = candidates.sieved ? scanAtOnce() : readAtOnce();
    // A set read whole is read several segments at a time (its codes' or places' sets side by side).
    const bounds =
      candidates.count <= scan
        ? { limit: scan, keep: readAtOnce(), filters, parallel: PARALLEL_SEGMENTS }
        : { limit: budget - read, filters };
    const { profiles, next } =
      bounds.limit > 0 ? await readSweep(via, { shard: 0 }, bounds) : { profiles: [], next: { shard: 0 } };
    const found = matching(filters, profiles);
    entering = found.slice(0, budget);
    // More matches than the request enters: the worker goes on right after the last one entered.
    const last =
      found.length > budget ? profiles.find((p) => p.ref === entering[budget - 1]?.ref) : undefined;
    if (last) rest.enter = { ...last.after, via };
    else if (next) rest.enter = { ...next, via };
  }
  const done = !rest.leave && !rest.enter;
  return {
    held: done && !list ? entering.length : Math.max(estimate, list?.companies ?? 0, entering.length),
    now: [...leaving, ...entering],
    rest: done ? null : rest,
  };
}

/** A list's NEW members as companies that may leave, each with its filter profile now (read by key). */
export async function newMembersAsCandidates(refs: CompanyRef[]): Promise<Candidate[]> {
  const profiles = new Map((await getProfilesOf(refs)).map((p) => [companyKey(p.ref), p]));
  return refs.map((ref) => {
    const profile = profiles.get(companyKey(ref));
    return {
      ref,
      // A company without a profile (erased) matches nothing.
      profile: profile ? unpackProfile(ref.country, profile.packed) : outside(ref.country),
      contacts: 0,
      listed: true,
    };
  });
}

/** The profiles that match, as companies that may enter (the flips skip those in the list already). */
export function matching(filters: Filters, profiles: StoredProfile[]): Candidate[] {
  return profiles.flatMap(({ ref, packed, contacts }) => {
    const profile = unpackProfile(ref.country, packed);
    return matchesFilters(filters, profile) ? [{ ref, profile, contacts, listed: false }] : [];
  });
}

/** The profile of a company no filter can match. */
export const outside = (country: Country) => ({
  country,
  activities: [],
  place: null,
  employees: null,
  totalAssets: null,
  healthIndicator: null,
  stopped: true as const,
});
