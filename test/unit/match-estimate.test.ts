/** The estimate of a smart filter's matches from kept counts (lib/lists/match-estimate.ts), on hand-made profiles. */
import type { FilterProfile, Filters } from '../../lib/lists/filters';
import { filterProfile } from '../support/filter-profiles';
import {
  addCounts,
  contributionOf,
  estimateFrom,
  itemsFor,
  type Counts,
} from '../../lib/lists/match-estimate';

/** The counts of these profiles, and the estimate of `filters` over them. */
function estimate(profiles: FilterProfile[], filters: Filters): number {
  const byCountry = new Map<string, Counts>();
  for (const p of profiles) {
    const counts = byCountry.get(p.country) ?? new Map();
    addCounts(counts, contributionOf(p), 1);
    byCountry.set(p.country, counts);
  }
  return estimateFrom(filters, (country, sk) => byCountry.get(country)?.get(sk));
}

describe('contributionOf', () => {
  test('a company adds 1 to its country, each prefix of its codes once, its place and its bands', () => {
    const counts = contributionOf(filterProfile({ activities: ['62010', '62020', '4711'] }));
    expect(Object.fromEntries(counts.get('ACT#62')!)).toEqual({
      c62: 1,
      c620: 1,
      c6201: 1,
      c62010: 1,
      c6202: 1,
      c62020: 1,
    });
    expect(Object.fromEntries(counts.get('ACT#47')!)).toEqual({ c47: 1, c471: 1, c4711: 1 });
    expect(counts.get('PLACE#gent')!.get('n')).toBe(1);
    expect([...counts.get('ALL')!.keys()].sort()).toEqual(
      ['a', 'e', 'h', 'n'].map((k) => expect.stringMatching(new RegExp(`^${k}`))),
    );
  });

  test('a stopped company counts nowhere; a missing figure is in no band', () => {
    expect(contributionOf(filterProfile({ stopped: true })).size).toBe(0);
    expect(
      [
        ...contributionOf(filterProfile({ employees: null }))
          .get('ALL')!
          .keys(),
      ].some((k) => k.startsWith('e')),
    ).toBe(false);
  });

  test('counts taken back by the old profile leave nothing behind', () => {
    const counts: Counts = new Map();
    addCounts(counts, contributionOf(filterProfile()), 1);
    addCounts(counts, contributionOf(filterProfile()), -1);
    expect([...counts.values()].flatMap((m) => [...m.values()]).every((n) => n === 0)).toBe(true);
  });
});

describe('estimateFrom', () => {
  const companies = [
    ...Array.from({ length: 10 }, (_, i) => filterProfile({ employees: 10 + i, healthIndicator: i % 11 })),
    ...Array.from({ length: 10 }, () =>
      filterProfile({ activities: ['4711'], place: 'liege', employees: null }),
    ),
    filterProfile({ country: 'NL', activities: ['62010', '4711'] }),
    filterProfile({ country: 'NL', activities: ['62020'] }),
    filterProfile({ country: 'NL', activities: ['01110'] }),
  ];

  test('countries and one code: exact; several codes a company shares: counted under each', () => {
    expect(estimate(companies, { countries: ['BE'] })).toBe(20);
    expect(estimate(companies, { activities: ['62'] })).toBe(12);
    expect(estimate(companies, { activities: ['62', '6201'] })).toBe(12);
    // 2 NL companies match; the one with both codes counts twice (never above the country's 3).
    expect(estimate(companies, { countries: ['NL'], activities: ['62', '47'] })).toBe(3);
  });

  test('other criteria: the share of the country they keep, a cut band in proportion', () => {
    // Employees 10..19 in the band [10, 20): min 15 keeps half of it; half of BE has a figure.
    expect(estimate(companies, { countries: ['BE'], employees: { min: 15 } })).toBe(5);
    expect(estimate(companies, { countries: ['BE'], places: ['Liège'] })).toBe(10);
    // Independent criteria multiply: 10 of 20 in Gent × 5 of 20 with 15+ employees.
    expect(estimate(companies, { countries: ['BE'], places: ['Gent'], employees: { min: 15 } })).toBe(3);
    expect(estimate(companies, { countries: ['BE'], healthIndicator: { min: 6, max: 6 } })).toBe(11);
  });

  test('reads the ALL and INDEX items of each country, and the items of its divisions and places only', () => {
    expect(
      itemsFor({ countries: ['BE'], activities: ['62', '6201', '4711'], places: ['Liège', 'liege'] }),
    ).toEqual([
      { country: 'BE', sk: 'ALL' },
      { country: 'BE', sk: 'INDEX' },
      { country: 'BE', sk: 'ACT#62' },
      { country: 'BE', sk: 'ACT#47' },
      { country: 'BE', sk: 'PLACE#liege' },
    ]);
  });
});
