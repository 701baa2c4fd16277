/**
 * What company details show of a company's periods and contacts (contract §6.5): the newest period's
 * employees and health indicator, and the number of contacts. The import keeps them on the company item
 * as numbers beside the sections they come from (lib/companies/store.ts `companyItem`), so a details
 * read projects three numbers instead of reading and parsing the periods and contacts.
 *
 * Items written before these numbers were kept lack them: `contactCount`, on every item that keeps the
 * numbers, tells the two apart, and such an item's figures are taken from its stored periods and
 * contacts instead (lib/companies/details-store.ts reads those for it).
 */
import type { Contact } from './record';
import type { FinancialPeriod } from './schemas';
import { newestPeriod } from './stored-periods';

export interface DetailsFigures {
  employees: number | null;
  healthIndicator: number | null;
  contacts: number;
}

/** The attributes that hold the figures; a figure that is null is left out (absent reads as null). */
export const DETAILS_FIGURE_ATTRIBUTES = ['newestEmployees', 'newestHealthIndicator', 'contactCount'];

/** The figures' attributes of a company item, from its periods (newest first) and its contacts. */
export function detailsFigureAttributes(
  periods: readonly FinancialPeriod[],
  contacts: readonly Contact[],
): Record<string, number> {
  const newest = periods[0];
  const employees = newest?.people.employees ?? null;
  const healthIndicator = newest?.healthIndicator ?? null;
  return {
    ...(employees === null ? {} : { newestEmployees: employees }),
    ...(healthIndicator === null ? {} : { newestHealthIndicator: healthIndicator }),
    contactCount: contacts.length,
  };
}

/** The figures an item keeps, or null for an item that does not keep them. */
export function keptDetailsFigures(item: Record<string, unknown>): DetailsFigures | null {
  const contacts = item['contactCount'];
  if (typeof contacts !== 'number') return null;
  return {
    employees: (item['newestEmployees'] as number | undefined) ?? null,
    healthIndicator: (item['newestHealthIndicator'] as number | undefined) ?? null,
    contacts,
  };
}

/** The figures taken from an item's stored `periods` and `contacts` (absent ones count as none). */
export function detailsFiguresOfSections(item: Record<string, unknown> | undefined): DetailsFigures {
  const newest = newestPeriod(item?.['periods']);
  const contacts = item?.['contacts'];
  return {
    employees: newest?.people.employees ?? null,
    healthIndicator: newest?.healthIndicator ?? null,
    contacts: typeof contacts === 'string' ? (JSON.parse(contacts) as Contact[]).length : 0,
  };
}
