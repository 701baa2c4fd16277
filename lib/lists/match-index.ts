/**
 * The match indexes of §7.5, kept by the import (contract §11.2): for every company, one entry under
 * its VAT number, one under the registered domain of its website and one under its normalised name
 * (per country). An entry is an item holding the string set of the companies that have that value,
 * so one BatchGet answers the lookups of a whole PUT.
 *
 * The derivation compares the keys of the record before and after the change: keys the company lost
 * take it out of their set (DELETE), keys it gained get it (ADD), keys it kept are not written. Both
 * are set operations, so deriving the same change twice (a cut-off import run again) ends in the same
 * state. The writes go back to the
 * import, which makes a batch's in TransactWriteItems of up to 100 entries (not one request a key).
 */
import { companyKey } from '../companies/identifiers';
import type { CompanyProfile } from '../companies/record';
import type { CompanyChange, Derived } from '../derivation/change';
import { getDomain } from 'tldts';
import { matchIndexText } from '../storage/keys';
import { canonicalVat, nameIndexValue, normaliseName, websiteHost } from '../companies/normalise';
import { matchIndexChange, type MatchKey } from '../search/match-indexes';

/**
 * The index keys a company is found under: one per distinct normalised name, its other names too
 * (§6.5: PUT and match treat them as names).
 */
export function matchKeysOf(
  company: Pick<CompanyProfile, 'country' | 'companyNumber' | 'name' | 'vatNumber' | 'website'> & {
    otherNames?: readonly string[] | null;
  },
): MatchKey[] {
  const found: MatchKey[] = [];
  if (company.vatNumber) found.push({ kind: 'VAT', value: canonicalVat(company.vatNumber, company.country) });
  const domain = company.website ? registeredDomain(company.website) : null;
  if (domain) found.push({ kind: 'DOMAIN', value: domain });
  const names = new Set([company.name, ...(company.otherNames ?? [])].map(normaliseName));
  for (const name of names)
    if (name) found.push({ kind: 'NAME', value: nameIndexValue(company.country, name) });
  return found;
}

/**
 * The registered domain of a website by the public suffix list (tldts; private suffixes too, so
 * `acme.github.io` is one company's and `github.io` nobody's). Import side only: see normalise.ts.
 */
export function registeredDomain(website: string): string | null {
  const host = websiteHost(website);
  return host ? getDomain(host, { allowPrivateDomains: true }) : null;
}

const keyText = (key: MatchKey) => matchIndexText(key.kind, key.value);

export async function deriveMatchIndexes({ before, after }: CompanyChange): Promise<Derived> {
  const company = companyKey(after);
  const had = new Map((before ? matchKeysOf(before) : []).map((key) => [keyText(key), key]));
  const has = new Map(matchKeysOf(after).map((key) => [keyText(key), key]));
  const lost = [...had].filter(([text]) => !has.has(text)).map(([, key]) => key);
  // A key the company had before is in its entry already: the change that gave it the key was derived
  // (its journal stays until it is), so only keys gained are written — a change of figures writes none.
  const gained = [...has].filter(([text]) => !had.has(text)).map(([, key]) => key);
  const setChanges = [
    ...lost.map((key) => matchIndexChange(key, company, 'remove')),
    ...gained.map((key) => matchIndexChange(key, company, 'add')),
  ];
  return { updates: 0, writes: { puts: [], deletes: [], setChanges } };
}
