/**
 * The derivation point (contract §11.2): the one place where what follows from a company's change is
 * computed — updates (§8.2), holdings in both directions (§6.2), legal entities (§6.4), smart-list
 * results (§7.6) and the lookalikes to recompute (§6.3). Each is a `Derivation` in the list below; the
 * import calls `deriveChange` once per changed company, never for an unchanged one, after the company
 * is written and before its derivation marker is removed (so a cut-off run derives again, and every
 * derivation must be idempotent for the same change).
 */
import type { CompanyRecord } from '../companies/record';

export interface CompanyChange {
  /** The company as it was; null when it is new. */
  before: CompanyRecord | null;
  after: CompanyRecord;
  /** The import's as-of date (`YYYY-MM-DD`): "the day of the change". */
  asOf: string;
}

export interface Derived {
  /** Updates (§8) this change produced. */
  updates: number;
}

export type Derivation = (change: CompanyChange) => Promise<Derived>;

/** What each change derives, in order. The endpoint issues add theirs here. */
const derivations: Derivation[] = [];

export async function deriveChange(change: CompanyChange): Promise<Derived> {
  let updates = 0;
  for (const derive of derivations) updates += (await derive(change)).updates;
  return { updates };
}
