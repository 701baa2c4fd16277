/**
 * Stored lookalike lists, as the endpoints read them: one item per company (key pattern in
 * lib/storage/keys.ts) holding the company's identifier and its kept lookalikes, best first, packed in
 * one binary attribute of six bytes a lookalike (`packLookalikes`): a list of 100 is 600 bytes, so the
 * item with its identifier stays within one write unit (1 KB), where the same list as text
 * (`BE0403170701:8994 NL33011433:8512 …`) took about 1.8 KB. Items holding the text form are read too.
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
  packed: PackedLookalikes;
}

/** A stored list: six bytes a lookalike (`packLookalikes`), or the text form of items written before. */
export type PackedLookalikes = Uint8Array | string;

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

/**
 * The stored form of a list, best first: six bytes a lookalike, its company number as an unsigned
 * 32-bit integer (every country's canonical number is at most 10 digits below 2,000,000,000, and its
 * digit count is the country's: `NUMBER_DIGITS`), then 16 bits holding the country's index in
 * `PACKED_COUNTRIES` (2 bits) and the score in ten-thousandths (14 bits: 0 to 10,000). Fixed-size
 * entries let a page be read at its offset without reading the entries before it.
 */
export function packLookalikes(list: { ref: CompanyRef; score: number }[]): Uint8Array {
  const bytes = new Uint8Array(list.length * ENTRY_BYTES);
  const view = new DataView(bytes.buffer);
  list.forEach(({ ref, score }, i) => {
    const country = PACKED_COUNTRIES.indexOf(ref.country);
    const number = Number(ref.companyNumber);
    if (country < 0 || ref.companyNumber.length !== NUMBER_DIGITS[ref.country] || !(number <= 0xffff_ffff))
      throw new Error(`lookalike ${ref.country}${ref.companyNumber}: not a canonical company number`);
    if (!Number.isInteger(score) || score < 0 || score > 10_000)
      throw new Error(`lookalike score ${score}: not in ten-thousandths from 0 to 10000`);
    view.setUint32(i * ENTRY_BYTES, number);
    view.setUint16(i * ENTRY_BYTES + 4, (country << 14) | score);
  });
  return bytes;
}

/** A packed entry's bytes. */
const ENTRY_BYTES = 6;
/** The countries by their index in a packed entry: the stored form's, never reordered. */
const PACKED_COUNTRIES: readonly Country[] = ['BE', 'NL', 'FR'];
/** The digits of each country's canonical number (lib/companies/identifiers.ts): leading zeros back. */
const NUMBER_DIGITS: Record<Country, number> = { BE: 10, NL: 8, FR: 9 };

export function countLookalikes(packed: PackedLookalikes): number {
  if (typeof packed !== 'string') return packed.length / ENTRY_BYTES;
  if (packed === '') return 0;
  let count = 1;
  for (let i = packed.indexOf(' '); i !== -1; i = packed.indexOf(' ', i + 1)) count++;
  return count;
}

/** Entries `from` up to (not including) `to` of a packed list, in the contract's shape. */
export function unpackLookalikes(packed: PackedLookalikes, from: number, to: number): Lookalike[] {
  if (typeof packed === 'string') return unpackText(packed, from, to);
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const end = Math.min(to, packed.length / ENTRY_BYTES);
  const page: Lookalike[] = [];
  for (let i = from; i < end; i++) {
    const tail = view.getUint16(i * ENTRY_BYTES + 4);
    const country = PACKED_COUNTRIES[tail >> 14]!;
    page.push({
      companyId: {
        country,
        companyNumber: String(view.getUint32(i * ENTRY_BYTES)).padStart(NUMBER_DIGITS[country], '0'),
      },
      score: (tail & 0x3fff) / 10_000,
    });
  }
  return page;
}

/** A page of a list stored as text (`BE0403170701:8994 NL33011433:8512 …`), as items written before hold it. */
function unpackText(packed: string, from: number, to: number): Lookalike[] {
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
export function lookalikesItem(company: Parameters<typeof toIdentifier>[0], packed: PackedLookalikes): Item {
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
    packed: (item['lookalikes'] as PackedLookalikes | undefined) ?? '',
  };
}
