/**
 * `GET /v1/companies?q=` (contract §6.5): companies by name, company number or VAT number, best first.
 *
 * A number finds its company: `q` is read as a company number of each country asked for (any input
 * form of §3) and as a VAT number; the companies they name are read by key, and answered alone. A
 * name matches when every word of `q` starts a word of one and the same of the company's names, its
 * `name` or one of its `otherNames` (lib/companies/normalise.ts `nameWords`: case, accents, punctuation
 * and legal-form words ignored); the answer shows the registered name. The search index
 * (lib/search/store.ts) is looked up by the longest word of `q` (the most selective guess); DynamoDB
 * sends back only the entries whose name has the other words too, and the rank checks every word again.
 *
 * A Query reads at most MAX_ENTRIES entries. A country whose first Query reached that bound (its word
 * is common: there may be more) is looked up again by the next longest words of `q` of at least
 * MIN_PROBE_LENGTH letters, at once: a company
 * with every word of `q` is among the entries of each of them, so one such Query that ends within the
 * bound has all of that country's matches. Only a country where every word read reaches the bound (a
 * `q` of common words only) may lose matches beyond it, and then the companies named exactly like `q`
 * are read from the match index, so an exact name is never lost.
 *
 * DynamoDB requests per search, no Scan. A `q` that is a valid company or VAT number of the countries
 * asked for: one BatchGetItem of the companies it names, in parallel with one of the VAT index entry
 * of an NL VAT number, then one BatchGetItem of the companies that entry names (3). A name: one Query
 * per country asked for (3 without `countryCode`); for a country that reached the bound, up to
 * MORE_PROBES more at once (6 more for 3 countries); then, for a country still at the bound, the exact
 * name from the match index and the companies it names (2 BatchGetItems of up to 100 keys each). So 3
 * requests for almost every search, and at most 11 when no more than 100 companies share the name.
 */
import {
  companyKey,
  COUNTRIES,
  parseCompanyNumber,
  type CompanyRef,
  type Country,
} from '../companies/identifiers';
import type { Identifier } from '../companies/schemas';
import { getMatchIndexes } from './match-indexes';
import { nameIndexValue, nameWords, parseVat } from '../companies/normalise';
import { matchIndexText } from '../storage/keys';
import { byCodePoint } from '../order';
import { searchNames } from './derive';
import { findByWordPrefix, getIdentifiers, getNamed, type IndexedName } from './store';

/** Index entries one Query reads at most (about 120 bytes each: some 30 read units). */
export const MAX_ENTRIES = 1000;
/** The words after the longest that a country whose first Query reached the bound is looked up by. */
const MORE_PROBES = 2;
/**
 * Shorter words are not looked up again: where the first word reached the bound, one or two letters
 * (a word being typed) start more entries still, and reading them would cost a round trip and up to
 * MAX_ENTRIES entries for nothing.
 */
const MIN_PROBE_LENGTH = 3;

export interface SearchRequest {
  q: string;
  countryCode?: Country | undefined;
  limit: number;
}

/** `maxEntries`: the bound of one Query (MAX_ENTRIES; tests shrink it to reach the bound with a few companies). */
export async function searchCompanies(
  { q, countryCode, limit }: SearchRequest,
  maxEntries = MAX_ENTRIES,
): Promise<Identifier[]> {
  const countries = countryCode ? [countryCode] : [...COUNTRIES];
  // Legal-form words are optional on both sides; a query of nothing else names no company by name.
  const nameWordsOfQuery = nameWords(q);
  // A number names its company: a name made of one valid number is not worth a name search.
  const number = numberIn(q, countries);
  if (number) return (await findByNumber(number)).sort(byCompany).slice(0, limit);
  if (nameWordsOfQuery.length === 0) return [];
  return (await findByName(nameWordsOfQuery, countries, maxEntries)).slice(0, limit);
}

interface NumberQuery {
  refs: Map<string, CompanyRef>;
  /** An NL VAT number does not contain the company number: the VAT index says whose it is. */
  nlVat: string | null;
}

/** What `q` names as a company number (of any country asked for) or a VAT number; null when nothing. */
function numberIn(q: string, countries: Country[]): NumberQuery | null {
  const refs = new Map<string, CompanyRef>();
  for (const country of countries) {
    const companyNumber = parseCompanyNumber(country, q);
    if (companyNumber) refs.set(companyKey({ country, companyNumber }), { country, companyNumber });
  }
  const vat = parseVat(q, countries.length === 1 ? countries[0]! : null);
  if (vat?.ref && countries.includes(vat.ref.country)) refs.set(companyKey(vat.ref), vat.ref);
  const nlVat = vat && !vat.ref && countries.includes('NL') ? vat.vat : null;
  return refs.size > 0 || nlVat ? { refs, nlVat } : null;
}

/** The companies a number or VAT number names that exist. */
async function findByNumber({ refs, nlVat }: NumberQuery): Promise<Identifier[]> {
  const [identifiers, index] = await Promise.all([
    getIdentifiers([...refs.values()]),
    nlVat ? getMatchIndexes([{ kind: 'VAT', value: nlVat }]) : new Map<string, string[]>(),
  ]);
  const byVat = nlVat ? (index.get(matchIndexText('VAT', nlVat)) ?? []).map(refOf) : [];
  return [...identifiers, ...(await getIdentifiers(byVat.filter((ref) => !refs.has(companyKey(ref)))))];
}

/**
 * Names whose words the query's words start, ranked: the exact name first, then names whose words
 * match in the query's order, then the rest; ties by country and number.
 */
async function findByName(words: string[], countries: Country[], maxEntries: number): Promise<Identifier[]> {
  const [first, ...next] = probesOf(words);
  const names = new Map<string, IndexedName>();
  const read = async (country: Country, probe: string) => {
    const found = await findByWordPrefix(country, probe, maxEntries, othersThan(words, probe));
    for (const entry of found.names) names.set(companyKey(entry.identifier), entry);
    return found.truncated;
  };
  // Countries whose matches may not all have been read: the first word reached the bound there.
  const firstTruncated = await Promise.all(countries.map((country) => read(country, first!)));
  const reached = countries.filter((_, i) => firstTruncated[i]);
  const more = next.filter((word) => word.length >= MIN_PROBE_LENGTH).slice(0, MORE_PROBES);
  const stillReached: Country[] = [];
  await Promise.all(
    reached.map(async (country) => {
      const truncated = await Promise.all(more.map((probe) => read(country, probe)));
      if (truncated.every(Boolean)) stillReached.push(country);
    }),
  );
  if (stillReached.length > 0) {
    for (const entry of await exactNames(words, stillReached)) names.set(companyKey(entry.identifier), entry);
  }
  return [...names.values()]
    .flatMap((entry) => {
      const rank = bestRank(words, entry.names);
      return rank === null ? [] : [{ rank, identifier: entry.identifier }];
    })
    .sort((a, b) => a.rank - b.rank || byCompany(a.identifier, b.identifier))
    .map(({ identifier }) => identifier);
}

/**
 * The words a name search may read the index by, the longest first (the fewest entries start with it;
 * of two as long, the first in `q`), each once.
 */
function probesOf(words: string[]): string[] {
  return [...new Set(words)].sort((a, b) => b.length - a.length);
}

/** The words DynamoDB checks on the entries of `probe` (only entries with them come back); rankOf checks again. */
const othersThan = (words: string[], probe: string) => [...new Set(words.filter((word) => word !== probe))];

/** What a name search reads the index by first (the bench's floor makes the same Queries). */
export function nameProbe(words: string[]): { probe: string; others: string[] } {
  const probe = probesOf(words)[0]!;
  return { probe, others: othersThan(words, probe) };
}

/**
 * The companies with a name (registered or other) of exactly the query's words (the match index of §7.5
 * keys every name so).
 */
async function exactNames(words: string[], countries: Country[]): Promise<IndexedName[]> {
  const name = [...words].sort().join(' ');
  const keys = countries.map((country) => ({ kind: 'NAME' as const, value: nameIndexValue(country, name) }));
  const index = await getMatchIndexes(keys);
  const refs = keys.flatMap((key) => (index.get(matchIndexText(key.kind, key.value)) ?? []).map(refOf));
  return (await getNamed(refs)).map(({ identifier, otherNames }) => ({
    identifier,
    names: searchNames({ name: identifier.name, otherNames }),
  }));
}

/** The best rank of the query among a company's names; null when none matches. */
export function bestRank(query: string[], names: string[][]): 0 | 1 | 2 | null {
  let best: 0 | 1 | 2 | null = null;
  for (const name of names) {
    const rank = rankOf(query, name);
    if (rank !== null && (best === null || rank < best)) best = rank;
  }
  return best;
}

/**
 * 0: the name's words are the query's; 1: each query word starts a name word, in the query's order;
 * 2: each starts some name word; null: no match.
 */
export function rankOf(query: string[], name: string[]): 0 | 1 | 2 | null {
  if (!query.every((word) => name.some((nameWord) => nameWord.startsWith(word)))) return null;
  if (query.length === name.length && query.every((word, i) => name[i] === word)) return 0;
  let at = 0;
  for (const word of query) {
    while (at < name.length && !name[at]!.startsWith(word)) at++;
    if (at === name.length) return 2;
    at++;
  }
  return 1;
}

const byCompany = (a: CompanyRef, b: CompanyRef) =>
  byCodePoint(a.country, b.country) || byCodePoint(a.companyNumber, b.companyNumber);

const refOf = (company: string): CompanyRef => {
  const [country, companyNumber] = company.split('#');
  return { country: country as Country, companyNumber: companyNumber! };
};
