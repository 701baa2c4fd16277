/**
 * What a derivation is (contract §11.2): the change it is handed, what it hands back, and the run's
 * completions. Derivations import these types; lib/import/derive.ts lists the derivations and runs them.
 */
import type { CompanyRecord } from '../companies/record';
import type { Addition, SetChange } from '../storage/transactions';
import type { Key } from '../storage/keys';

export interface CompanyChange {
  /** The company as it was; null when it is new. */
  before: CompanyRecord | null;
  after: CompanyRecord;
  /** The import's as-of date (`YYYY-MM-DD`): "the day of the change". */
  asOf: string;
  /**
   * The import batch that wrote the change (its journal's id): the same when a cut-off run derives
   * the change again, another for every later change of the company.
   */
  changeId: string;
  /** The company's legal entity id, when the import assigned it already (the derivations claim it otherwise). */
  legalEntityId?: string;
  /**
   * (ext) The change is the first write of the company by a source that had not written it before (a
   * registry taking over from JSON Lines): no `NAME_CHANGED`, `MOVED` or `STOPPED` then (§8.2).
   */
  firstBySource?: boolean;
  /**
   * (ext) The registered address in each language the registry gives it, before and after (JSON text
   * of address lists; absent: not known): MOVED compares these when both are known (§8.2).
   */
  addressForms?: { before?: string; after?: string };
  /**
   * (ext) The company is gone: erased because its registry now withholds its name (§11.5.6). `after`
   * is then its erased record (number and country, every other field empty: lib/import/erase.ts), and
   * each derivation removes what it derived of the company, so it answers as one never imported.
   */
  gone?: boolean;
}

export interface Derived {
  /** Updates (§8) this change produced. */
  updates: number;
  /**
   * Unconditional writes the import makes for a whole batch of changes in BatchWriteItem requests
   * (25 items a request instead of one request a change), before the batch's journal goes, so a run
   * cut off earlier derives and writes them again.
   */
  writes?: DerivedWrites;
}

export interface DerivedWrites {
  puts: Record<string, unknown>[];
  deletes: Key[];
  /**
   * Attributes added to items only where they lack them (lib/storage/batch.ts `batchAdd`): for facts
   * that accumulate in one item and must never be written twice (the update feed). Up to 100 items a
   * request.
   */
  additions?: Addition[];
  /** Members added to or taken out of string sets (`batchSetChanges`): the match indexes. */
  setChanges?: SetChange[];
}

export type Derivation = (change: CompanyChange) => Promise<Derived>;

/**
 * A derivation over a whole batch of changes at once, for facts shared between companies that are
 * cheaper read and written together (the holdings: one round of reads for the batch's companies and
 * their holders, then one write per item). The import runs one batch's at a time.
 */
export type BatchDerivation = (changes: CompanyChange[]) => Promise<Derived>;

export type Completion = () => Promise<void>;
