/**
 * What a create or filter change of a SMART list does in the request (contract §7.6): it finds the
 * companies its filters match among the filter profiles the import keeps, counts what the list will
 * hold (the number the account's bound is checked against: store/smart-holds.ts), and evaluates at
 * most `evaluateAtOnce()` flips at once — NEW members that stop matching leave first, then new
 * matches enter. What is left over becomes a job for the background worker (smart-background.ts): the
 * leaving from the first NEW member on, the entering from just after the last company entered now.
 * Apart from the worker so the create and change functions bundle only this.
 */
import { companyKey, type Country, COUNTRIES } from '../companies/identifiers';
import { smartListConfig } from '../config';
import * as keys from '../storage/keys';
import { matchesFilters, type Filters } from './filters';
import type { Candidate } from './smart';
import type { Member } from './store/model';
import { profileShards } from './store/profiles';
import type { JobCursor } from './store/smart-jobs';

/** Companies entering or leaving a list in one request (or one turn of the worker), by default. */
export const EVALUATE_AT_ONCE = 10_000;

/** The bound as configured (EVALUATE_AT_ONCE unless a test lowers it). */
export const evaluateAtOnce = (): number => Math.floor(smartListConfig.evaluateAtOnce() ?? EVALUATE_AT_ONCE);

export interface Plan {
  /** Companies the list holds once evaluated: its SAVED and ARCHIVED ones, and every match besides. */
  target: number;
  /** What the request evaluates: companies entering (`listed: false`) and NEW ones leaving (`listed: true`). */
  now: Candidate[];
  /** What is left for the worker; null when nothing is. */
  rest: JobCursor | null;
}

/**
 * The request's part of an evaluation. `candidates`: every filter profile of the filters' countries in
 * `profileShards` order (`candidatesForList`); `members`: the list's members (none for a new list).
 */
export function planEvaluation(filters: Filters, candidates: Candidate[], members: Member[]): Plan {
  const budget = evaluateAtOnce();
  const profiles = new Map(candidates.map((c) => [companyKey(c.ref), c]));
  const listed = new Set(members.map((m) => companyKey(m.ref)));
  const kept = new Set(members.filter((m) => m.state !== 'NEW').map((m) => companyKey(m.ref)));
  const matching = candidates.filter((c) => matchesFilters(filters, c.profile));
  const leaving: Candidate[] = members.flatMap((m) => {
    if (m.state !== 'NEW') return [];
    const candidate = profiles.get(companyKey(m.ref));
    if (candidate && matchesFilters(filters, candidate.profile)) return [];
    // A member outside the filters' countries (or without a profile) matches nothing.
    return [
      {
        ref: m.ref,
        profile: candidate?.profile ?? outside(m.ref.country),
        contacts: m.contacts,
        listed: true,
      },
    ];
  });
  const entering = matching
    .filter((c) => !listed.has(companyKey(c.ref)))
    .map((c) => ({ ...c, listed: false }));
  const leaveNow = leaving.slice(0, budget);
  const enterNow = entering.slice(0, budget - leaveNow.length);
  const rest: JobCursor = {
    ...(leaving.length > leaveNow.length ? { leave: {} } : {}),
    ...(entering.length > enterNow.length ? { enter: after(filters, enterNow[enterNow.length - 1]) } : {}),
  };
  return {
    target: kept.size + matching.filter((c) => !kept.has(companyKey(c.ref))).length,
    now: [...leaveNow, ...enterNow],
    rest: rest.leave || rest.enter ? rest : null,
  };
}

/** The countries whose filter profiles a filter reads. */
export const countriesOf = (filters: Filters): readonly Country[] => filters.countries ?? COUNTRIES;

/** Where the worker's entering goes on: just after `last` (the last company entered now), or from the start. */
function after(filters: Filters, last: Candidate | undefined): NonNullable<JobCursor['enter']> {
  if (!last) return { shard: 0 };
  const key = keys.filterProfile(last.ref);
  const shard = profileShards(countriesOf(filters)).findIndex(
    ({ country, shard }) => keys.filterProfiles(country, shard) === key.pk,
  );
  return { shard, key };
}

/** The profile of a company no filter of these countries can match. */
export const outside = (country: Country) => ({
  country,
  activities: [],
  place: null,
  employees: null,
  totalAssets: null,
  healthIndicator: null,
  stopped: true as const,
});
