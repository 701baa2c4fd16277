/**
 * Keys read back into what they name (the other way round from lib/storage/keys.ts, which re-exports
 * these so callers import keys from one place).
 */
import type { CompanyRef } from '../company-ref';

/**
 * `ACCOUNT#<account>#LIST#<id>` (a smart list's or a clean-up's sort key, a member's partition) → the
 * account and list id.
 */
export function listOfKey(sk: string): { accountId: string; listId: number } {
  const at = sk.lastIndexOf('#LIST#');
  const [listId] = sk.slice(at + '#LIST#'.length).split('#');
  return { accountId: sk.slice('ACCOUNT#'.length, at), listId: Number(listId) };
}

/** `filterProfile`'s key, or one of its entries' (`filterProfileByActivity`, `…ByPlace`) → the company. */
export function filterProfileOfKey(key: { pk: string; sk: string }): CompanyRef {
  const [, country] = key.pk.split('#');
  return {
    country: country as CompanyRef['country'],
    companyNumber: key.sk.slice(key.sk.lastIndexOf('#') + 1),
  };
}

/** `searchWord`'s keys → the company. */
export function companyOfSearchWord(key: { pk: string; sk: string }): CompanyRef {
  const [, country] = key.pk.split('#');
  return {
    country: country as CompanyRef['country'],
    companyNumber: key.sk.slice(key.sk.lastIndexOf('#') + 1),
  };
}

/** The company a company item belongs to: `COMPANY#BE#0403170701` → `{ country: 'BE', … }`. */
export function companyOfKey(pk: string): CompanyRef {
  const [, country, companyNumber] = pk.split('#');
  return { country: country as CompanyRef['country'], companyNumber: companyNumber! };
}
