/**
 * Which filter profiles a smart filter's evaluation reads (lib/lists/smart-candidates.ts), on hand-made
 * counts: per country the fewest of its activities' entries, its places' entries and every profile, the
 * entries only where the country's counts say they are whole; and the entries a profile has.
 */
import type { Filters } from '../../lib/lists/filters';
import { filterProfile } from '../support/filter-profiles';
import { addCounts, contributionOf, INDEX, type Counts } from '../../lib/lists/match-estimate';
import { candidatesOf } from '../../lib/lists/smart-candidates';
import { profileEntryKeys } from '../../lib/lists/store/profiles';
import * as keys from '../../lib/storage/keys';

// BE (entries whole): 100 shops in Gent, 5 consultancies in Gent, 3 programmers in Liège.
// NL (entries not yet backfilled): 50 shops in Utrecht.
const PROFILES = [
  ...Array.from({ length: 100 }, () => filterProfile({ activities: ['4711'] })),
  ...Array.from({ length: 5 }, () => filterProfile({ activities: ['70220', '4719'] })),
  ...Array.from({ length: 3 }, () => filterProfile({ activities: ['62010'], place: 'liege' })),
  ...Array.from({ length: 50 }, () =>
    filterProfile({ country: 'NL', activities: ['4711'], place: 'utrecht' }),
  ),
];

function candidates(filters: Filters) {
  const byCountry = new Map<string, Counts>();
  for (const p of PROFILES) {
    const counts = byCountry.get(p.country) ?? new Map();
    addCounts(counts, contributionOf(p), 1);
    byCountry.set(p.country, counts);
  }
  byCountry.get('BE')!.set(INDEX, new Map([['ready', 1]]));
  return candidatesOf(filters, (country, sk) => byCountry.get(country)?.get(sk));
}

const everyBelgian = Array.from({ length: 8 }, (_, shard) => ({ pk: keys.filterProfiles('BE', shard) }));
const everyDutch = Array.from({ length: 8 }, (_, shard) => ({ pk: keys.filterProfiles('NL', shard) }));

describe('a filter reads', () => {
  test('the entries of its NACE codes when they are fewer than its places', () => {
    expect(candidates({ countries: ['BE'], activities: ['62', '6201'], places: ['Gent'] })).toEqual({
      // 6201 lies under 62: one prefix read, the 3 programmers.
      sweep: [{ pk: 'FILTER_PROFILES#BE#ACT#62', prefix: '62' }],
      count: 3,
    });
  });

  test('the entries of its places, accents and case aside, when they are fewer than its codes', () => {
    expect(candidates({ countries: ['BE'], activities: ['47'], places: ['LIÈGE ', 'liege'] })).toEqual({
      sweep: [{ pk: 'FILTER_PROFILES#BE#PLACE#liege' }],
      count: 3,
    });
  });

  test('a company under two of its codes counted under each (an upper bound of the reads)', () => {
    expect(candidates({ countries: ['BE'], activities: ['70', '4719'] }).count).toBe(10);
  });

  test('every profile of a country whose entries are not whole, or for ranges alone', () => {
    expect(candidates({ countries: ['BE', 'NL'], activities: ['4711'] })).toEqual({
      sweep: [{ pk: 'FILTER_PROFILES#BE#ACT#47', prefix: '4711' }, ...everyDutch],
      count: 150,
    });
    expect(candidates({ countries: ['BE'], employees: { min: 10 } })).toEqual({
      sweep: everyBelgian,
      count: 108,
    });
  });

  test('every profile when that is no more than its entries', () => {
    // 105 shops and consultancies under 47, 5 under 70, 3 under 62: 113 entries for 108 companies.
    expect(candidates({ countries: ['BE'], activities: ['47', '62', '70'] })).toEqual({
      sweep: everyBelgian,
      count: 108,
    });
  });
});

describe('a profile has entries', () => {
  const ref = { country: 'BE' as const, companyNumber: '0403170701' };

  test('one per NACE code (found by its prefixes) and one for its place', () => {
    expect(
      profileEntryKeys(ref, filterProfile({ activities: ['62010', '4711', '62010'], place: 'liege' })),
    ).toEqual([
      { pk: 'FILTER_PROFILES#BE#ACT#62', sk: '62010#0403170701' },
      { pk: 'FILTER_PROFILES#BE#ACT#47', sk: '4711#0403170701' },
      { pk: 'FILTER_PROFILES#BE#PLACE#liege', sk: '0403170701' },
    ]);
    expect(keys.filterProfileOfKey({ pk: 'FILTER_PROFILES#BE#ACT#62', sk: '62010#0403170701' })).toEqual(ref);
  });

  test('none when it is stopped (it matches no filter) and none for a place it lacks', () => {
    expect(profileEntryKeys(ref, filterProfile({ stopped: true }))).toEqual([]);
    expect(profileEntryKeys(ref, filterProfile({ activities: [], place: null }))).toEqual([]);
  });
});
