/**
 * The one matching engine (contract §6.5 match, §7.5 PUT), as pure functions around the reads the
 * callers make. `decide` (decide.ts) gives PUT's answer for an entry; this module widens it into
 * ranked candidates with a calibrated confidence, so the two always agree by construction:
 * - the company PUT adds is the top candidate, its confidence in [0.9, 1];
 * - every other candidate, and every candidate of an entry PUT fails, stays below 0.9.
 *
 * Candidates: the companies the entry's number, VAT number, website domain or exact normalised name
 * find (the match indexes), and, for an entry with a name but neither number nor VAT that the match
 * indexes find nothing for, the companies with a name word starting like the entry's longest words
 * (the search index: typos after the third letter, trade names sharing a word). Each is scored on which properties agree (`matchedOn`), how
 * alike the names are, and the place; confidence.ts turns that into a probability.
 */
import { companyKey, COUNTRIES, type Country } from '../companies/identifiers';
import { matchIndexText } from '../storage/keys';
import { calibrated, confidenceOf, type Features } from './confidence';
import { decide, planEntry, type Decision, type Found, type MatchEntry, type Plan } from './decide';
import { nameWords } from '../companies/normalise';
import { nameSimilarity, samePlace } from './similarity';

export const MATCH_PROPERTIES = ['companyNumber', 'country', 'VAT', 'website', 'name', 'place'] as const;
export type MatchProperty = (typeof MATCH_PROPERTIES)[number];
export type CandidateEntry = Partial<Record<MatchProperty, string>>;

/** The properties that can name a company; `country` and `place` only narrow. */
export const USABLE_PROPERTIES = ['companyNumber', 'VAT', 'website', 'name'] as const;
/** What `matchedOn` may list, in this order. */
export type AgreeingProperty = 'companyNumber' | 'VAT' | 'website' | 'name' | 'place';

/** At most this many candidates an answer shows. */
export const MAX_CANDIDATES = 5;
/** Word prefixes looked up for an entry, and how many letters each. */
const PROBES = 2;
const PROBE_LETTERS = 3;
/** A name agrees (`matchedOn`) from this similarity on. */
const NAME_AGREES = 0.8;

export interface MatchPlan {
  put: Plan;
  words: string[];
  place: string | null;
  /** Search-index prefixes to read: only for a name without number or VAT. */
  probes: { country: Country; prefix: string }[];
}

export interface Profile {
  /** The registered name: what answers show. */
  name: string;
  /** (ext) Its other names (§6.5: match treats them as names too); absent: none. */
  otherNames?: readonly string[];
  place: string | null;
  /** The place of its address when that differs from `place` (a registered office elsewhere). */
  addressPlace: string | null;
}

export interface MatchSources extends Found {
  /** Companies (`companyKey`) with a name word starting with `prefix` in `country`. */
  byPrefix: (country: Country, prefix: string) => readonly string[];
  profile: (company: string) => Profile | undefined;
}

export interface Candidate {
  company: string;
  confidence: number;
  matchedOn: AgreeingProperty[];
  /** Its probability shared between rivals, before calibration: what the bench fits the calibration on. */
  share: number;
}

export interface Match {
  decision: Decision;
  candidates: Candidate[];
}

/** Whether the entry gives anything that can name a company (else its item fails, §6.5). */
export const isUsable = (entry: CandidateEntry): boolean =>
  USABLE_PROPERTIES.some((p) => typeof entry[p] === 'string' && entry[p].trim() !== '');

export function planMatch(entry: CandidateEntry): MatchPlan {
  const { place, ...putEntry } = entry;
  const put = planEntry(putEntry as MatchEntry);
  const words = entry.name === undefined ? [] : nameWords(entry.name);
  const countries = put.country ? [put.country] : [...COUNTRIES];
  const probes =
    put.invalid || put.numberRefs || put.vat || words.length === 0
      ? []
      : [...new Set(words)]
          .sort((a, b) => b.length - a.length)
          .slice(0, PROBES)
          .flatMap((word) => countries.map((country) => ({ country, prefix: word.slice(0, PROBE_LETTERS) })));
  return { put, words, place: place?.trim() || null, probes };
}

/** The companies worth scoring, without their profiles yet (the caller reads those). */
export function candidatesOf(plan: MatchPlan, sources: MatchSources): string[] {
  const { put } = plan;
  if (put.invalid) return [];
  const found = new Set<string>();
  for (const ref of put.numberRefs ?? []) if (sources.exists(companyKey(ref))) found.add(companyKey(ref));
  if (put.vat && put.vat !== 'invalid') {
    for (const c of sources.indexed(matchIndexText('VAT', put.vat.vat))) found.add(c);
    if (put.vat.ref && sources.exists(companyKey(put.vat.ref))) found.add(companyKey(put.vat.ref));
  }
  for (const domain of Array.isArray(put.domains) ? put.domains : [])
    for (const c of sources.indexed(matchIndexText('DOMAIN', domain))) found.add(c);
  for (const name of put.names ?? [])
    for (const c of sources.indexed(matchIndexText('NAME', name))) found.add(c);
  if (found.size > 0 || !needsProbes(plan, sources)) return [...found];
  for (const { country, prefix } of plan.probes)
    for (const c of sources.byPrefix(country, prefix)) found.add(c);
  return [...found];
}

/**
 * Whether the search index must be read for the entry: only when it has probes and the match indexes
 * found nothing for it (no exact name, website or number), so a name spelled as registered costs no Query.
 */
export function needsProbes(plan: MatchPlan, sources: Found): boolean {
  if (plan.probes.length === 0) return false;
  const { put } = plan;
  const indexed = [
    ...(Array.isArray(put.domains) ? put.domains.map((d) => matchIndexText('DOMAIN', d)) : []),
    ...(put.names ?? []).map((name) => matchIndexText('NAME', name)),
  ];
  return indexed.every((key) => sources.indexed(key).length === 0);
}

export function matchEntry(plan: MatchPlan, sources: MatchSources): Match {
  const decision = decide(plan.put, sources);
  const scored = candidatesOf(plan, sources).flatMap((company) => {
    const features = featuresFor(plan, company, sources);
    return features ? [{ company, features, probability: confidenceOf(features) }] : [];
  });
  // One company at most is the one meant: the likeliest rivals' probabilities, when they add up past 1, share it.
  scored.sort((a, b) => b.probability - a.probability);
  const total = scored.slice(0, MAX_CANDIDATES).reduce((sum, c) => sum + c.probability, 0);
  const candidates = scored
    .map(({ company, features, probability }) => {
      const share = probability / Math.max(1, total);
      const confidence =
        decision.ok && decision.company === company ? 0.9 + 0.1 * share : calibrated(Math.min(share, 0.8999));
      return {
        company,
        confidence: Math.round(confidence * 10_000) / 10_000,
        matchedOn: agreeing(features),
        share,
      };
    })
    // A company on which nothing the entry says agrees is no candidate, however it was found.
    .filter((candidate) => candidate.matchedOn.length > 0)
    .sort((a, b) => b.confidence - a.confidence || (a.company < b.company ? -1 : 1))
    .slice(0, MAX_CANDIDATES);
  return { decision, candidates };
}

/** What the entry says about this company; null when it is not a company we can show. */
export function featuresFor(plan: MatchPlan, company: string, sources: MatchSources): Features | null {
  const profile = sources.profile(company);
  if (!profile) return null;
  const { put } = plan;
  const inSet = (kind: 'VAT' | 'DOMAIN', values: string[]) =>
    values.some((value) => sources.indexed(matchIndexText(kind, value)).includes(company));
  const vat = put.vat && put.vat !== 'invalid' ? put.vat : null;
  const similarity = plan.words.length > 0 ? bestSimilarity(plan.words, profile) : null;
  const places = [profile.place, profile.addressPlace].filter((p): p is string => p !== null);
  return {
    number: put.numberRefs ? put.numberRefs.some((ref) => companyKey(ref) === company) : null,
    vat: put.vat
      ? vat !== null && ((vat.ref !== null && companyKey(vat.ref) === company) || inSet('VAT', [vat.vat]))
      : null,
    website: put.domains ? Array.isArray(put.domains) && inSet('DOMAIN', put.domains) : null,
    name: similarity,
    exactName: (put.names ?? []).some((name) =>
      sources.indexed(matchIndexText('NAME', name)).includes(company),
    ),
    place: plan.place === null ? null : places.some((p) => samePlace(p, plan.place!)),
  };
}

/** How alike the entry's name is to the closest of the company's names (registered or other). */
function bestSimilarity(words: string[], profile: Profile): number {
  let best = nameSimilarity(words, nameWords(profile.name));
  for (const other of profile.otherNames ?? [])
    best = Math.max(best, nameSimilarity(words, nameWords(other)));
  return best;
}

function agreeing(features: Features): AgreeingProperty[] {
  const agree: AgreeingProperty[] = [];
  if (features.number === true) agree.push('companyNumber');
  if (features.vat === true) agree.push('VAT');
  if (features.website === true) agree.push('website');
  if (features.name !== null && features.name >= NAME_AGREES) agree.push('name');
  if (features.place === true) agree.push('place');
  return agree;
}
