/** Lookalike lists of a section: top 100, order, ties, never self; blocks and sections; which lists a change touches. */
import { affectedMembers, computeLists, floorOf, KEPT, type Scored } from '../../lib/lookalikes/compute';
import {
  blockOf,
  featuresOf,
  NO_ACTIVITY_BLOCK,
  SECTION_BLOCKS,
  sectionOf,
  type LookalikeFeatures,
} from '../../lib/lookalikes/features';
import { SectionIndex } from '../../lib/lookalikes/section-index';
import { similarity } from '../../lib/lookalikes/scoring';
import { parseCompanyRecord } from '../../lib/companies/record';
import { companyRecord } from '../support/records';

const member = (n: number, overrides: Partial<LookalikeFeatures> = {}): LookalikeFeatures => ({
  country: 'NL',
  companyNumber: String(10_000_000 + n),
  name: `Company ${n}`,
  place: 'Utrecht',
  activity: '62010',
  employees: 10 + n,
  totalAssets: 100_000 * (1 + n),
  foundedYear: 2000,
  healthIndicator: 5,
  ...overrides,
});

function lists(members: LookalikeFeatures[], subjects: number[] | 'all' = 'all') {
  const found = new Map<number, Scored[]>();
  computeLists(new SectionIndex(members), subjects, (subject, list) => found.set(subject, list));
  return found;
}

describe('lookalike lists of a section', () => {
  it('keeps the best 100, best first, never the company itself', () => {
    const members = Array.from({ length: 150 }, (_, n) => member(n));
    const all = lists(members);

    const list = all.get(0)!;
    expect(list).toHaveLength(KEPT);
    expect(list.some((l) => l.index === 0)).toBe(false);
    for (let i = 1; i < list.length; i++) expect(list[i]!.score).toBeLessThanOrEqual(list[i - 1]!.score);
    // The nearest sizes are the best.
    expect(list[0]!.index).toBe(1);
  });

  it('gives every subject the same list whether its whole block or only it is computed', () => {
    const members = Array.from({ length: 130 }, (_, n) =>
      member((n * 37) % 130, { employees: 5 + ((n * 7) % 50) }),
    );
    const all = lists(members);
    const some = lists(members, [3, 77, 129]);
    for (const subject of [3, 77, 129]) expect(some.get(subject)).toEqual(all.get(subject));
  });

  it('matches the pairwise score', () => {
    const members = [
      member(0),
      member(1, { activity: '62020', place: 'Delft' }),
      member(2, { employees: 900 }),
    ];
    const list = lists(members).get(0)!;
    for (const { index, score } of list)
      expect(score / 10_000).toBe(similarity(members[0]!, members[index]!));
  });

  it('breaks ties by country, then company number, ascending', () => {
    const twin = (country: 'BE' | 'NL' | 'FR', companyNumber: string) =>
      member(1, { country, companyNumber, place: null });
    const members = [
      member(0, { place: null }),
      twin('NL', '20000000'),
      twin('FR', '552100554'),
      twin('NL', '10000009'),
      twin('BE', '0403170701'),
    ];
    const list = lists(members).get(0)!;
    const order = list.map(({ index }) => `${members[index]!.country}${members[index]!.companyNumber}`);
    // Different countries also differ in place similarity; within NL the lower number comes first.
    expect(order.indexOf('NL10000009')).toBeLessThan(order.indexOf('NL20000000'));
    const sameScore = list.filter(
      (l) => members[l.index]!.country === 'BE' || members[l.index]!.country === 'FR',
    );
    expect(sameScore[0]!.score).toBe(sameScore[1]!.score);
    expect(members[sameScore[0]!.index]!.country).toBe('BE');
  });

  it('is deterministic: the same members in another order give the same lists', () => {
    const members = Array.from({ length: 120 }, (_, n) =>
      member(n % 40, { companyNumber: String(20_000_000 + n) }),
    );
    const shuffled = [...members].reverse();
    const byNumber = (ms: LookalikeFeatures[], found: Map<number, Scored[]>) =>
      new Map(
        ms.map((m, i) => [
          m.companyNumber,
          found.get(i)!.map((l) => `${ms[l.index]!.companyNumber}:${l.score}`),
        ]),
      );
    expect(byNumber(shuffled, lists(shuffled))).toEqual(byNumber(members, lists(members)));
  });

  it('has a floor of 0 while a list has room, else its 100th score', () => {
    expect(floorOf([{ index: 1, score: 9000 }])).toBe(0);
    const full = Array.from({ length: KEPT }, (_, i) => ({ index: i, score: 9000 - i }));
    expect(floorOf(full)).toBe(9000 - KEPT + 1);
  });

  it('finds the lists a change may touch: those a probe reaches at or above their floor', () => {
    const members = [member(0), member(1), member(2, { employees: 5000, totalAssets: 1e9 })];
    const probe = member(3, { employees: 11, totalAssets: 100_000 });
    const reach = (i: number) => Math.round(similarity(probe, members[i]!) * 10_000);
    const floors = [reach(0), reach(1) + 1, 0];

    expect(affectedMembers(new SectionIndex(members, [probe]), floors, 1)).toEqual([0, 2]);
    expect(affectedMembers(new SectionIndex(members), floors, 0)).toEqual([]);
  });
});

describe('blocks and sections', () => {
  it('blocks a company by the NACE division of its main activity', () => {
    const parsed = parseCompanyRecord(companyRecord({ activities: ['62.01', '41201'] }));
    if (!parsed.ok) throw new Error(parsed.reason);
    const features = featuresOf(parsed.record);
    expect(blockOf(features)).toBe('62');
    expect(features).toMatchObject({
      activity: '6201',
      employees: 12,
      totalAssets: 900_000,
      foundedYear: 1998,
      healthIndicator: 6,
    });
  });

  it('puts companies without an activity in a block of their own', () => {
    expect(blockOf({ activity: null })).toBe(NO_ACTIVITY_BLOCK);
    expect(sectionOf({ activity: null })).toBe(NO_ACTIVITY_BLOCK);
  });

  it('compares a company with its NACE section, read as the blocks of its divisions', () => {
    expect(sectionOf({ activity: '42110' })).toBe('F');
    expect(SECTION_BLOCKS.get('F')).toEqual(['41', '42', '43']);
    // A division outside every section has only itself.
    expect(sectionOf({ activity: '04000' })).toBe('04');
    expect(SECTION_BLOCKS.get('04')).toEqual(['04']);
  });

  it('takes size and health from the latest period', () => {
    const parsed = parseCompanyRecord(companyRecord({ financials: [] }));
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(featuresOf(parsed.record)).toMatchObject({
      employees: null,
      totalAssets: null,
      healthIndicator: null,
    });
  });
});
