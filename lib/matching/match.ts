/**
 * `POST /v1/companies/match` (contract §6.5): for each entry, up to 5 candidate companies with a
 * calibrated confidence and the properties that agree, by the engine PUT uses (candidates.ts).
 *
 * DynamoDB requests for 100 entries, in two rounds; nothing is written. Round 1, at once: one
 * BatchGetItem of the company items the numbers name (up to 300 keys for numbers valid in several
 * countries: 3 requests) and of the match-index entries of the VAT numbers, domains and names (up to
 * 800 keys: 8 requests). Round 2, at once: the name and place of the candidates the indexes named
 * (BatchGetItem, 100 keys a request), and, only for entries with a name but neither number nor VAT that
 * the match indexes found nothing for (a typo, a trade name), one Query per search probe (2 word
 * prefixes × the countries asked for, at most PROBE_ENTRIES entries each, 16 in flight; a probe
 * shared by entries is read once).
 */
import { companyKey, type CompanyRef, type Country } from '../companies/identifiers';
import { forEachLimited } from '../concurrency';
import { getMatchIndexes } from '../search/match-indexes';
import { findByWordPrefix } from '../search/store';
import { batchGet } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { companyOfKey } from '../storage/keys';
import {
  candidatesOf,
  isUsable,
  matchEntry,
  MATCH_PROPERTIES,
  needsProbes,
  planMatch,
  type CandidateEntry,
  type MatchPlan,
  type MatchProperty,
  type MatchSources,
  type Profile,
} from './candidates';
import { lookupsOf } from './decide';
import type { MatchItem } from './schemas';

export const NOTHING_USABLE = 'At least one of companyNumber, VAT, website or name is required';
/** Search-index entries one probe reads at most. */
const PROBE_ENTRIES = 200;
const QUERIES_IN_FLIGHT = 16;

export async function matchCompanies(entries: Record<string, unknown>[]): Promise<MatchItem[]> {
  const given = entries.map(knownProperties);
  const plans = given.map((entry) => (isUsable(entry) ? planMatch(entry) : null));
  const active = plans.filter((plan): plan is MatchPlan => plan !== null);
  const { refs, matchKeys } = lookupsOf(active.map((plan) => plan.put));

  const profiles = new Map<string, Profile>();
  const prefixes = new Map<string, string[]>();
  const [companies, index] = await Promise.all([readProfiles(refs, profiles), getMatchIndexes(matchKeys)]);
  const sources: MatchSources = {
    exists: (company) => companies.has(company),
    indexed: (key) => index.get(key) ?? [],
    byPrefix: (country, prefix) => prefixes.get(probeKey({ country, prefix })) ?? [],
    profile: (company) => profiles.get(company),
  };
  // Round 2: the search index for the entries the match indexes found nothing for, and the profiles
  // of the companies they did find.
  const probes = new Map(
    active
      .filter((plan) => needsProbes(plan, sources))
      .flatMap((plan) => plan.probes.map((p) => [probeKey(p), p])),
  );
  const unread = new Set(
    active.flatMap((plan) => candidatesOf(plan, sources)).filter((c) => !profiles.has(c)),
  );
  await Promise.all([
    readProfiles([...unread].map(refOf), profiles),
    forEachLimited([...probes.values()], QUERIES_IN_FLIGHT, async (probe) => {
      const { names } = await findByWordPrefix(probe.country, probe.prefix, PROBE_ENTRIES);
      prefixes.set(
        probeKey(probe),
        names.map(({ identifier, names: words }) => {
          const company = companyKey(identifier);
          // The index holds the other names' normalised words: as good as the names for the similarity.
          const otherNames = words.slice(1).map((name) => name.join(' '));
          profiles.set(company, {
            name: identifier.name,
            otherNames,
            place: identifier.place,
            addressPlace: null,
          });
          return company;
        }),
      );
    }),
  ]);

  return plans.map((plan, i) => {
    const parameters = given[i]! as Record<string, string>;
    if (!plan) return { parameters, data: null, message: NOTHING_USABLE };
    if (plan.put.invalid) return { parameters, data: null, message: plan.put.invalid };
    const { candidates } = matchEntry(plan, sources);
    return {
      parameters,
      data: candidates.map(({ company, confidence, matchedOn }) => {
        const profile = profiles.get(company)!;
        return {
          identifier: { ...refOf(company), name: profile.name, place: profile.place },
          confidence,
          matchedOn,
        };
      }),
      message: null,
    };
  });
}

/** A constant, so its ProjectionExpression is built once (lib/storage/batch.ts keeps it by the array). */
const PROFILE_PROJECTION = ['pk', 'name', 'otherNames', 'place', 'address'];

/** Reads names, place and address of the companies into `profiles`; answers the keys it found. */
async function readProfiles(refs: CompanyRef[], profiles: Map<string, Profile>): Promise<Set<string>> {
  if (refs.length === 0) return new Set();
  const items = await batchGet(tableName(), refs.map(keys.company), {
    projection: PROFILE_PROJECTION,
  });
  const found = new Set<string>();
  for (const item of items) {
    const company = companyKey(companyOfKey(item['pk'] as string));
    const address = item['address'] as { place?: string | null } | undefined;
    profiles.set(company, {
      name: item['name'] as string,
      otherNames: (item['otherNames'] as string[] | undefined) ?? [],
      place: (item['place'] as string | undefined) ?? null,
      addressPlace: address?.place ?? null,
    });
    found.add(company);
  }
  return found;
}

/** The entry's known properties in the order sent, values as sent (§6.5 `parameters`). */
function knownProperties(entry: Record<string, unknown>): CandidateEntry {
  const known: CandidateEntry = {};
  for (const key of Object.keys(entry)) {
    if ((MATCH_PROPERTIES as readonly string[]).includes(key))
      known[key as MatchProperty] = entry[key] as string;
  }
  return known;
}

const probeKey = ({ country, prefix }: { country: Country; prefix: string }) => `${country}#${prefix}`;

const refOf = (company: string): CompanyRef => {
  const [country, companyNumber] = company.split('#');
  return { country: country as Country, companyNumber: companyNumber! };
};
