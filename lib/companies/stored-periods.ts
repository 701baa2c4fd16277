/**
 * How a company item holds its financial periods (contract §6.1): the `periods` attribute is a list
 * with one JSON text per period, newest first, each written by JSON.stringify (the contract's key
 * order, no white space). A page of periods is a range of the list sent as it is, and a single period
 * is parsed alone: no reader parses more periods than it uses.
 *
 * Items written before the periods became a list hold them as one JSON text of the whole array (the
 * legacy form); a deployed stage keeps those items until their company is imported again, so every
 * reader here accepts both forms and answers the same for either.
 */
import type { FinancialPeriod } from './schemas';

/** The `periods` attribute of a company item: one JSON text per period, in the order given. */
export function periodsAttribute(periods: readonly FinancialPeriod[]): string[] {
  const texts: string[] = [];
  for (const period of periods) texts.push(JSON.stringify(period));
  return texts;
}

/**
 * The stored periods as one JSON text each, newest first; [] when the item has none. A legacy item's
 * periods are parsed and written again one by one: the same texts the list form holds.
 */
export function periodTexts(stored: unknown): readonly string[] {
  if (Array.isArray(stored)) return stored as string[];
  if (typeof stored === 'string') return periodsAttribute(JSON.parse(stored) as FinancialPeriod[]);
  return [];
}

/** The stored periods as values, newest first; [] when the item has none. */
export function storedPeriods(stored: unknown): FinancialPeriod[] {
  if (Array.isArray(stored)) {
    const periods: FinancialPeriod[] = [];
    for (const text of stored as string[]) periods.push(JSON.parse(text) as FinancialPeriod);
    return periods;
  }
  if (typeof stored === 'string') return JSON.parse(stored) as FinancialPeriod[];
  return [];
}

/** The newest stored period (stored first), or null when the item has none. */
export function newestPeriod(stored: unknown): FinancialPeriod | null {
  if (Array.isArray(stored))
    return stored.length === 0 ? null : (JSON.parse(stored[0] as string) as FinancialPeriod);
  if (typeof stored === 'string') return (JSON.parse(stored) as FinancialPeriod[])[0] ?? null;
  return null;
}
