/**
 * Which filter profiles a smart filter's evaluation reads (contract §7.6: creating a list or changing
 * its filters evaluates them at once). Per country of the filter, the smallest of the candidate sets
 * the counts the service keeps (match-estimate.ts) know the size of:
 *
 * - its activities: the profile entries under each of its NACE codes (a code under another of its
 *   codes left out), one Query by sort key prefix each — `c<code>` companies per code;
 * - its places: the profile entries under each of its places — `n` companies per place;
 * - each of its ranges of employees or total assets whose `min` lies in the figure's tail
 *   (range-entries.ts): the entries with a value in the range, one Query `BETWEEN` — the companies of
 *   the `ALL` bands the range touches;
 * - every profile of the country — `n` of `ALL`.
 *
 * Every company that matches the filter is in each of these sets, so reading any of them whole and
 * applying the filter to what is read is a full evaluation. The set read is also sieved where it is
 * read by the filter's other criteria (sieve.ts: a Query's FilterExpression on the entry's packed
 * profile for codes and places, on its numbers for ranges of employees, total assets and health), so a
 * code and a place each broad but narrow together (NACE 47 in Paris), or a broad code with a narrow
 * range (47 with 20 to 21 employees), send back only the entries that can match: `sieved` says the set
 * is narrowed so, which lets the request read a larger set whole (smart-bounds.ts, `scanAtOnce`). The
 * entries are used only in a country whose counts say they are whole (`INDEX`, written by a recount:
 * profiles written before the entries existed have none; `ready` for codes and places, `ranges` for
 * the range entries of the tails now, `figures` for the entries' numbers). A range reaching below its
 * figure's tail, and the health indicator, have no entries of their own: a filter of such ranges alone
 * reads every profile (profile items carry no numbers: sieved by codes and places only).
 * Pure: the counts come in, the sweep (store/profiles.ts) and its size go out.
 */
import type { Country } from '../companies/identifiers';
import { countriesOf, placeKey, type Filters } from './filters';
import { ALL, INDEX, activityItem, codesOf, inBandsOf, placeItem } from './match-estimate';
import { RANGE_ENTRIES_VERSION, tailRangesOf } from './range-entries';
import { FIGURE_ENTRIES_VERSION, sieves } from './sieve';
import { activitySegment, everyProfile, placeSegment, rangeSegment, type Segment } from './store/profiles';

/** What a create or filter change knows of its filters before it reads any profile. */
export interface Assessment {
  /** The estimated matches (match-estimate.ts). */
  estimate: number;
  /** The profiles an evaluation reads. */
  candidates: Candidates;
}

export interface Candidates {
  /** The partitions (or parts of them) to read, in order. */
  sweep: Segment[];
  /** How many companies the counts say they hold (a company under two of the filter's codes twice). */
  count: number;
  /**
   * Whether each country's set is narrowed where it is read by a criterion it is not keyed by (its
   * codes by the filter's places, its places by the codes, a range or every profile by either).
   */
  sieved: boolean;
}

type Option = Omit<Candidates, 'sieved'>;

/** The filter's candidates (see the module comment); `read(country, sk)`: a counts item's attributes. */
export function candidatesOf(
  filters: Filters,
  read: (country: Country, sk: string) => Map<string, number> | undefined,
): Candidates {
  const sweep: Segment[] = [];
  let count = 0;
  let sieved = true;
  // Whether the sieve checks anything where the option's segments are read (all of one kind).
  const narrowed = ({ sweep: [segment] }: Option) => segment !== undefined && sieves(filters, segment);
  for (const country of countriesOf(filters)) {
    const options: Option[] = [{ sweep: everyProfile([country]), count: read(country, ALL)?.get('n') ?? 0 }];
    const index = read(country, INDEX);
    // The country's entries carry their figures' numbers: the sieve compares them (sieve.ts).
    const figures = index?.get('figures') === FIGURE_ENTRIES_VERSION;
    if ((index?.get('ready') ?? 0) > 0) {
      if (filters.activities) {
        const codes = codesOf(filters.activities);
        options.push({
          sweep: codes.map((code) => activitySegment(country, code, figures)),
          count: codes.reduce(
            (sum, code) => sum + (read(country, activityItem(code.slice(0, 2)))?.get(`c${code}`) ?? 0),
            0,
          ),
        });
      }
      if (filters.places) {
        const places = [...new Set(filters.places.map(placeKey))];
        options.push({
          sweep: places.map((place) => placeSegment(country, place, figures)),
          count: places.reduce((sum, place) => sum + (read(country, placeItem(place))?.get('n') ?? 0), 0),
        });
      }
    }
    if (index?.get('ranges') === RANGE_ENTRIES_VERSION) {
      for (const { figure, min, max } of tailRangesOf(filters)) {
        const range = { min, ...(max === undefined ? {} : { max }) };
        options.push({
          sweep: [rangeSegment(country, figure, range, figures)],
          count: inBandsOf(read(country, ALL), figure, range),
        });
      }
    }
    // The fewest items to read; of as few, one the sieve narrows.
    const best = options.reduce((a, b) =>
      b.count < a.count || (b.count === a.count && narrowed(b) && !narrowed(a)) ? b : a,
    );
    sweep.push(...best.sweep);
    count += best.count;
    // A country the counts say holds none of the candidates takes nothing from the bound.
    if (best.count > 0) sieved &&= narrowed(best);
  }
  return { sweep, count, sieved };
}
