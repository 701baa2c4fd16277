/**
 * What a registry's converter hands the import (contract §11.3, §11.5; architecture "Registry files"):
 * one unit per registry entity, with the fields its source owns and where it came from, or a unit left
 * out on purpose, or a rejected one. The converters under lib/import/sources/ are pure (rows in, units
 * out, no storage); the import validates, merges the owned fields into the stored company (keeping
 * what other sources gave) and derives as for any record.
 */
import type { CompanyRecord } from '../../companies/record';

/** The company fields a registry may own (§11.5.1). */
export const REGISTRY_FIELDS = [
  'name',
  'otherNames',
  'place',
  'address',
  'legalForm',
  'foundedOn',
  'stoppedOn',
  'activities',
  'vatNumber',
  'website',
] as const;

export type RegistryField = (typeof REGISTRY_FIELDS)[number];

/** Where a unit starts: the CSV's own file name (as in the ZIP or folder) and physical line (header = 1). */
export interface UnitSource {
  file: string;
  line: number;
}

export interface RegistryUnit {
  source: UnitSource;
  country: 'BE' | 'FR';
  /** As the registry writes it (any input form of §3): the import validates it and makes it canonical. */
  companyNumber: string;
  /** The fields this source owns for this unit: each one is set from `fields`, absent there = empty. */
  owns: readonly RegistryField[];
  fields: Partial<Pick<CompanyRecord, RegistryField>>;
  /** Fields present in the file that the converter could not read: left empty, counted as `fields dropped`. */
  dropped: number;
  /**
   * What the import keeps of the unit's registry rows so that a later update applies exactly
   * (§11.5.2): opaque to the import, stored with the company, handed back to the converter.
   */
  registryRows?: unknown;
}

/** What a converter yields, in the file's order. */
export type RegistryItem =
  | { kind: 'unit'; unit: RegistryUnit }
  /** Left out on purpose (§11.5.4): not read, counted on the `skipped` line under `reason`. */
  | { kind: 'skipped'; reason: string; source: UnitSource }
  /** Rejected (§11.5.5): an invalid company number or a missing name, reported `FILE line N: reason`. */
  | { kind: 'rejected'; reason: string; source: UnitSource };
