/**
 * Which filter profiles a smart filter's evaluation reads (lib/lists/smart-candidates.ts), on hand-made
 * counts: per country the fewest of its activities' entries, its places' entries and every profile, the
 * entries only where the country's counts say they are whole; and the entries a profile has.
 */
import fc from 'fast-check';
import { matchesFilters, packProfile, packedPieces, type Filters } from '../../lib/lists/filters';
import { filterProfile } from '../support/filter-profiles';
import { addCounts, contributionOf, INDEX, type Counts } from '../../lib/lists/match-estimate';
import { candidatesOf } from '../../lib/lists/smart-candidates';
import { RANGE_ENTRIES_VERSION, RANGE_TAILS } from '../../lib/lists/range-entries';
import { FIGURE_ENTRIES_VERSION } from '../../lib/lists/sieve';
import { profileEntryKeys } from '../../lib/lists/store/profiles';
import * as keys from '../../lib/storage/keys';

// BE (entries whole): 100 shops in Gent, 5 consultancies in Gent, 3 programmers in Liège, 4 banks in
// Brussel (800 employees, 60 M of assets).
// NL (entries not yet backfilled): 50 shops in Utrecht.
// FR (entries by code and place backfilled before range entries existed): 6 banks and 2 shops in Paris.
const BANK = { activities: ['64190'], employees: 800, totalAssets: 60_000_000 };
const PROFILES = [
  ...Array.from({ length: 100 }, () => filterProfile({ activities: ['4711'] })),
  ...Array.from({ length: 5 }, () => filterProfile({ activities: ['70220', '4719'] })),
  ...Array.from({ length: 3 }, () => filterProfile({ activities: ['62010'], place: 'liege' })),
  ...Array.from({ length: 50 }, () =>
    filterProfile({ country: 'NL', activities: ['4711'], place: 'utrecht' }),
  ),
  ...Array.from({ length: 4 }, () => filterProfile({ ...BANK, place: 'brussel' })),
  ...Array.from({ length: 6 }, () => filterProfile({ ...BANK, country: 'FR', place: 'paris' })),
  ...Array.from({ length: 2 }, () => filterProfile({ country: 'FR', activities: ['4711'], place: 'paris' })),
];

function candidates(filters: Filters, belgianIndex: Record<string, number> = {}) {
  const byCountry = new Map<string, Counts>();
  for (const p of PROFILES) {
    const counts = byCountry.get(p.country) ?? new Map();
    addCounts(counts, contributionOf(p), 1);
    byCountry.set(p.country, counts);
  }
  byCountry
    .get('BE')!
    .set(INDEX, new Map([['ready', 1], ['ranges', RANGE_ENTRIES_VERSION], ...Object.entries(belgianIndex)]));
  byCountry.get('FR')!.set(INDEX, new Map([['ready', 1]]));
  return candidatesOf(filters, (country, sk) => byCountry.get(country)?.get(sk));
}

const everyBelgian = Array.from({ length: 8 }, (_, shard) => ({ pk: keys.filterProfiles('BE', shard) }));
const everyFrench = Array.from({ length: 8 }, (_, shard) => ({ pk: keys.filterProfiles('FR', shard) }));
const everyDutch = Array.from({ length: 8 }, (_, shard) => ({ pk: keys.filterProfiles('NL', shard) }));

describe('a filter reads', () => {
  test('the entries of its NACE codes when they are fewer than its places', () => {
    expect(candidates({ countries: ['BE'], activities: ['62', '6201'], places: ['Gent'] })).toEqual({
      // 6201 lies under 62: one prefix read, the 3 programmers.
      sweep: [{ pk: 'FILTER_PROFILES#BE#ACT#62', prefix: '62', by: 'codes' }],
      count: 3,
      // Sieved by Gent where they are read.
      sieved: true,
    });
  });

  test('the entries of its places, accents and case aside, when they are fewer than its codes', () => {
    expect(candidates({ countries: ['BE'], activities: ['47'], places: ['LIÈGE ', 'liege'] })).toEqual({
      sweep: [{ pk: 'FILTER_PROFILES#BE#PLACE#liege', by: 'places' }],
      count: 3,
      sieved: true,
    });
  });

  test('a company under two of its codes counted under each (an upper bound of the reads)', () => {
    expect(candidates({ countries: ['BE'], activities: ['70', '4719'] }).count).toBe(10);
  });

  test('every profile of a country whose entries are not whole, or for a range reaching below its tail', () => {
    expect(candidates({ countries: ['BE', 'NL'], activities: ['4711'] })).toEqual({
      sweep: [{ pk: 'FILTER_PROFILES#BE#ACT#47', prefix: '4711', by: 'codes' }, ...everyDutch],
      count: 150,
      // The Belgian entries of 4711 hold nothing else to sieve by.
      sieved: false,
    });
    expect(candidates({ countries: ['BE'], employees: { min: 10 } })).toEqual({
      sweep: everyBelgian,
      count: 112,
      sieved: false,
    });
  });

  test('the range entries of a range in the tail, one Query BETWEEN, counted by the bands it touches', () => {
    const employees = keys.filterProfileRangeKeys(500, 1_000);
    expect(candidates({ countries: ['BE'], employees: { min: 500, max: 1_000 } })).toEqual({
      sweep: [{ pk: 'FILTER_PROFILES#BE#RANGE#employees', ...employees, by: 'employees' }],
      count: 4,
      sieved: false,
    });
    // min only: no upper end to the Query.
    expect(candidates({ countries: ['BE'], totalAssets: { min: RANGE_TAILS.totalAssets } })).toEqual({
      sweep: [
        {
          pk: 'FILTER_PROFILES#BE#RANGE#totalAssets',
          from: keys.filterProfileRangeKeys(1e7).from,
          by: 'totalAssets',
        },
      ],
      count: 4,
      sieved: false,
    });
    // With codes and places: the fewest of them (3 programmers in Liège, 4 banks).
    expect(
      candidates({
        countries: ['BE'],
        activities: ['62'],
        employees: { min: 500 },
        healthIndicator: { min: 1 },
      }).sweep,
    ).toEqual([{ pk: 'FILTER_PROFILES#BE#ACT#62', prefix: '62', by: 'codes' }]);
    // A range that ends below the tail, or starts below it, and health ranges read the other ways.
    for (const range of [{ max: 800 }, { min: 49, max: 5_000 }])
      expect(candidates({ countries: ['BE'], employees: range }).sweep).toEqual(everyBelgian);
    expect(candidates({ countries: ['BE'], healthIndicator: { min: 10 } }).sweep).toEqual(everyBelgian);
  });

  test('every profile for ranges in a country whose range entries were not backfilled (INDEX without ranges)', () => {
    expect(candidates({ countries: ['FR'], employees: { min: 500 } })).toEqual({
      sweep: everyFrench,
      count: 8,
      sieved: false,
    });
    // Its entries by code and place are still read.
    expect(candidates({ countries: ['FR'], activities: ['6419'], employees: { min: 500 } }).sweep).toEqual([
      { pk: 'FILTER_PROFILES#FR#ACT#64', prefix: '6419', by: 'codes' },
    ]);
  });

  test('every profile when that is no more than its entries', () => {
    // 105 shops and consultancies under 47, 5 under 70, 3 under 62: 113 entries for 112 companies.
    expect(candidates({ countries: ['BE'], activities: ['47', '62', '70'] })).toEqual({
      sweep: everyBelgian,
      count: 112,
      // Every profile sieved by the codes where it is read.
      sieved: true,
    });
  });

  test('a set sieved by the criteria it is not keyed by, in every country, or not sieved', () => {
    // A range's entries by the codes; the places' entries by the codes; the codes' by the places.
    expect(candidates({ countries: ['BE'], activities: ['64'], employees: { min: 500 } }).sieved).toBe(true);
    expect(candidates({ countries: ['BE'], activities: ['47'], places: ['liege'] }).sieved).toBe(true);
    // NL's entries are not whole: every Dutch profile, sieved by the place too.
    expect(candidates({ countries: ['BE', 'NL'], activities: ['62'], places: ['gent'] }).sieved).toBe(true);
    // Codes alone: their own entries, nothing to sieve by.
    expect(candidates({ countries: ['BE', 'NL'], activities: ['62'] }).sieved).toBe(false);
    // 100 places: the codes' entries sieved by all of them (199 operators of DynamoDB's 300).
    const places = ['gent', ...Array.from({ length: 99 }, (_, n) => `town ${n}`)];
    expect(candidates({ countries: ['BE'], activities: ['62'], places }).sieved).toBe(true);
    // A range's entries of a Belgian bank are not sieved by a health range: BE's entries carry no numbers.
    expect(
      candidates({ countries: ['BE'], employees: { min: 500 }, healthIndicator: { min: 6 } }).sieved,
    ).toBe(false);
  });

  test("a set sieved by the filter's ranges where the country's entries carry their numbers", () => {
    const withFigures = (filters: Filters) => candidates(filters, { figures: FIGURE_ENTRIES_VERSION });
    // One broad code and a range below the tail: the code's entries, sieved by the range.
    expect(withFigures({ countries: ['BE'], activities: ['47'], employees: { min: 20, max: 21 } })).toEqual({
      sweep: [{ pk: 'FILTER_PROFILES#BE#ACT#47', prefix: '47', by: 'codes', figures: true }],
      count: 105,
      sieved: true,
    });
    // A place and a health range; a range's entries and a health range.
    expect(withFigures({ countries: ['BE'], places: ['Gent'], healthIndicator: { min: 6 } }).sieved).toBe(
      true,
    );
    expect(withFigures({ countries: ['BE'], employees: { min: 500 }, healthIndicator: { max: 3 } })).toEqual({
      sweep: [
        {
          pk: 'FILTER_PROFILES#BE#RANGE#employees',
          from: keys.filterProfileRangeKeys(500).from,
          by: 'employees',
          figures: true,
        },
      ],
      count: 4,
      sieved: true,
    });
    // The range its entries are keyed by sieves nothing more; profile items carry no numbers.
    expect(withFigures({ countries: ['BE'], employees: { min: 500 } }).sieved).toBe(false);
    expect(withFigures({ countries: ['BE'], healthIndicator: { min: 6 } })).toMatchObject({
      sweep: everyBelgian,
      sieved: false,
    });
  });
});

describe('a packed profile holds the pieces of a filter', () => {
  const criteria = fc.record(
    {
      activities: fc.uniqueArray(fc.constantFrom('47', '4711', '471', '62', '6201', '64190', '1'), {
        minLength: 1,
        maxLength: 3,
      }),
      places: fc.uniqueArray(fc.constantFrom('Gent', 'LIÈGE', 'liege ', '47 rue', 'a"b', 'paris'), {
        minLength: 1,
        maxLength: 2,
      }),
    },
    { requiredKeys: [] },
  );
  const profiles = fc.record({
    activities: fc.uniqueArray(fc.constantFrom('4711', '47190', '6201', '64190', '1071'), { maxLength: 3 }),
    place: fc.option(fc.constantFrom('gent', 'liege', '47 rue', 'a"b', 'paris', 'parisis'), { nil: null }),
  });

  test('whenever it matches the codes and places (no entry that matches is sieved out)', () => {
    fc.assert(
      fc.property(criteria, profiles, (filters, facts) => {
        const profile = filterProfile(facts);
        const packed = packProfile(profile);
        const pieces = packedPieces(filters as Filters);
        const holds = Object.values(pieces).every((group) => group.some((piece) => packed.includes(piece)));
        if (matchesFilters(filters as Filters, profile)) expect(holds).toBe(true);
        // Neither a place that only begins like one (parisis) nor a code under another criterion.
        if (!(filters.places ?? []).some((p) => /^\d/.test(p)) && !filters.activities?.length)
          expect(holds).toBe(matchesFilters(filters as Filters, profile));
      }),
    );
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

  test('one per figure at or above its tail, sorted by the value', () => {
    const big = filterProfile({ activities: [], place: null, employees: 50, totalAssets: 9_999_999.99 });
    expect(profileEntryKeys(ref, big)).toEqual([keys.filterProfileByRange(ref, 'employees', 50)]);
    expect(profileEntryKeys(ref, { ...big, employees: 49, totalAssets: 1e7 })).toEqual([
      { pk: 'FILTER_PROFILES#BE#RANGE#totalAssets', sk: `${keys.sortableNumber(1e7)}#0403170701` },
    ]);
    expect(keys.filterProfileOfKey(keys.filterProfileByRange(ref, 'employees', 50))).toEqual(ref);
  });

  test('none when it is stopped (it matches no filter) and none for a place it lacks', () => {
    expect(profileEntryKeys(ref, filterProfile({ stopped: true }))).toEqual([]);
    expect(profileEntryKeys(ref, filterProfile({ activities: [], place: null }))).toEqual([]);
  });
});

describe('a figure as a sort key', () => {
  const finite = fc.double({ noNaN: true, noDefaultInfinity: true });

  test('sorts as the numbers do, decimals, negatives and huge amounts too', () => {
    fc.assert(
      fc.property(finite, finite, (a, b) => {
        const [x, y] = [keys.sortableNumber(a), keys.sortableNumber(b)];
        expect(x < y).toBe(a < b);
        expect(x === y).toBe(a === b);
      }),
    );
  });

  test('a range of sort keys holds exactly the values in the range, at its ends too', () => {
    fc.assert(
      fc.property(finite, finite, finite, (a, b, value) => {
        const [min, max] = a <= b ? [a, b] : [b, a];
        const { from, to } = keys.filterProfileRangeKeys(min, max);
        const sk = keys.filterProfileByRange(
          { country: 'BE', companyNumber: '0403170701' },
          'employees',
          value,
        ).sk;
        expect(sk >= from && sk <= to!).toBe(value >= min && value <= max);
      }),
    );
  });
});
