/**
 * Range entries (contract §7.6: a filter that matches at most 10,000 companies is evaluated whole in
 * the request): a company's filter profile again under the value of a figure, in one partition per
 * country and figure sorted by that value (lib/storage/filter-profile-keys.ts), so that the candidates
 * of `{"employees": {"min": 500}}` are one Query `BETWEEN` per country.
 *
 * Only the tail of a figure is ever selective: most companies have few employees and small assets,
 * so a range that reaches down into the bulk keeps a large share of a country and is read from the
 * other candidates (codes, places, every profile). Entries are therefore kept only for a value at or
 * above its figure's tail (`RANGE_TAILS`), and only a range whose `min` is at or above it reads them:
 * most companies pay nothing. Thresholds on band edges of the match counts (match-estimate.ts), so the
 * counts of the tail's bands say how many entries a range reads. The health indicator has none: its
 * 11 values each hold about a tenth of a country, never a set a request reads whole.
 */
import type { RangeFigure } from '../storage/filter-profile-keys';
import type { FilterProfile, Filters } from './filters';

export type { RangeFigure };

/**
 * The lowest value with an entry, per figure (docs/decisions.md, "Smart lists' candidates", says how
 * they were chosen). Changing one needs a new `RANGE_ENTRIES_VERSION` and a recount.
 */
export const RANGE_TAILS: Readonly<Record<RangeFigure, number>> = {
  employees: 50,
  totalAssets: 10_000_000,
};

/**
 * The tails a country's range entries follow, as the counts' `INDEX` item says (`ranges`): a country
 * recounted before range entries existed, or under other tails, reads its ranges the other ways.
 */
export const RANGE_ENTRIES_VERSION = 1;

export const RANGE_FIGURES: readonly RangeFigure[] = ['employees', 'totalAssets'];

/** The figures of a profile in their tail, with their values: the profile's range entries. */
export function tailFiguresOf(profile: FilterProfile): { figure: RangeFigure; value: number }[] {
  return RANGE_FIGURES.flatMap((figure) => {
    const value = profile[figure];
    return value !== null && value >= RANGE_TAILS[figure] ? [{ figure, value }] : [];
  });
}

/** The filter's ranges that its range entries can answer: those whose `min` lies in the tail. */
export function tailRangesOf(filters: Filters): { figure: RangeFigure; min: number; max?: number }[] {
  return RANGE_FIGURES.flatMap((figure) => {
    const range = filters[figure];
    if (range?.min === undefined || range.min < RANGE_TAILS[figure]) return [];
    return [{ figure, min: range.min, ...(range.max === undefined ? {} : { max: range.max }) }];
  });
}
