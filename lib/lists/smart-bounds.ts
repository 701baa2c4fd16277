/**
 * What a create or filter change of a SMART list does in the request (contract §7.6), bounded whatever
 * the size of its countries: the account's bound is checked against the filters' estimated matches
 * (match-counts.ts, a few counter items) before anything else is read, and then the request reads at
 * most `evaluateAtOnce()` items — the list's NEW members (a filter change: each checked against the
 * new filters by its filter profile, read by key, and taken out when it no longer matches), then, with
 * what is left of that budget, filter profiles of the filters' countries from the first (the matching
 * ones enter as NEW). So it flips at most that many companies, too. What it did not read becomes a job
 * for the background worker (smart-background.ts), its cursor where the request stopped: the NEW
 * members after the last one read, then the profiles after the last one read (or from the first).
 *
 * While that job runs, the list holds `held` of its account's bound (store/smart-holds.ts): at least
 * the estimate, its companies now and the matches the request found; the worker's claims raise it,
 * conditional on the bound, where more companies enter than it holds, and the job's end trues it to
 * the list's companies. Apart from the worker so the create and change functions bundle only this.
 */
import { companyKey, type CompanyRef, type Country, COUNTRIES } from '../companies/identifiers';
import { smartListConfig } from '../config';
import { matchesFilters, unpackProfile, type Filters } from './filters';
import type { Candidate } from './smart';
import { readNewMembersFrom } from './store/members';
import { getProfilesOf, readProfilesFrom, type StoredProfile } from './store/profiles';
import type { JobCursor } from './store/smart-jobs';

/** Companies read (and so entering or leaving) in one request, by default. */
export const EVALUATE_AT_ONCE = 10_000;

/** The bound as configured (EVALUATE_AT_ONCE unless a test lowers it). */
export const evaluateAtOnce = (): number => Math.floor(smartListConfig.evaluateAtOnce() ?? EVALUATE_AT_ONCE);

export interface Plan {
  /**
   * What the list holds of its account's bound from now on: the exact matches when the request reads
   * every profile of a new list; else the most of the estimate, its companies and the matches found now.
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
 * The request's part of an evaluation (see the module comment). `estimate`: the filters' estimated
 * matches; `list`: the list whose filters change (none for a new list).
 */
export async function planEvaluation(filters: Filters, estimate: number, list?: ChangedList): Promise<Plan> {
  const budget = evaluateAtOnce();
  const rest: JobCursor = {};
  let leaving: Candidate[] = [];
  let read = 0;
  if (list) {
    const { refs, next } = await readNewMembersFrom(list.accountId, list.listId, undefined, budget);
    read = refs.length;
    leaving = (await newMembersAsCandidates(refs)).filter((c) => !matchesFilters(filters, c.profile));
    if (next) rest.leave = { key: next };
  }
  let entering: Candidate[] = [];
  if (rest.leave || read >= budget) rest.enter = { shard: 0 };
  else {
    const { profiles, next } = await readProfilesFrom(countriesOf(filters), { shard: 0 }, budget - read);
    entering = matching(filters, profiles);
    if (next) rest.enter = next;
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

/** The countries whose filter profiles a filter reads. */
export const countriesOf = (filters: Filters): readonly Country[] => filters.countries ?? COUNTRIES;

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
