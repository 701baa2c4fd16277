/**
 * `GET /v1/companies?q=` (contract §6.5): companies by name, company number or VAT number, best first.
 *
 * A number finds its company: `q` is read as a company number of each country asked for (any input
 * form of §3) and as a VAT number; the companies they name are read by key, and answered alone. A
 * name matches when every word of `q` starts a word of the company's name (lib/matching/normalise.ts
 * `nameWords`: case, accents, punctuation and legal-form words ignored). The search index (lib/search/store.ts) is looked up by the
 * longest word of `q` (the most selective guess); DynamoDB sends back only the entries whose name has the
 * other words too, and the rank checks every word again.
 *
 * DynamoDB requests per search, at most 5, no Scan. A `q` that is a valid company or VAT number of
 * the countries asked for: one BatchGetItem of the companies it names, in parallel with one of the VAT
 * index entry of an NL VAT number, then one BatchGetItem of the companies that entry names (3). A
 * name: one Query per country asked for (3 without `countryCode`), each reading at most MAX_ENTRIES
 * index entries; only when a Query read MAX_ENTRIES (there may be more), the companies named exactly
 * like `q` from the match index, then their names (2 more), so an exact name is never lost to the bound.
 */
import {
  companyKey,
  COUNTRIES,
  parseCompanyNumber,
  type CompanyRef,
  type Country,
} from '../companies/identifiers';
import type { Identifier } from '../companies/schemas';
import { getMatchIndexes } from '../lists/store/match-indexes';
import { nameIndexValue, nameWords, parseVat } from '../matching/normalise';
import { matchIndexText } from '../storage/keys';
import { byCodePoint } from '../order';
import { findByWordPrefix, getIdentifiers, type IndexedName } from './store';

/** Index entries one Query reads at most (about 120 bytes each: some 30 read units). */
export const MAX_ENTRIES = 1000;

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
  const { probe, others } = nameProbe(words);
  const found = await Promise.all(
    countries.map((country) => findByWordPrefix(country, probe, maxEntries, others)),
  );
  const names = new Map<string, IndexedName>();
  for (const { names: entries } of found) {
    for (const entry of entries) names.set(companyKey(entry.identifier), entry);
  }
  if (found.some(({ truncated }) => truncated)) {
    for (const entry of await exactNames(words, countries)) names.set(companyKey(entry.identifier), entry);
  }
  return [...names.values()]
    .flatMap((entry) => {
      const rank = rankOf(words, entry.words);
      return rank === null ? [] : [{ rank, identifier: entry.identifier }];
    })
    .sort((a, b) => a.rank - b.rank || byCompany(a.identifier, b.identifier))
    .map(({ identifier }) => identifier);
}

/**
 * What a name search reads the index by: its longest word (the fewest entries start with it), and the
 * other words, which DynamoDB checks (only entries with them come back) and rankOf checks again.
 */
export function nameProbe(words: string[]): { probe: string; others: string[] } {
  const probe = words.reduce((longest, word) => (word.length > longest.length ? word : longest));
  return { probe, others: [...new Set(words.filter((word) => word !== probe))] };
}

/** The companies whose name has exactly the query's words (the match index of §7.5 keys names so). */
async function exactNames(words: string[], countries: Country[]): Promise<IndexedName[]> {
  const name = [...words].sort().join(' ');
  const keys = countries.map((country) => ({ kind: 'NAME' as const, value: nameIndexValue(country, name) }));
  const index = await getMatchIndexes(keys);
  const refs = keys.flatMap((key) => (index.get(matchIndexText(key.kind, key.value)) ?? []).map(refOf));
  // Same words as the query, so their words are the query's (the order is checked by the rank).
  return (await getIdentifiers(refs)).map((identifier) => ({
    identifier,
    words: nameWords(identifier.name),
  }));
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
