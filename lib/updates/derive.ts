/**
 * Where updates come from (contract §8.2), as pure functions of one change of a company's data:
 * (the record before, the record after, the import's as-of date) → the updates that change derives.
 *
 * - `PUBLISHED_FINANCIALS`: a period whose `endDate` was not there before (a period is identified by
 *   its `endDate`: figures corrected under the same `endDate` derive nothing). A company's first
 *   import has no record before, so every period of its history is new.
 * - `GROSS_MARGIN_GROWTH` and `HEALTHDROP`: a new period compared with "the previous period", the one
 *   with the next older `endDate` in the data after the change (so a period inserted between two
 *   others is compared with the next older one).
 * - `PEOPLE_LEFT`: contacts (by `contactId`) that were in the data before and are not after, dated
 *   the day of the change (the as-of date).
 * - (ext) `NAME_CHANGED`, `MOVED`, `STOPPED`: lib/updates/registry-changes.ts.
 *
 * Each update carries a numeric id derived from its event alone, so deriving the same event twice
 * gives the same id, never two updates (the feed is keyed by it: lib/updates/store.ts).
 */
import { createHash } from 'node:crypto';
import type { CompanyRef } from '../companies/identifiers';
import type { CompanyRecord, Contact } from '../companies/record';
import type { FinancialPeriod } from '../companies/schemas';
import { byCodePoint, folded } from '../order';
import { registryEvents, type ChangeContext, type RegistryUpdateFacts } from './registry-changes';

export const UPDATE_TYPES = [
  'PUBLISHED_FINANCIALS',
  'GROSS_MARGIN_GROWTH',
  'HEALTHDROP',
  'PEOPLE_LEFT',
  'NAME_CHANGED',
  'MOVED',
  'STOPPED',
] as const;
export type UpdateType = (typeof UPDATE_TYPES)[number];

/** What an update says; its title is put in words per language when it is served (lib/updates/titles.ts). */
export type UpdateFacts =
  | { type: 'PUBLISHED_FINANCIALS'; year: number }
  | { type: 'GROSS_MARGIN_GROWTH'; pct: number }
  | { type: 'HEALTHDROP'; drop: number }
  /** `names`: the first three who left, in the contract's order; `count`: how many left in all. */
  | { type: 'PEOPLE_LEFT'; names: string[]; count: number }
  /** (ext) Registered facts that changed (lib/updates/registry-changes.ts). */
  | RegistryUpdateFacts;

export type Update = UpdateFacts & {
  /** A numeric string, the same for the same event (`updateId`). */
  id: string;
  /** `YYYY-MM-DD`. */
  time: string;
};

/** Growth of at least this fraction of the previous gross margin fires GROSS_MARGIN_GROWTH. */
const GROWTH_THRESHOLD = { numerator: 1n, denominator: 10n };
/** A PEOPLE_LEFT title names this many people; the others are counted. */
export const NAMED_PEOPLE = 3;

/**
 * The updates one change derives (contract §8.2), in no particular order. `context`: whether the change
 * is a source's first write of the company, and the address in each language the registry gives it
 * (lib/derivation/change.ts).
 */
export function deriveUpdates(
  before: CompanyRecord | null,
  after: CompanyRecord,
  asOf: string,
  context: ChangeContext = {},
): Update[] {
  if (context.gone) return [];
  const company: CompanyRef = { country: after.country, companyNumber: after.companyNumber };
  const known = new Set((before?.financials ?? []).map((p) => p.endDate));
  // Newest first, whatever order the record keeps them in: the previous of periods[i] is periods[i + 1].
  const periods = [...after.financials].sort((a, b) => byCodePoint(b.endDate, a.endDate));
  const updates: Update[] = [];
  periods.forEach((period, i) => {
    if (known.has(period.endDate)) return;
    const event = (type: UpdateType) => ({
      id: updateId(company, `${type}#${period.endDate}`),
      time: period.dateReceived,
    });
    updates.push({ ...event('PUBLISHED_FINANCIALS'), type: 'PUBLISHED_FINANCIALS', year: yearOf(period) });
    const previous = periods[i + 1];
    if (!previous) return;
    const pct = grossMarginGrowth(previous, period);
    if (pct !== null) updates.push({ ...event('GROSS_MARGIN_GROWTH'), type: 'GROSS_MARGIN_GROWTH', pct });
    // Both indicators must be numbers (§11.5.9): an undisclosed health drops by nothing.
    const drop =
      previous.healthIndicator === null || period.healthIndicator === null
        ? 0
        : previous.healthIndicator - period.healthIndicator;
    if (drop > 0) updates.push({ ...event('HEALTHDROP'), type: 'HEALTHDROP', drop });
  });
  const left = peopleWhoLeft(before, after);
  if (left.length > 0) {
    const ids = left.map((c) => c.contactId).sort((a, b) => a - b);
    updates.push({
      id: updateId(company, `PEOPLE_LEFT#${asOf}#${ids.join(',')}`),
      time: asOf,
      type: 'PEOPLE_LEFT',
      names: left.slice(0, NAMED_PEOPLE).map(fullName),
      count: left.length,
    });
  }
  for (const { facts, event, time } of registryEvents(before, after, asOf, context))
    updates.push({ ...facts, id: updateId(company, event), time });
  return updates;
}

/**
 * The growth of `next`'s gross margin over `previous`'s in whole percent, when it is at least 10 % and
 * the previous one is positive; else null. Exact: amounts have at most 2 decimals, so they are compared
 * in integer cents (9.99 % stays under 10 %, exactly 10 % fires); the percentage is then rounded half up.
 */
export function grossMarginGrowth(previous: FinancialPeriod, next: FinancialPeriod): number | null {
  const was = cents(previous.profitability.grossMargin);
  const now = cents(next.profitability.grossMargin);
  if (was === null || now === null || was <= 0n) return null;
  const growth = now - was;
  if (growth * GROWTH_THRESHOLD.denominator < was * GROWTH_THRESHOLD.numerator) return null;
  // round(100 · growth / was), half up: floor((200 · growth + was) / (2 · was)); all terms positive.
  return Number((200n * growth + was) / (2n * was));
}

/** The contacts before whose `contactId` is gone after, ordered as titles name them. */
export function peopleWhoLeft(before: CompanyRecord | null, after: CompanyRecord): Contact[] {
  if (!before) return [];
  const staying = new Set(after.contacts.map((c) => c.contactId));
  return before.contacts.filter((c) => !staying.has(c.contactId)).sort(byName);
}

/** By last name, then first name, compared ignoring case and accents; ties by the names as written, then id. */
export function byName(a: Contact, b: Contact): number {
  return (
    byCodePoint(folded(a.lastName), folded(b.lastName)) ||
    byCodePoint(folded(a.firstName), folded(b.firstName)) ||
    byCodePoint(a.lastName, b.lastName) ||
    byCodePoint(a.firstName, b.firstName) ||
    a.contactId - b.contactId
  );
}

const fullName = (c: Contact) => `${c.firstName} ${c.lastName}`;

const yearOf = (period: FinancialPeriod) => Number(period.endDate.slice(0, 4));

/** An amount (at most 2 decimals) in integer cents; null stays null. */
function cents(amount: number | null): bigint | null {
  return amount === null ? null : BigInt(Math.round(amount * 100));
}

/** Ids have 19 digits: the same length, so their text order is their numeric order. */
const ID_FLOOR = 10n ** 18n;
const ID_SPACE = 9n * 10n ** 18n;

/**
 * The id of an event of a company (`PUBLISHED_FINANCIALS#2023-12-31`, …): a numeric string of 19 digits
 * from a SHA-256 of the company and the event, the same whenever the same event is derived again.
 */
export function updateId(company: CompanyRef, event: string): string {
  const hash = createHash('sha256').update(`${company.country}#${company.companyNumber}#${event}`).digest();
  return String(ID_FLOOR + (hash.readBigUInt64BE(0) % ID_SPACE));
}

/** The contract's order of updates: `time` descending, then `id` ascending compared as numbers. */
export function byTimeThenId(a: Pick<Update, 'time' | 'id'>, b: Pick<Update, 'time' | 'id'>): number {
  return byCodePoint(b.time, a.time) || a.id.length - b.id.length || byCodePoint(a.id, b.id);
}
