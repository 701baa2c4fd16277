/**
 * The keys of filter profile entries (the `Filter profile entry` row of the table in keys.ts, which
 * re-exports these): a company's filter profile again under each of its NACE codes, under its place,
 * and under the value of each figure in its tail (lib/lists/range-entries.ts).
 */
import type { CompanyRef } from '../company-ref';

/** keys.ts's `Key` (keys.ts re-exports this module, so this one does not import it). */
type Key = { pk: string; sk: string };

/** A company's filter profile entry under one of its NACE codes (found by the code's prefixes). */
export const filterProfileByActivity = (ref: CompanyRef, code: string): Key => ({
  pk: filterProfilesByActivity(ref.country, code.slice(0, 2)),
  sk: `${code}#${ref.companyNumber}`,
});

/** The entries of a country's companies with a NACE code in `division` (2 digits). */
export const filterProfilesByActivity = (country: string, division: string): string =>
  `FILTER_PROFILES#${country}#ACT#${division}`;

/** A company's filter profile entry under its place (`placeKey`). */
export const filterProfileByPlace = (ref: CompanyRef, place: string): Key => ({
  pk: filterProfilesByPlace(ref.country, place),
  sk: ref.companyNumber,
});

/** The entries of a country's companies in `place`. */
export const filterProfilesByPlace = (country: string, place: string): string =>
  `FILTER_PROFILES#${country}#PLACE#${place}`;

/** The figures whose tail has entries sorted by value (lib/lists/range-entries.ts). */
export type RangeFigure = 'employees' | 'totalAssets';

/**
 * A number as a string whose order is the numbers' order: the 64 bits of the double as 16 hex digits,
 * the sign bit set for a positive number and every bit flipped for a negative one. Exact for every
 * finite number (no padding width to outgrow, decimals kept), so one Query `BETWEEN` reads a range.
 */
export function sortableNumber(value: number): string {
  const bits = new DataView(new ArrayBuffer(8));
  // `+ 0` makes -0 the 0 it equals.
  bits.setFloat64(0, value + 0);
  const high = bits.getUint32(0);
  const low = bits.getUint32(4);
  const negative = high >>> 31 === 1;
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return negative ? hex(~high) + hex(~low) : hex(high | 0x8000_0000) + hex(low);
}

/** A company's filter profile entry under the value of one of its figures (`figure`, `value`). */
export const filterProfileByRange = (ref: CompanyRef, figure: RangeFigure, value: number): Key => ({
  pk: filterProfilesByRange(ref.country, figure),
  sk: `${sortableNumber(value)}#${ref.companyNumber}`,
});

/** The entries of a country's companies by the value of `figure`, sorted by it. */
export const filterProfilesByRange = (country: string, figure: RangeFigure): string =>
  `FILTER_PROFILES#${country}#RANGE#${figure}`;

/**
 * The sort keys of the entries whose value lies in `[min, max]` (`max` absent: no upper end), for a
 * Query `sk BETWEEN from AND to` (or `sk >= from`): `$` sorts right after the `#` that ends a value.
 */
export const filterProfileRangeKeys = (min: number, max?: number): { from: string; to?: string } => ({
  from: sortableNumber(min),
  ...(max === undefined ? {} : { to: `${sortableNumber(max)}$` }),
});
