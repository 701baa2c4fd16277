/**
 * The counts smart filters are estimated from (match-estimate.ts): kept by the import, per batch, as
 * the filter profiles change (a batch derivation, lib/import/derive.ts), and read by a create or
 * filter change to check the account's bound at once (manage.ts).
 */
import { createHash } from 'node:crypto';
import { companyKey, type Country } from '../companies/identifiers';
import type { CompanyChange, Derived } from '../derivation/change';
import { filterProfileOf, packProfile, type Filters } from './filters';
import { addCounts, contributionOf, estimateFrom, itemsFor, type Counts } from './match-estimate';
import { candidatesOf, type Assessment } from './smart-candidates';
import { moveMatchCounts, readMatchCounts } from './store/match-counts';

/**
 * The batch's moves of the counts: per changed company whose filter profile changed, what its new
 * profile adds minus what its old one took (an erased company takes its old one and adds nothing, as
 * its profile is deleted; a stopped one counts nowhere). Summed per country and item, then one
 * `ADD` per item touched (store/match-counts.ts), once per batch even when it is derived again.
 */
export async function deriveMatchCounts(changes: CompanyChange[]): Promise<Derived> {
  const deltas = new Map<Country, Counts>();
  for (const { before, after, gone } of changes) {
    const previous = before && filterProfileOf(before);
    const next = gone ? null : filterProfileOf(after);
    if (previous && next && packProfile(previous) === packProfile(next)) continue;
    if (previous) addCounts(countsOf(deltas, previous.country), contributionOf(previous), -1);
    if (next) addCounts(countsOf(deltas, next.country), contributionOf(next), 1);
  }
  const changeId = changes[0]?.changeId;
  if (changeId === undefined || deltas.size === 0) return { updates: 0 };
  // The batch as its mark names it: its change id and its companies (a batch derived again is the
  // same batch; another set of companies of one change, the erasures', is another).
  const companies = changes.map((c) => companyKey(c.after)).sort();
  const digest = createHash('sha256').update(companies.join(',')).digest('base64url').slice(0, 16);
  await moveMatchCounts(`${changeId}#${digest}`, deltas);
  return { updates: 0 };
}

function countsOf(deltas: Map<Country, Counts>, country: Country): Counts {
  const counts = deltas.get(country) ?? new Map();
  deltas.set(country, counts);
  return counts;
}

/** The filters' estimate and candidates, from the same few counter items read (never a profile). */
export async function assessFilters(filters: Filters): Promise<Assessment> {
  const counts = await readMatchCounts(itemsFor(filters));
  const read = (country: Country, sk: string) => counts.get(`${country}|${sk}`);
  return { estimate: estimateFrom(filters, read), candidates: candidatesOf(filters, read) };
}

/** The estimated matches of `filters` (match-estimate.ts): a few counter items read, never a profile. */
export async function estimateMatches(filters: Filters): Promise<number> {
  return (await assessFilters(filters)).estimate;
}
