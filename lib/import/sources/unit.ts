/**
 * What a registry's converter hands the import (contract §11.3, §11.5; architecture "Registry files"):
 * one unit per registry entity, with the fields its source owns and where it came from, or a unit left
 * out on purpose, or a rejected one. The converters under lib/import/sources/ are pure (rows in, units
 * out, no storage); the import validates, merges the owned fields into the stored company (keeping
 * what other sources gave) and derives as for any record.
 */
import type { Address, CompanyRecord } from '../../companies/record';

/** The company fields a registry may own (§11.5.1), in the order a unit that owns them all lists them. */
export const REGISTRY_FIELDS = [
  'name',
  'otherNames',
  'address',
  'place',
  'legalForm',
  'foundedOn',
  'stoppedOn',
  'activities',
  'vatNumber',
  'website',
] as const;

export type RegistryField = (typeof REGISTRY_FIELDS)[number];

/** The owned fields' values. */
export type RegistryFields = Partial<Pick<CompanyRecord, RegistryField>>;

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
  fields: RegistryFields;
  /** Fields present in the file that the converter could not read: left empty, counted as `fields dropped`. */
  dropped: number;
  /**
   * What the import keeps of the unit's registry rows so that a later update applies exactly
   * (§11.5.2): opaque to the import, stored with the company, handed back to the converter.
   */
  registryRows?: unknown;
  /**
   * (ext) The registered address in every language the source gives it (KBO: Dutch and French street
   * and municipality), when it gives more than the one `fields.address` shows: a MOVED update (§8.2)
   * compares these, so that a new display language of the same seat is no move.
   */
  addressForms?: Array<Partial<Address>>;
  /**
   * (ext) The registry's sub-entities that belong to the unit (KBO: its establishments' numbers, as
   * digits): the import keeps a link from each to the company, so that a later update naming only a
   * sub-entity finds the unit it changes (§11.5.2).
   */
  links?: string[];
}

/**
 * The `skipped` reason of a unit whose registry withholds its name (§11.3 privacy). Given with its
 * `company`, a stored company of that number is erased instead (§11.5.6, lib/import/erase.ts).
 */
export const NAME_WITHHELD = 'name withheld';

/** What a converter yields, in the file's order. */
export type RegistryItem =
  | { kind: 'unit'; unit: RegistryUnit }
  /** Left out on purpose (§11.5.4): not read, counted on the `skipped` line under `reason`. */
  | {
      kind: 'skipped';
      reason: string;
      source: UnitSource;
      /** Which company it is, when known: a stored one may still be concerned (§11.5.6: a name now withheld). */
      company?: { country: 'BE' | 'FR'; companyNumber: string };
      /** The unit as it reads, when a stored company should still get it (§11.5.6: a ceased unit under `--active-only`). */
      unit?: RegistryUnit;
    }
  /** Rejected (§11.5.5): an invalid company number or a missing name, reported `FILE line N: reason`. */
  | { kind: 'rejected'; reason: string; source: UnitSource };

/**
 * (ext) What a converter may ask of the stage it imports into, to apply a registry's later files
 * exactly (§11.5.2): the rows kept with its companies, the links from sub-entities to them, and the
 * companies it wrote. Implemented over the table by lib/import/registry-store.ts; a converter without
 * one reads its files alone (a full extract, no stops).
 */
export interface StoredRegistry {
  /** The registry rows kept with these companies of `country` (canonical numbers), as the converter gave them; absent: none kept. */
  rowsOf(country: 'BE' | 'FR', companyNumbers: string[]): Promise<Map<string, unknown>>;
  /** The companies (canonical numbers) these sub-entities (`links` of a unit) belong to; absent: unknown. */
  linkedTo(source: string, entities: string[]): Promise<Map<string, string>>;
  /**
   * Every stored company of `country` that `source` wrote and that is not stopped, page by page, in no
   * particular order (canonical numbers).
   */
  companiesOf(source: string, country: 'BE' | 'FR'): AsyncIterable<string[]>;
}

/**
 * (ext) How a converter maps the raw text of its units (`RawUnit`): `version` names the mapping (bump
 * it whenever what `map` makes of the same text changes), and is in every registry digest of the units
 * it maps (lib/import/registry-digest.ts), so that a digest never matches across a mapping change.
 */
export interface RawMapping {
  version: string;
  map(text: string, source: UnitSource): RegistryItem;
}

/**
 * (ext) A unit as read and not mapped yet: the raw values its mapping reads (JSON text, no line
 * break), which company they are when the converter can tell it before mapping, and how to map them.
 * A re-import compares the raw texts of a block of units to the block's digest and maps only the
 * blocks that differ (contract §11.3: a file imported again goes as fast as its rows are read).
 */
export interface RawUnit {
  kind: 'raw';
  source: UnitSource;
  company: { country: 'BE' | 'FR'; companyNumber: string } | undefined;
  text: string;
  mapping: RawMapping;
}

/** What a converter's unmapped stream yields: units as raw text, or items it made without mapping. */
export type ReadItem = RegistryItem | RawUnit;

/**
 * (ext) A converter's unmapped stream: items one at a time, or several at once in file order (those
 * of a piece of CSV text): a re-import then awaits once a batch, not once a unit.
 */
export type ReadItems = AsyncIterable<ReadItem | readonly ReadItem[]>;
