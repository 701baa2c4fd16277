/**
 * The bounds that let a list skip companies (lib/lookalikes/section-index.ts) against the real score,
 * and the lists against brute force: the same companies, scores and order as scoring every pair.
 */
import fc from 'fast-check';
import {
  affectedMembers,
  compareCompanies,
  computeLists,
  KEPT,
  type Scored,
} from '../../lib/lookalikes/compute';
import { sectionOf, type LookalikeFeatures } from '../../lib/lookalikes/features';
import { boundOf, LEVEL_ACTIVITY, SectionIndex } from '../../lib/lookalikes/section-index';
import { PreparedFeatures } from '../../lib/lookalikes/scoring';

/** Codes of section F (divisions 41–43) sharing prefixes at every level, and one of section C. */
const CODES = [
  '41201',
  '41202',
  '41209',
  '4120',
  '41250',
  '412',
  '41100',
  '41',
  '42110',
  '42990',
  '43999',
  '10110',
];

const figure = (max: number) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 6, arbitrary: fc.integer({ min: 0, max }) },
    { weight: 2, arbitrary: fc.double({ min: 0, max, noNaN: true }) },
  );

const features = (n: number) =>
  fc
    .record({
      country: fc.constantFrom('BE' as const, 'NL' as const, 'FR' as const),
      place: fc.option(fc.constantFrom('Gent', 'gent ', 'Delft', 'Lyon'), { nil: null }),
      activity: fc.option(fc.constantFrom(...CODES), { nil: null, freq: 12 }),
      employees: figure(100_000),
      totalAssets: figure(1e11),
      foundedYear: fc.option(fc.integer({ min: 1900, max: 2025 }), { nil: null }),
      healthIndicator: fc.option(fc.integer({ min: 0, max: 10 }), { nil: null }),
      stopped: fc.oneof(
        { weight: 6, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
    })
    .map(({ stopped, ...f }): LookalikeFeatures => ({
      ...f,
      companyNumber: String(10_000_000 + n),
      name: `Company ${n}`,
      ...(stopped ? { stopped: true as const } : {}),
    }));

/** Companies with distinct numbers in a shuffled order (the tie order is not the index order). */
const companies = (min: number, max: number) =>
  fc
    .array(fc.integer({ min: 0, max: 10_000_000 }), { minLength: min, maxLength: max })
    .chain((numbers) => fc.tuple(...[...new Set(numbers)].map((n) => features(n))));

function bruteForce(members: LookalikeFeatures[], subject: number): Scored[] {
  const prepared = new PreparedFeatures(members);
  return (
    members
      .map((_, index) => ({ index, score: prepared.score(subject, index) }))
      // A stopped company keeps its own list but is in nobody's (§11.5.8).
      .filter(
        ({ index }) =>
          index !== subject &&
          !members[index]!.stopped &&
          sectionOf(members[index]!) === sectionOf(members[subject]!),
      )
      .sort((a, b) => b.score - a.score || compareCompanies(members[a.index]!, members[b.index]!))
      .slice(0, KEPT)
  );
}

function computed(members: LookalikeFeatures[]) {
  const found = new Map<number, Scored[]>();
  computeLists(new SectionIndex(members), 'all', (subject, list) => found.set(subject, list));
  return found;
}

const member = (n: number, overrides: Partial<LookalikeFeatures> = {}): LookalikeFeatures => ({
  country: 'BE',
  companyNumber: `0${String(400_000_000 + n)}`,
  name: `Company ${n}`,
  place: 'Gent',
  activity: '41201',
  employees: 10,
  totalAssets: 1_000_000,
  foundedYear: 2000,
  healthIndicator: 5,
  ...overrides,
});

describe('the bound of a node', () => {
  it('is never below the score of a company in the node, rounding included', () => {
    fc.assert(
      fc.property(features(1), fc.array(features(2), { minLength: 1, maxLength: 40 }), (a, others) => {
        // Enough members that groups have inner nodes and leaves (LEAF is 16).
        const members = [a, ...others];
        const index = new SectionIndex(members);
        const p = index.prepared;
        for (const [level, tree] of index.levelsOf(0)) {
          for (let node = 0; node < tree.nodes; node++) {
            const bound = index.nodeBound(0, level, tree, node);
            for (let at = tree.start(node); at < tree.end(node); at++) {
              const other = tree.order[at]!;
              if (other !== 0 && p.activity(0, other) === LEVEL_ACTIVITY[level])
                expect(bound).toBeGreaterThanOrEqual(p.score(0, other));
            }
          }
        }
      }),
      { numRuns: 5_000 },
    );
  });

  it("is reached by a node holding only the company's twin", () => {
    const a = member(0, { employees: 9, totalAssets: 999_999 });
    const index = new SectionIndex([a, a]);
    const [level, tree] = index.levelsOf(0)[0]!;
    expect(boundOf(1, 1, 1, 1)).toBe(10_000);
    expect(index.nodeBound(0, level, tree, 0)).toBe(10_000);
  });

  it('gives place nothing for a node of another country only', () => {
    const twins = Array.from({ length: 40 }, (_, n) => member(n + 1, { country: n % 2 ? 'NL' : 'BE' }));
    const index = new SectionIndex([member(0), ...twins]);
    const [level, tree] = index.levelsOf(0)[0]!;
    // Alike on every figure, the members split by country: the Dutch nodes lack place's 0.15.
    const bounds = new Set(
      Array.from({ length: tree.nodes }, (_, node) => node)
        .filter((node) => tree.left(node) === -1)
        .map((node) => index.nodeBound(0, level, tree, node)),
    );
    expect([...bounds].sort((a, b) => a - b)).toEqual([8_500, 10_000]);
  });
});

describe('lookalike lists found with bounds', () => {
  it('equal brute force over the whole section: same companies, scores and order', () => {
    fc.assert(
      fc.property(companies(1, 260), (members) => {
        const lists = computed(members);
        members.forEach((_, subject) => expect(lists.get(subject)).toEqual(bruteForce(members, subject)));
      }),
      { numRuns: 40 },
    );
  });

  it('give the few companies of a small division lookalikes from the rest of their section', () => {
    const members = [
      ...Array.from({ length: 3 }, (_, n) => member(n, { activity: '42110' })),
      ...Array.from({ length: 150 }, (_, n) => member(100 + n, { employees: 10 + n })),
    ];
    const lists = computed(members);
    for (const subject of [0, 1, 2]) {
      const list = lists.get(subject)!;
      expect(list).toHaveLength(KEPT);
      // Its own division first (activity 1 for the same code), then the section's (activity 0.1).
      expect(
        list
          .slice(0, 2)
          .map((l) => l.index)
          .sort(),
      ).toEqual([0, 1, 2].filter((i) => i !== subject));
      expect(list).toEqual(bruteForce(members, subject));
    }
  });

  it('keep exactly 100 when the section holds more, and never a company of another section', () => {
    const members = [
      ...Array.from({ length: 120 }, (_, n) => member(n, { activity: n % 2 ? '43999' : '41201' })),
      ...Array.from({ length: 50 }, (_, n) => member(200 + n, { activity: '10110' })),
    ];
    const lists = computed(members);
    expect(lists.get(0)).toHaveLength(KEPT);
    expect(lists.get(0)!.every((l) => l.index < 120)).toBe(true);
    expect(lists.get(120)).toHaveLength(49);
  });

  it('resolve a tie at the 100th place by country, then company number', () => {
    // 90 clearly better, then 30 abroad tied on every feature: the 10 first of them in the tie order are kept.
    const better = Array.from({ length: 90 }, (_, n) => member(1000 + n, { employees: 10 }));
    const tied = Array.from({ length: 30 }, (_, n) =>
      member(2000 + n, {
        employees: 40,
        country: n % 2 ? 'NL' : 'FR',
        companyNumber: String(90_000_000 - n * 7919),
        place: null,
      }),
    );
    const members = [member(0), ...tied, ...better];
    const list = computed(members).get(0)!;
    expect(list).toEqual(bruteForce(members, 0));
    const keptTied = list.slice(90).map((l) => members[l.index]!);
    expect(new Set(list.slice(89).map((l) => l.score)).size).toBe(2);
    const expected = [...tied].sort(compareCompanies).slice(0, 10);
    expect(keptTied).toEqual(expected);
  });
});

describe('the lists a change may touch', () => {
  it('are exactly those the probe reaches at or above their floor', () => {
    fc.assert(
      fc.property(
        companies(2, 200),
        fc.array(fc.integer({ min: 0, max: 10_000 })),
        features(99_999_999),
        (members, floors, probe) => {
          const index = new SectionIndex(members, [probe]);
          const floorOf = (i: number) => floors[i % Math.max(1, floors.length)] ?? 0;
          const memberFloors = members.map((_, i) => floorOf(i));
          const prepared = new PreparedFeatures([probe, ...members]);
          const expected = members
            .map((_, i) => i)
            .filter(
              (i) =>
                sectionOf(members[i]!) === sectionOf(probe) && prepared.score(0, i + 1) >= memberFloors[i]!,
            );
          expect(affectedMembers(index, memberFloors, 1)).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });
});
