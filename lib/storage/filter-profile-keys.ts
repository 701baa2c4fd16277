/**
 * The keys of filter profile entries (the `Filter profile entry` row of the table in keys.ts, which
 * re-exports these): a company's filter profile again under each of its NACE codes and under its place.
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
