/**
 * Stored lookalike lists, as the endpoints read them: one item per company (key pattern in
 * lib/storage/keys.ts) holding the company's identifier and its kept lookalikes, best first, packed in
 * one string attribute (`BE0403170701:8994 NL33011433:8512 …`, scores in ten-thousandths).
 *
 * Access patterns (the same round trips as financials):
 * - one company: one GetItem → 1 round trip;
 * - up to 100 companies: one BatchGetItem of 100 keys → 1 round trip (2 when DynamoDB leaves keys
 *   unprocessed); a list of 100 is about 1.8 KB, so 100 lists are far below BatchGetItem's 16 MB.
 */
import { toIdentifier } from '../companies/company';
import { companyKey, type CompanyRef, type Country } from '../companies/identifiers';
import type { Identifier } from '../companies/schemas';
import { batchGet, getItem } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';

type Item = Record<string, unknown>;

export interface Lookalike {
  companyId: CompanyRef;
  score: number;
}

export interface StoredLookalikes {
  identifier: Identifier;
  /** The kept lookalikes, packed, best first; unpack only the page shown (`unpackLookalikes`). */
  packed: string;
}

/** What the lookalikes endpoints read of the item (exported for the benchmark's floor, which reads the same). */
export const LOOKALIKES_PROJECTION = ['country', 'companyNumber', 'name', 'place', 'lookalikes'];

/**
 * A company's list. A company the import wrote whose list is not computed yet (its run's completion
 * has not written it) has no list item: it is answered from its company item with no lookalikes — one
 * more read, only then — so the import writes each new company's list once.
 */
export async function getLookalikes(ref: CompanyRef): Promise<StoredLookalikes | null> {
  const item =
    (await getItem(tableName(), keys.lookalikes(ref), { projection: LOOKALIKES_PROJECTION })) ??
    (await getItem(tableName(), keys.company(ref), { projection: IDENTIFIER_PROJECTION }));
  return item ? toStored(item) : null;
}

/** The lists of the given companies, keyed by `companyKey`; unknown companies are absent. */
export async function getLookalikesOf(refs: CompanyRef[]): Promise<Map<string, StoredLookalikes>> {
  const items = await batchGet(tableName(), refs.map(keys.lookalikes), { projection: LOOKALIKES_PROJECTION });
  const found = new Map<string, StoredLookalikes>();
  for (const item of items) found.set(companyKey(item as unknown as CompanyRef), toStored(item));
  const missing = refs.filter((ref) => !found.has(companyKey(ref)));
  if (missing.length > 0) {
    const companies = await batchGet(tableName(), missing.map(keys.company), {
      projection: IDENTIFIER_PROJECTION,
    });
    for (const item of companies) found.set(companyKey(item as unknown as CompanyRef), toStored(item));
  }
  return found;
}

/** What a company item gives a company without a list: its identifier. */
const IDENTIFIER_PROJECTION = ['country', 'companyNumber', 'name', 'place'];

/** The stored form of a list, best first. */
export function packLookalikes(list: { ref: CompanyRef; score: number }[]): string {
  return list.map(({ ref, score }) => `${ref.country}${ref.companyNumber}:${score}`).join(' ');
}

export function countLookalikes(packed: string): number {
  if (packed === '') return 0;
  let count = 1;
  for (let i = packed.indexOf(' '); i !== -1; i = packed.indexOf(' ', i + 1)) count++;
  return count;
}

/** Entries `from` up to (not including) `to` of a packed list, in the contract's shape. */
export function unpackLookalikes(packed: string, from: number, to: number): Lookalike[] {
  if (packed === '') return [];
  return packed
    .split(' ')
    .slice(from, to)
    .map((entry) => {
      const colon = entry.indexOf(':');
      return {
        companyId: { country: entry.slice(0, 2) as Country, companyNumber: entry.slice(2, colon) },
        score: Number(entry.slice(colon + 1)) / 10_000,
      };
    });
}

/** The list item of a company: its identifier, so an answer needs no other read, and its lookalikes. */
export function lookalikesItem(company: Parameters<typeof toIdentifier>[0], packed: string): Item {
  return {
    ...keys.lookalikes(company),
    entity: 'Lookalikes',
    country: company.country,
    companyNumber: company.companyNumber,
    name: company.name,
    ...(company.place === null ? {} : { place: company.place }),
    lookalikes: packed,
  };
}

function toStored(item: Item): StoredLookalikes {
  return {
    identifier: toIdentifier({
      country: item['country'] as Country,
      companyNumber: item['companyNumber'] as string,
      name: item['name'] as string,
      place: (item['place'] as string | undefined) ?? null,
    }),
    packed: (item['lookalikes'] as string | undefined) ?? '',
  };
}
