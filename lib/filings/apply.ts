/**
 * A company's filings applied to its periods (contract §11.4, §11.5.9), as a pure function: the
 * periods as stored and which filing brought each (the filed-periods record), the filings of one
 * import for that company, and the import's as-of date in; the periods after, the record of filings
 * after, and what each filing did out.
 *
 * - A filing is the period of its `endDate`. It replaces the period there when it ranks at least as
 *   high as the filing that brought it (Belgian: later by `DepositDate`, then `ReferenceNumber`;
 *   French: consolidated > complete > simplified), whatever the order of imports; a period no filing
 *   brought (a JSON Lines record's) is replaced by any filing. A lower-ranked filing changes nothing.
 * - Which filing brought a stored period is the highest-ranked filing on record for its `endDate` whose
 *   figures are the period's: a record written before a company write that never happened (a cut-off
 *   run) names no period, and a period a later JSON Lines record rewrote is named by none. Entries for
 *   an `endDate` with no stored period are dropped: a company without periods needs no record read.
 * - A French period's `dateReceived` is the as-of date of the import that first brought its figures;
 *   its `startDate` the day after the company's previous `endDate`, else a year before its `endDate`
 *   plus a day, worked out from the final periods (§11.4).
 */
import type { FinancialPeriod } from '../companies/schemas';
import { byCodePoint } from '../order';
import { figuresHash, INPI_RANK, type Filing } from './filing';

/** Per `endDate`, the filings that gave a period for it: their rank and the hash of their figures. */
export type FiledPeriods = Record<string, Array<{ rank: string; figures: string }>>;

/** What a filing did to the company's periods (§11.5.4): counted as new, changed, unchanged, or skipped. */
export type Outcome = 'new' | 'replaced' | 'identical' | 'superseded';

export interface Applied {
  /** Newest first. */
  financials: FinancialPeriod[];
  filed: FiledPeriods;
  outcomes: Outcome[];
}

export function applyFilings(
  stored: readonly FinancialPeriod[],
  filed: FiledPeriods,
  filings: readonly Filing[],
  asOf: string,
): Applied {
  const periods = new Map(stored.map((p) => [p.endDate, p]));
  // Entries for an `endDate` without a stored period name nothing (a cut-off run's, or a period a
  // JSON Lines record dropped): they are left out, so they can never rank a period a later filing brings.
  const record: FiledPeriods = Object.fromEntries(
    Object.entries(filed)
      .filter(([end]) => periods.has(end))
      .map(([end, list]) => [end, [...list]]),
  );
  // Each period's fingerprint is worked out once (a company's periods are looked at several times).
  const hashes = new WeakMap<FinancialPeriod, string>();
  const hashOf = (period: FinancialPeriod) => {
    let hash = hashes.get(period);
    if (hash === undefined) hashes.set(period, (hash = figuresHash(period)));
    return hash;
  };
  const outcomes = filings.map((filing): Outcome => {
    const existing = periods.get(filing.endDate);
    const broughtBy = existing ? rankOf(record, existing, hashOf) : null;
    if (broughtBy !== null && byCodePoint(filing.rank, broughtBy) < 0) return 'superseded';
    const period = periodOf(filing, existing, asOf, hashOf);
    const hash = hashOf(period);
    const entries = (record[filing.endDate] ??= []);
    if (!entries.some((e) => e.rank === filing.rank && e.figures === hash))
      entries.push({ rank: filing.rank, figures: hash });
    periods.set(filing.endDate, period);
    if (!existing) return 'new';
    return sameExceptStart(existing, period) ? 'identical' : 'replaced';
  });
  const financials = [...periods.values()].sort((a, b) => byCodePoint(b.endDate, a.endDate));
  // French periods start the day after the previous one ends (newest first: the previous is next).
  // Only a period a French filing is on record for can be one (a Belgian one's need not be hashed).
  const french = (period: FinancialPeriod) =>
    record[period.endDate]?.some((e) => e.rank.startsWith(INPI_RANK)) === true &&
    rankOf(record, period, hashOf)?.startsWith(INPI_RANK) === true;
  const dated = financials.map((period, i) =>
    french(period)
      ? { ...period, startDate: startAfter(financials[i + 1]?.endDate, period.endDate) }
      : period,
  );
  return { financials: dated, filed: record, outcomes };
}

/** The rank of the filing that brought the period, or null when none on record did. */
function rankOf(
  filed: FiledPeriods,
  period: FinancialPeriod,
  hashOf: (period: FinancialPeriod) => string,
): string | null {
  const entries = filed[period.endDate];
  if (!entries?.length) return null;
  const hash = hashOf(period);
  let best: string | null = null;
  for (const entry of entries)
    if (entry.figures === hash && (best === null || byCodePoint(entry.rank, best) > 0)) best = entry.rank;
  return best;
}

/** The filing as a period in the contract's key order (a French one's start date is set later). */
function periodOf(
  filing: Filing,
  existing: FinancialPeriod | undefined,
  asOf: string,
  hashOf: (period: FinancialPeriod) => string,
): FinancialPeriod {
  const { figures } = filing;
  const period: FinancialPeriod = {
    startDate: filing.startDate ?? existing?.startDate ?? startAfter(undefined, filing.endDate),
    endDate: filing.endDate,
    dateReceived: filing.dateReceived ?? asOf,
    healthIndicator: filing.healthIndicator,
    jointCommitteeCodes: [],
    profitability: { ...figures.profitability },
    liquidity: { ...figures.liquidity },
    solvency: { ...figures.solvency },
    people: { ...figures.people },
  };
  // A French period keeps the date it was first received while its figures do not change.
  if (filing.dateReceived === null && existing && hashOf(existing) === hashOf(period))
    period.dateReceived = existing.dateReceived;
  return period;
}

const sameExceptStart = (a: FinancialPeriod, b: FinancialPeriod) =>
  JSON.stringify({ ...a, startDate: '' }) === JSON.stringify({ ...b, startDate: '' });

/** The day after `previousEnd`, else a year before `end` plus a day (`2023-12-31` → `2023-01-01`). */
export function startAfter(previousEnd: string | undefined, end: string): string {
  if (previousEnd !== undefined) return shiftDays(previousEnd, 1);
  const date = new Date(`${end}T00:00:00Z`);
  date.setUTCFullYear(date.getUTCFullYear() - 1);
  // 29 February less a year is 1 March in Date: a year before it is 28 February.
  if (end.endsWith('-02-29')) date.setUTCDate(date.getUTCDate() - 1);
  return shiftDays(date.toISOString().slice(0, 10), 1);
}

function shiftDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}
