/**
 * Which company an entry of `PUT /v1/lists/{id}/companies` means (contract §7.5), in two pure steps
 * around one round of reads: `planEntry` says what to look up (company items for numbers, match-index
 * entries for VAT, domain and name), `decide` judges what was found.
 *
 * Most certain first: the company number (with `country`, or the country its prefix implies), the VAT
 * number, the registered domain of the website, then the normalised name, narrowed by `country`.
 * Precision before recall — a wrong company silently added is worse than a reported failure:
 * - every strong property (number, VAT, domain) that finds companies must agree with the others
 *   (their sets intersect), and with a number or a BE/FR VAT number, which name one company by
 *   themselves; else `Company properties match different companies`;
 * - a name that matches no company never vetoes (trade names differ from registered ones); a name that
 *   matches other companies exactly, and not the one the strong properties found, is a conflict;
 * - a number or VAT number that finds nothing ends the search (`Company not found`): the name of some
 *   other company is no evidence for a company that is not in the data;
 * - several candidates left after narrowing by name: `Several companies match; add companyNumber or VAT`.
 */
import {
  companyKey,
  COUNTRIES,
  parseCompanyNumber,
  parseCountry,
  type CompanyRef,
  type Country,
} from '../companies/identifiers';
import { COMPANY_MESSAGES } from '../companies/requested-companies';
import {
  domainCandidates,
  nameIndexValue,
  normaliseName,
  parseVat,
  websiteHost,
  type ParsedVat,
} from '../companies/normalise';
import type { EntryProperty } from './entry';
import type { MatchKey } from '../search/match-indexes';
import { matchIndexText } from '../storage/keys';

export const MATCH_MESSAGES = {
  ...COMPANY_MESSAGES,
  conflict: 'Company properties match different companies',
  ambiguous: 'Several companies match; add companyNumber or VAT',
} as const;

export type MatchEntry = Partial<Record<EntryProperty, string>>;

export interface Plan {
  /** Set when the entry fails before any lookup (`Invalid country code`, `Invalid company number`). */
  invalid: string | null;
  country: Country | null;
  /** The companies the number can be (null: no number given). One when the country is known. */
  numberRefs: CompanyRef[] | null;
  /** Given and not a BE/NL/FR VAT number: 'invalid'. */
  vat: ParsedVat | 'invalid' | null;
  /** The domains the website's host may be registered under (see normalise.ts); 'invalid' when it has no host. */
  domains: string[] | 'invalid' | null;
  /** Name index values to read (one per country the name may be in); null: no usable name. */
  names: string[] | null;
}

export type Decision = { ok: true; company: string } | { ok: false; message: string };

export function planEntry(entry: MatchEntry): Plan {
  const plan: Plan = {
    invalid: null,
    country: null,
    numberRefs: null,
    vat: null,
    domains: null,
    names: null,
  };
  if (entry.country !== undefined) {
    plan.country = parseCountry(entry.country);
    if (!plan.country) return { ...plan, invalid: MATCH_MESSAGES.invalidCountry };
  }
  if (entry.companyNumber !== undefined) {
    const implied = impliedCountry(entry.companyNumber);
    const country = plan.country ?? implied;
    if (country) {
      const companyNumber = parseCompanyNumber(country, entry.companyNumber);
      if (!companyNumber) return { ...plan, invalid: MATCH_MESSAGES.invalidNumber };
      plan.numberRefs = [{ country, companyNumber }];
    } else {
      // No country: whichever countries the number is valid in (a 9-digit number can be BE or FR).
      plan.numberRefs = COUNTRIES.flatMap((c) => {
        const companyNumber = parseCompanyNumber(c, entry.companyNumber);
        return companyNumber ? [{ country: c, companyNumber }] : [];
      });
    }
  }
  if (entry.VAT !== undefined) plan.vat = parseVat(entry.VAT, plan.country) ?? 'invalid';
  if (entry.website !== undefined) {
    const host = websiteHost(entry.website);
    plan.domains = host ? domainCandidates(host) : 'invalid';
  }
  if (entry.name !== undefined) {
    const name = normaliseName(entry.name);
    if (name) plan.names = (plan.country ? [plan.country] : COUNTRIES).map((c) => nameIndexValue(c, name));
  }
  return plan;
}

/** `BE0403170701` is Belgian and `FR40303265045` French whatever else the entry says. */
function impliedCountry(companyNumber: string): Country | null {
  const prefix = companyNumber.trim().slice(0, 2).toUpperCase();
  return prefix === 'BE' || prefix === 'FR' ? prefix : null;
}

/** What the plans need read: company items (to know a number exists) and match-index entries. */
export function lookupsOf(plans: Plan[]): { refs: CompanyRef[]; matchKeys: MatchKey[] } {
  const refs = new Map<string, CompanyRef>();
  const matchKeys = new Map<string, MatchKey>();
  const addKey = (key: MatchKey) => matchKeys.set(matchIndexText(key.kind, key.value), key);
  for (const plan of plans) {
    if (plan.invalid) continue;
    for (const ref of plan.numberRefs ?? []) refs.set(companyKey(ref), ref);
    if (plan.vat && plan.vat !== 'invalid') {
      addKey({ kind: 'VAT', value: plan.vat.vat });
      if (plan.vat.ref) refs.set(companyKey(plan.vat.ref), plan.vat.ref);
    }
    if (plan.domains && plan.domains !== 'invalid') {
      for (const domain of plan.domains) addKey({ kind: 'DOMAIN', value: domain });
    }
    for (const name of plan.names ?? []) addKey({ kind: 'NAME', value: name });
  }
  return { refs: [...refs.values()], matchKeys: [...matchKeys.values()] };
}

export interface Found {
  /** Whether a company (by `companyKey`) exists. */
  exists: (company: string) => boolean;
  /** The companies under a match-index key (`VAT#…`, `DOMAIN#…`, `NAME#…`); empty when none. */
  indexed: (key: string) => readonly string[];
}

export function decide(plan: Plan, found: Found): Decision {
  if (plan.invalid) return { ok: false, message: plan.invalid };
  const fail = (message: string): Decision => ({ ok: false, message });
  const inCountry = (company: string) => !plan.country || company.startsWith(`${plan.country}#`);

  // Identities the entry states by itself: its number, a BE or FR VAT number.
  const asserted: Set<string>[] = [];
  const strong: Set<string>[] = [];
  if (plan.numberRefs) {
    const candidates = new Set(plan.numberRefs.map(companyKey));
    asserted.push(candidates);
    strong.push(new Set([...candidates].filter(found.exists)));
  }
  if (plan.vat) {
    const byVat = new Set<string>();
    if (plan.vat !== 'invalid') {
      for (const company of found.indexed(matchIndexText('VAT', plan.vat.vat))) byVat.add(company);
      if (plan.vat.ref) {
        const named = companyKey(plan.vat.ref);
        asserted.push(new Set([named]));
        if (found.exists(named)) byVat.add(named);
      }
    }
    strong.push(byVat);
  }
  if (plan.domains) {
    // The registered domain is the one candidate the index knows (the longest, should two ever be).
    const domains = plan.domains === 'invalid' ? [] : plan.domains;
    const registered = domains.find((domain) => found.indexed(matchIndexText('DOMAIN', domain)).length > 0);
    strong.push(new Set(registered ? found.indexed(matchIndexText('DOMAIN', registered)) : []));
  }
  const byName = new Set((plan.names ?? []).flatMap((key) => found.indexed(matchIndexText('NAME', key))));

  const hits = strong.filter((set) => set.size > 0);
  if (hits.length > 0) {
    // A property that finds companies only in another country than the one given contradicts it.
    const inTheCountry = hits.map((set) => new Set([...set].filter(inCountry)));
    if (inTheCountry.some((set) => set.size === 0)) return fail(MATCH_MESSAGES.conflict);
    let candidates = intersection([...inTheCountry, ...asserted]);
    if (candidates.size === 0) return fail(MATCH_MESSAGES.conflict);
    if (candidates.size > 1 && byName.size > 0) {
      const named = new Set([...candidates].filter((c) => byName.has(c)));
      if (named.size > 0) candidates = named;
    }
    if (candidates.size > 1) return fail(MATCH_MESSAGES.ambiguous);
    const company = [...candidates][0]!;
    // The name names other companies exactly (in the entry's country, or anywhere without one), and not this one.
    if (byName.size > 0 && !byName.has(company)) return fail(MATCH_MESSAGES.conflict);
    return { ok: true, company };
  }
  // Nothing strong found anything. A number or VAT number that is not in the data ends it there.
  if (plan.numberRefs || plan.vat) return fail(MATCH_MESSAGES.notFound);
  const candidates = [...byName].filter(inCountry);
  if (candidates.length === 1) return { ok: true, company: candidates[0]! };
  return fail(candidates.length > 1 ? MATCH_MESSAGES.ambiguous : MATCH_MESSAGES.notFound);
}

function intersection(sets: Set<string>[]): Set<string> {
  const [first, ...rest] = sets;
  return new Set([...(first ?? [])].filter((item) => rest.every((set) => set.has(item))));
}
