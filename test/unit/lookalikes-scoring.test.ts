/** The lookalike score (contract §6.3): its properties, not its every number. */
import type { LookalikeFeatures } from '../../lib/lookalikes/features';
import { closeness, compare, similarity } from '../../lib/lookalikes/scoring';
import { naceSection } from '../../lib/lookalikes/nace';

const company = (overrides: Partial<LookalikeFeatures> = {}): LookalikeFeatures => ({
  country: 'BE',
  companyNumber: '0403170701',
  name: 'Acme Bouw NV',
  place: 'Gent',
  activity: '41201',
  employees: 12,
  totalAssets: 900_000,
  foundedYear: 1998,
  healthIndicator: 6,
  ...overrides,
});

describe('lookalike score', () => {
  it('is 1 for two companies equal on every feature, whatever their numbers', () => {
    expect(similarity(company(), company({ companyNumber: '0400000185', name: 'Other NV' }))).toBe(1);
    const unknown = {
      place: null,
      employees: null,
      totalAssets: null,
      foundedYear: null,
      healthIndicator: null,
    };
    expect(similarity(company(unknown), company({ ...unknown, companyNumber: '0400000185' }))).toBe(1);
  });

  it('is symmetric', () => {
    const pairs: Array<[Partial<LookalikeFeatures>, Partial<LookalikeFeatures>]> = [
      [{}, { activity: '4120', employees: 300, place: 'Brugge' }],
      [
        { country: 'NL', place: 'Delft' },
        { totalAssets: null, foundedYear: 2020 },
      ],
      [{ activity: '62010' }, { activity: '70220', healthIndicator: 2 }],
    ];
    for (const [a, b] of pairs)
      expect(similarity(company(a), company(b))).toBe(similarity(company(b), company(a)));
  });

  it('stays in [0, 1] with at most 4 decimals', () => {
    const far = company({
      country: 'FR',
      activity: '01110',
      employees: 5000,
      totalAssets: 1e10,
      foundedYear: 1850,
      healthIndicator: 0,
      place: 'Lyon',
    });
    const near = company({ employees: 13, totalAssets: 950_000.55 });
    for (const other of [far, near]) {
      const score = similarity(company(), other);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
      expect(Number(score.toFixed(4))).toBe(score);
    }
  });

  it('falls as the sizes grow apart on a log scale', () => {
    const scores = [12, 15, 30, 120, 1200].map((employees) => similarity(company(), company({ employees })));
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeLessThan(scores[i - 1]!);
    // 10 vs 12 is close, 10 vs 1,000 is far.
    expect(closeness(Math.log10(11), Math.log10(13), 2)).toBeGreaterThan(0.95);
    expect(closeness(Math.log10(11), Math.log10(1001), 2)).toBeLessThan(0.05);
  });

  it('ranks the same code above a shared 4-, 3- and 2-digit prefix, then the section, then nothing', () => {
    const levels = ['41201', '41209', '41250', '41100', '43999', '62010'].map(
      (activity) => compare(company(), company({ activity })).activity,
    );
    expect(levels).toEqual([1, 0.75, 0.5, 0.25, 0.1, 0]);
    const scores = ['41201', '41209', '41250', '41100', '43999', '62010'].map((activity) =>
      similarity(company(), company({ activity })),
    );
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeLessThan(scores[i - 1]!);
    // Codes of different lengths share the prefix they have in common.
    expect(compare(company({ activity: '4120' }), company({ activity: '412' })).activity).toBe(0.5);
    expect(compare(company({ activity: '4120' }), company({ activity: '41209' })).activity).toBe(0.75);
  });

  it('maps NACE divisions to their sections, and divisions outside every section to none', () => {
    expect(['01201', '0520', '10', '33', '3511', '4120', '4711', '6201', '9900'].map(naceSection)).toEqual([
      'A',
      'B',
      'C',
      'C',
      'D',
      'F',
      'G',
      'J',
      'U',
    ]);
    expect(naceSection('04')).toBeNull();
    expect(compare(company({ activity: '04000' }), company({ activity: '01110' })).activity).toBe(0);
  });

  it('prefers the same place, then the same country', () => {
    const samePlace = similarity(company(), company({ companyNumber: '0400000185' }));
    const sameCountry = similarity(company(), company({ place: 'Brugge' }));
    const abroad = similarity(company(), company({ country: 'NL', companyNumber: '33011433' }));
    expect(samePlace).toBeGreaterThan(sameCountry);
    expect(sameCountry).toBeGreaterThan(abroad);
    expect(similarity(company(), company({ place: ' GENT ' }))).toBe(1);
  });

  it('weighs activity and size more than place and profile', () => {
    const otherActivity = similarity(company(), company({ activity: '62010' }));
    const otherSize = similarity(company(), company({ employees: 5000, totalAssets: 1e10 }));
    const otherPlace = similarity(company(), company({ country: 'FR', place: 'Lyon' }));
    const otherProfile = similarity(company(), company({ foundedYear: 1900, healthIndicator: 0 }));
    expect(Math.max(otherActivity, otherSize)).toBeLessThan(Math.min(otherPlace, otherProfile));
  });
});
