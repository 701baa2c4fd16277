/**
 * `POST /v1/companies/match` (contract §6.5): for each entry, up to 5 candidate companies with a
 * calibrated confidence and the properties that agree, by the engine PUT uses (candidates.ts).
 *
 * DynamoDB requests for 100 entries, in two rounds; nothing is written. Round 1, at once: one
 * BatchGetItem of the company items the numbers name (up to 300 keys for numbers valid in several
 * countries: 3 requests), the match-index entries of the VAT numbers, domains and names (up to 800
 * keys: 8 requests), and for entries with a name but neither number nor VAT one Query per probe of the
 * search index (2 word prefixes × the countries asked for, at most PROBE_ENTRIES entries each, 16 in
 * flight; the same probe is read once per call). Round 2: the name and place of the candidates the
 * indexes named (BatchGetItem, 100 keys a request).
 */
import { companyKey, type CompanyRef, type Country } from '../companies/identifiers';
import { forEachLimited } from '../concurrency';
import { getMatchIndexes } from '../lists/store/match-indexes';
import { findByWordPrefix } from '../search/store';
import { batchGet } from '../storage/batch';
import { tableName } from '../storage/client';
import { companyOfKey, keys } from '../storage/keys';
import {
  candidatesOf,
  isUsable,
  matchEntry,
  MATCH_PROPERTIES,
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
  const probes = new Map(active.flatMap((p) => p.probes).map((probe) => [probeKey(probe), probe]));

  const profiles = new Map<string, Profile>();
  const prefixes = new Map<string, string[]>();
  const [companies, index] = await Promise.all([
    readProfiles(refs, profiles),
    getMatchIndexes(matchKeys),
    forEachLimited([...probes.values()], QUERIES_IN_FLIGHT, async (probe) => {
      const { names } = await findByWordPrefix(probe.country, probe.prefix, PROBE_ENTRIES);
      prefixes.set(
        probeKey(probe),
        names.map(({ identifier }) => {
          profiles.set(companyKey(identifier), {
            name: identifier.name,
            place: identifier.place,
            addressPlace: null,
          });
          return companyKey(identifier);
        }),
      );
    }),
  ]);
  const sources: MatchSources = {
    exists: (company) => companies.has(company),
    indexed: (key) => index.get(key) ?? [],
    byPrefix: (country, prefix) => prefixes.get(probeKey({ country, prefix })) ?? [],
    profile: (company) => profiles.get(company),
  };
  const unread = new Set(
    active.flatMap((plan) => candidatesOf(plan, sources)).filter((c) => !profiles.has(c)),
  );
  await readProfiles([...unread].map(refOf), profiles);

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

/** Reads name, place and address of the companies into `profiles`; answers the keys it found. */
async function readProfiles(refs: CompanyRef[], profiles: Map<string, Profile>): Promise<Set<string>> {
  if (refs.length === 0) return new Set();
  const items = await batchGet(tableName(), refs.map(keys.company), {
    projection: ['pk', 'name', 'place', 'address'],
  });
  const found = new Set<string>();
  for (const item of items) {
    const company = companyKey(companyOfKey(item['pk'] as string));
    const address = item['address'] as { place?: string | null } | undefined;
    profiles.set(company, {
      name: item['name'] as string,
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
