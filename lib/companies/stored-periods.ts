/**
 * How a company item holds its financial periods (contract §6.1): the `periods` attribute is the
 * periods' JSON texts, newest first, each written by JSON.stringify (the contract's key order, no white
 * space), one a line, deflated (raw DEFLATE) into one binary attribute; a company without periods holds
 * an empty list. A period's text repeats the contract's field names, which are most of its bytes:
 * deflated, three periods take about a fifth of their text, so the company item an import rewrites with
 * every change is that much smaller to write and to read. A page of periods is a range of the texts sent
 * as they are, and a single period is parsed alone: no reader parses more periods than it uses.
 *
 * Items written before hold them as a list of one JSON text per period (the list form) or as one JSON
 * text of the whole array (the legacy form); a deployed stage keeps those items until their company is
 * imported again, so every reader here accepts the three forms and answers the same for each.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { FinancialPeriod } from './schemas';

/**
 * The `periods` attribute of a company item: the periods' texts in the order given, deflated (JSON
 * text has no raw line break, so a line is a period); [] when there are none.
 */
export function periodsAttribute(periods: readonly FinancialPeriod[]): Uint8Array | string[] {
  if (periods.length === 0) return [];
  const texts: string[] = [];
  for (const period of periods) texts.push(JSON.stringify(period));
  return deflateRawSync(texts.join('\n'));
}

/** The stored periods as one JSON text each, newest first; [] when the item has none. */
export function periodTexts(stored: unknown): readonly string[] {
  if (stored instanceof Uint8Array) return inflateRawSync(stored).toString('utf8').split('\n');
  if (Array.isArray(stored)) return stored as string[];
  // A legacy item's periods are parsed and written again one by one: the same texts the other forms hold.
  if (typeof stored === 'string')
    return (JSON.parse(stored) as FinancialPeriod[]).map((p) => JSON.stringify(p));
  return [];
}

/** The stored periods as values, newest first; [] when the item has none. */
export function storedPeriods(stored: unknown): FinancialPeriod[] {
  if (typeof stored === 'string') return JSON.parse(stored) as FinancialPeriod[];
  const periods: FinancialPeriod[] = [];
  for (const text of periodTexts(stored)) periods.push(JSON.parse(text) as FinancialPeriod);
  return periods;
}

/** The newest stored period (stored first), or null when the item has none. */
export function newestPeriod(stored: unknown): FinancialPeriod | null {
  if (stored instanceof Uint8Array) {
    const text = inflateRawSync(stored).toString('utf8');
    const end = text.indexOf('\n');
    return JSON.parse(end === -1 ? text : text.slice(0, end)) as FinancialPeriod;
  }
  if (Array.isArray(stored))
    return stored.length === 0 ? null : (JSON.parse(stored[0] as string) as FinancialPeriod);
  if (typeof stored === 'string') return (JSON.parse(stored) as FinancialPeriod[])[0] ?? null;
  return null;
}
