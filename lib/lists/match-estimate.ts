/**
 * Estimating how many companies a smart filter matches from counts the service keeps (contract §7.6:
 * the account's bound is checked against the estimate at once, never by reading the filter profiles).
 *
 * The counts, per country (store/match-counts.ts), of the active companies with a filter profile (a
 * stopped or erased company counts nowhere, as it matches no filter):
 *
 * - `ALL`: `n`, the companies, and one histogram per range criterion: `e<band>` (employees),
 *   `a<band>` (totalAssets), `h<band>` (healthIndicator), a company without the figure in no band;
 * - `ACT#<division>`: `c<prefix>` for every prefix (2 to 5 digits) of the company's NACE codes in that
 *   division, a company counted once per prefix however many of its codes share it;
 * - `PLACE#<place key>`: `n`, the companies in that place.
 * - `INDEX`: `ready` 1 once a recount wrote every profile's entries by NACE code and place
 *   (store/profiles.ts), `ranges` the version of the range entries it wrote (range-entries.ts), and
 *   `figures` the version of the numbers the entries carry for the sieve (sieve.ts), so that smart-candidates.ts may read a filter's candidates from them instead of every profile.
 *
 * The estimate, per country of the filter (or every country): the companies its activities reach
 * (the sum of `c<code>` over its codes, a code under another of its codes left out; `n` without
 * activities), times the share of the country's companies that each other criterion keeps (its
 * places' counts, its ranges' bands — a band the range cuts counts in proportion to the part it
 * covers), the criteria taken as independent of each other and of the activities. So it is exact for
 * a filter of countries and at most one NACE code (or codes no company has two of), an upper bound
 * for codes that companies share, and an estimate otherwise: the exact fill is still bounded by the
 * conditional writes of store/smart-holds.ts.
 */
import type { Country } from '../companies/identifiers';
import { countriesOf, placeKey, type FilterProfile, type Filters } from './filters';

/**
 * Lower ends of the bands of a range criterion (each band runs to the next; the last is open). The
 * stored counts are by band index: changing the bands needs the counts made again.
 */
const STEPS = Array.from({ length: 13 }, (_, e) => [1, 2, 5].map((m) => m * 10 ** e)).flat();
const BANDS = {
  e: { lower: [-Infinity, 0, ...STEPS], integer: true },
  a: { lower: [-Infinity, 0, ...STEPS], integer: false },
  h: { lower: [-Infinity, ...Array.from({ length: 12 }, (_, i) => i)], integer: true },
} as const;
type Histogram = keyof typeof BANDS;
const RANGES: [Histogram, 'employees' | 'totalAssets' | 'healthIndicator'][] = [
  ['e', 'employees'],
  ['a', 'totalAssets'],
  ['h', 'healthIndicator'],
];

export const ALL = 'ALL';
/** `ready`: the country's filter profile entries are whole (written by a recount, match-recount.ts). */
export const INDEX = 'INDEX';
export const activityItem = (division: string) => `ACT#${division}`;
export const placeItem = (place: string) => `PLACE#${place}`;

/** Counts by item (`sk`) and attribute. */
export type Counts = Map<string, Map<string, number>>;

const bandOf = (h: Histogram, value: number) => {
  const { lower } = BANDS[h];
  let band = 0;
  while (band + 1 < lower.length && lower[band + 1]! <= value) band++;
  return band;
};

/** What one company adds to its country's counts (nothing when it is stopped). */
export function contributionOf(profile: FilterProfile): Counts {
  const counts: Counts = new Map();
  if (profile.stopped) return counts;
  const all = new Map([['n', 1]]);
  for (const [h, field] of RANGES) {
    const value = profile[field];
    if (value !== null) all.set(`${h}${bandOf(h, value)}`, 1);
  }
  counts.set(ALL, all);
  for (const code of profile.activities) {
    const item = counts.get(activityItem(code.slice(0, 2))) ?? new Map<string, number>();
    for (let length = 2; length <= code.length; length++) item.set(`c${code.slice(0, length)}`, 1);
    counts.set(activityItem(code.slice(0, 2)), item);
  }
  if (profile.place !== null) counts.set(placeItem(profile.place), new Map([['n', 1]]));
  return counts;
}

/** Adds `counts` times `sign` into `into`. */
export function addCounts(into: Counts, counts: Counts, sign: 1 | -1): void {
  for (const [item, attributes] of counts) {
    const target = into.get(item) ?? new Map<string, number>();
    for (const [name, n] of attributes) target.set(name, (target.get(name) ?? 0) + sign * n);
    into.set(item, target);
  }
}

/** The filter's NACE codes, a code under another of them left out (its companies are counted there). */
export const codesOf = (activities: readonly string[]) =>
  [...new Set(activities)].filter((code, _, all) => !all.some((o) => o !== code && code.startsWith(o)));

/** The items of a country's counts that the estimate of `filters` (and its candidates') reads. */
export function itemsFor(filters: Filters): { country: Country; sk: string }[] {
  const sks = [
    ALL,
    INDEX,
    ...new Set((filters.activities ?? []).map((code) => activityItem(code.slice(0, 2)))),
    ...new Set((filters.places ?? []).map((p) => placeItem(placeKey(p)))),
  ];
  return countriesOf(filters).flatMap((country) => sks.map((sk) => ({ country, sk })));
}

/** The share of a histogram's companies in the range (a cut band in proportion to what it covers). */
function inRange(h: Histogram, all: Map<string, number>, range: { min?: number; max?: number }) {
  const { lower, integer } = BANDS[h];
  const min = range.min ?? -Infinity;
  // Integer figures: `max` 19 covers the values below 20.
  const max = range.max === undefined ? Infinity : integer ? Math.floor(range.max) + 1 : range.max;
  let kept = 0;
  lower.forEach((lo, band) => {
    const count = all.get(`${h}${band}`) ?? 0;
    const hi = lower[band + 1] ?? Infinity;
    const from = Math.max(lo, min);
    const to = Math.min(hi, max);
    if (count === 0 || from >= to) return;
    const width = hi - lo;
    kept += Number.isFinite(width) && Number.isFinite(to - from) ? (count * (to - from)) / width : count;
  });
  return kept;
}

/**
 * The companies whose `field` lies in a band that `range` touches (`all`: a country's `ALL` item): at
 * least those whose value lies in the range, so at least the range entries a Query of it reads.
 */
export function inBandsOf(
  all: Map<string, number> | undefined,
  field: (typeof RANGES)[number][1],
  range: { min?: number; max?: number },
): number {
  const [h] = RANGES.find(([, f]) => f === field)!;
  const { lower } = BANDS[h];
  const min = range.min ?? -Infinity;
  const max = range.max ?? Infinity;
  let count = 0;
  lower.forEach((lo, band) => {
    const hi = lower[band + 1] ?? Infinity;
    if (lo <= max && hi > min) count += all?.get(`${h}${band}`) ?? 0;
  });
  return count;
}

/** The estimated matches of `filters`, from the counts read (`read(country, sk)`: the item's attributes). */
export function estimateFrom(
  filters: Filters,
  read: (country: Country, sk: string) => Map<string, number> | undefined,
): number {
  let total = 0;
  for (const country of countriesOf(filters)) {
    const all = read(country, ALL);
    const n = all?.get('n') ?? 0;
    if (!all || n <= 0) continue;
    let reached = filters.activities
      ? codesOf(filters.activities).reduce(
          (sum, code) => sum + (read(country, activityItem(code.slice(0, 2)))?.get(`c${code}`) ?? 0),
          0,
        )
      : n;
    reached = Math.min(reached, n);
    let share = 1;
    if (filters.places) {
      const places = [...new Set(filters.places.map(placeKey))];
      share *= Math.min(
        1,
        places.reduce((sum, p) => sum + (read(country, placeItem(p))?.get('n') ?? 0), 0) / n,
      );
    }
    for (const [h, field] of RANGES) {
      const range = filters[field];
      if (range) share *= Math.min(1, inRange(h, all, range) / n);
    }
    total += reached * share;
  }
  return Math.round(total);
}
