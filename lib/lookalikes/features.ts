/**
 * What a lookalike is compared on (contract §6.3), taken from a company record: the main NACE
 * activity, the size of the latest financial period (employees, total assets), the place and country,
 * and the profile (founding year, health indicator). Plus the name, which the stored list repeats in
 * its identifier. Unknown is `null`.
 *
 * A company's lookalikes are looked for among the companies sharing the NACE section of its main
 * activity — the activity the score compares (lib/lookalikes/scoring.ts), so "shares a section" means
 * "scores at least the section's activity part". A division outside every section has no section to
 * share: its companies are compared with their division (the most they can share). Companies without an
 * activity are compared with each other. Features are stored per block (the NACE division), and a
 * section is read as the blocks of its divisions.
 */
import type { CompanyRef } from '../companies/identifiers';
import type { CompanyRecord } from '../companies/record';
import { naceSection } from './nace';

export interface LookalikeFeatures extends CompanyRef {
  name: string;
  place: string | null;
  /** The main NACE code, digits only (2 to 5). */
  activity: string | null;
  employees: number | null;
  totalAssets: number | null;
  foundedYear: number | null;
  healthIndicator: number | null;
  /** (ext) The company stopped (`stoppedOn` set): it keeps its lookalikes but is nobody's (§11.5.8). */
  stopped?: true;
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
> &
  Partial<Pick<CompanyRecord, 'stoppedOn'>>;

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
    ...(record.stoppedOn ? { stopped: true as const } : {}),
  };
}

export function blockOf(features: Pick<LookalikeFeatures, 'activity'>): string {
  return features.activity ? features.activity.slice(0, 2) : NO_ACTIVITY_BLOCK;
}

/** The candidates' group of a block: its NACE section, else the block itself (see the file comment). */
export function sectionOfBlock(block: string): string {
  return block === NO_ACTIVITY_BLOCK ? block : (naceSection(block) ?? block);
}

export function sectionOf(features: Pick<LookalikeFeatures, 'activity'>): string {
  return sectionOfBlock(blockOf(features));
}

/** Every section with the blocks it is read from. */
export const SECTION_BLOCKS: ReadonlyMap<string, readonly string[]> = ALL_BLOCKS.reduce((sections, block) => {
  const section = sectionOfBlock(block);
  sections.set(section, [...(sections.get(section) ?? []), block]);
  return sections;
}, new Map<string, string[]>());

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
    // An active company's features pack as they always did.
    ...(f.stopped ? [1] : []),
  ]);
}

export function unpackFeatures(ref: CompanyRef, packed: string): LookalikeFeatures {
  const [activity, employees, totalAssets, foundedYear, healthIndicator, name, place, stopped] = JSON.parse(
    packed,
  ) as [string | null, number | null, number | null, number | null, number | null, string, string | null, 1?];
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
    ...(stopped ? { stopped: true as const } : {}),
  };
}

export function sameFeatures(a: LookalikeFeatures | null, b: LookalikeFeatures | null): boolean {
  return a !== null && b !== null && a.country === b.country && packFeatures(a) === packFeatures(b);
}
