/**
 * What a lookalike is compared on (contract §6.3), taken from a company record: the main NACE
 * activity, the size of the latest financial period (employees, total assets), the place and country,
 * and the profile (founding year, health indicator). Plus the name, which the stored list repeats in
 * its identifier. Unknown is `null`.
 *
 * Candidates are blocked by NACE division (the first two digits of the main activity): a company's
 * lookalikes are looked for among the companies of its own division only (README, "Lookalikes").
 */
import type { CompanyRef } from '../companies/identifiers';
import type { CompanyRecord } from '../companies/record';

export interface LookalikeFeatures extends CompanyRef {
  name: string;
  place: string | null;
  /** The main NACE code, digits only (2 to 5). */
  activity: string | null;
  employees: number | null;
  totalAssets: number | null;
  foundedYear: number | null;
  healthIndicator: number | null;
}

/** The block of companies without an activity: they are compared with each other only. */
export const NO_ACTIVITY_BLOCK = 'NONE';

/** Every block there can be: the 100 two-digit divisions and the companies without an activity. */
export const ALL_BLOCKS: readonly string[] = [
  ...Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')),
  NO_ACTIVITY_BLOCK,
];

/** What the features are taken from: a company record, or the parts of a stored company item. */
export type FeatureSource = Pick<
  CompanyRecord,
  'country' | 'companyNumber' | 'name' | 'place' | 'foundedOn' | 'activities' | 'financials'
>;

export function featuresOf(record: FeatureSource): LookalikeFeatures {
  // Periods are stored newest first.
  const latest = record.financials[0];
  return {
    country: record.country,
    companyNumber: record.companyNumber,
    name: record.name,
    place: record.place,
    activity: record.activities[0] ?? null,
    employees: latest?.people.employees ?? null,
    totalAssets: latest?.solvency.totalAssets ?? null,
    foundedYear: record.foundedOn ? Number(record.foundedOn.slice(0, 4)) : null,
    healthIndicator: latest?.healthIndicator ?? null,
  };
}

export function blockOf(features: Pick<LookalikeFeatures, 'activity'>): string {
  return features.activity ? features.activity.slice(0, 2) : NO_ACTIVITY_BLOCK;
}

/** The features as stored in a block item: one short JSON array (the key already names the company). */
export function packFeatures(f: LookalikeFeatures): string {
  return JSON.stringify([
    f.activity,
    f.employees,
    f.totalAssets,
    f.foundedYear,
    f.healthIndicator,
    f.name,
    f.place,
  ]);
}

export function unpackFeatures(ref: CompanyRef, packed: string): LookalikeFeatures {
  const [activity, employees, totalAssets, foundedYear, healthIndicator, name, place] = JSON.parse(
    packed,
  ) as [string | null, number | null, number | null, number | null, number | null, string, string | null];
  return {
    country: ref.country,
    companyNumber: ref.companyNumber,
    name,
    place,
    activity,
    employees,
    totalAssets,
    foundedYear,
    healthIndicator,
  };
}

export function sameFeatures(a: LookalikeFeatures | null, b: LookalikeFeatures | null): boolean {
  return a !== null && b !== null && a.country === b.country && packFeatures(a) === packFeatures(b);
}
