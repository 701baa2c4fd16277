/**
 * A filing as its converter hands it to the filing import (contract §11.4): one financial period of one
 * company, identified by its `endDate`, with what decides whether it replaces a period already there
 * (§11.5.9: its rank). The converters (lib/filings/cbso.ts, inpi-ratios.ts) are pure: files in,
 * filings out, no storage.
 */
import { createHash } from 'node:crypto';
import type { FinancialPeriod } from '../companies/schemas';
import type { UnitSource } from '../import/sources/unit';
import type { Figures } from './mapping';

export const FILING_FORMATS = ['cbso', 'inpi-ratios'] as const;
export type FilingFormat = (typeof FILING_FORMATS)[number];

export interface Filing {
  source: UnitSource;
  format: FilingFormat;
  country: 'BE' | 'FR';
  /** The company number as the file writes it; valid (the converter rejects an invalid one). */
  companyNumber: string;
  endDate: string;
  /** Belgian: the filing's own; French: null, worked out from the company's periods (§11.4). */
  startDate: string | null;
  /** Belgian: the `DepositDate`; French: null, the date of the import that first brought the figures. */
  dateReceived: string | null;
  /**
   * Compared as text, higher wins (§11.5.9): Belgian `cbso:<DepositDate>#<ReferenceNumber>`; French
   * `inpi:<n>`, 3 consolidated, 2 complete, 1 simplified accounts.
   */
  rank: string;
  healthIndicator: number | null;
  figures: Figures;
  /** Figures the file gave that the period cannot hold (unreadable, or against §6.1's identities). */
  dropped: number;
}

/** What a converter yields, in the files' order. */
export type FilingItem =
  | { kind: 'filing'; filing: Filing }
  /** Left out on purpose: not read, counted on the `skipped` line under `reason` (§11.5.4). */
  | { kind: 'skipped'; reason: string; source: UnitSource }
  /** An invalid company number (§11.5.5): `FILE line N: reason`. */
  | { kind: 'rejected'; reason: string; source: UnitSource };

/**
 * Filings held in memory by the import before a run of them is sorted onto disk (about 300 bytes each
 * as the import's runs hold them, lib/filings/filing-runs.ts; about 1 KB as the engine's split holds
 * whole items): what bounds its memory, whatever the files' size (§11.5.10).
 */
export const FILING_RUN_SIZE = 5_000;

/** The rank prefix of the French ratios' rows: their periods' start dates are worked out (§11.4). */
export const INPI_RANK = 'inpi:';

/**
 * A fingerprint of a period's figures (everything but its dates): the filed-periods record names the
 * filing a stored period came from by it, and a French period keeps its `dateReceived` while it holds.
 */
export function figuresHash(p: Omit<FinancialPeriod, 'startDate' | 'endDate' | 'dateReceived'>): string {
  const { healthIndicator, jointCommitteeCodes, profitability, liquidity, solvency, people } = p;
  return createHash('sha256')
    .update(
      JSON.stringify([healthIndicator, jointCommitteeCodes, profitability, liquidity, solvency, people]),
    )
    .digest('base64url')
    .slice(0, 22);
}
