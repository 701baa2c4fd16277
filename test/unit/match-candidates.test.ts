/**
 * The match engine (contract §6.5): name similarity, and that its candidates agree with PUT's decision
 * (§7.5) on entries written from demo companies, by construction of the confidence.
 */
import { matchEntry, planMatch, type CandidateEntry } from '../../lib/matching/candidates';
import { calibrated, CALIBRATION } from '../../lib/matching/confidence';
import { nameWords } from '../../lib/companies/normalise';
import { nameSimilarity, samePlace } from '../../lib/matching/similarity';
import { generateDemoData } from '../fixtures/demo-data/companies';
import { foundOf, sourcesOf } from '../bench/match-confidence';

describe('calibrated', () => {
  test('passes through its points, rises strictly (candidates keep their order) and stays below 0.9', () => {
    for (const [x, y] of CALIBRATION) expect(calibrated(x)).toBeCloseTo(y, 6);
    let before = -1;
    for (let share = 0; share <= 0.8999; share += 0.0005) {
      const c = calibrated(share);
      expect(c).toBeGreaterThan(before);
      expect(c).toBeLessThan(0.9);
      before = c;
    }
  });
});

describe('nameSimilarity', () => {
  const sim = (a: string, b: string) => nameSimilarity(nameWords(a), nameWords(b));

  test.each([
    ['Acme Bouw NV', 'bouw, ACME', 1],
    ['Acme Bouw NV', 'Acme Bouwbedrijf', 0.95],
    ['Acme Bouw NV', 'Zyx Qua', 0],
  ])('%s ~ %s = %s', (a, b, expected) => {
    expect(sim(a, b)).toBeCloseTo(expected, 4);
  });

  test('a typo in a long word keeps most of the name; the more words differ, the less alike', () => {
    expect(sim('Bakkerij Peeters', 'Bakkerij Peters')).toBeGreaterThan(0.8);
    expect(sim('Bakkerij Peeters', 'Bakkerij Janssens')).toBeLessThan(0.6);
  });

  test('places compare without accents, case or punctuation', () => {
    expect(samePlace('Liège', 'LIEGE')).toBe(true);
    expect(samePlace('Sint-Niklaas', 'sint niklaas')).toBe(true);
    expect(samePlace('Gent', 'Genk')).toBe(false);
  });
});

describe('match agrees with PUT', () => {
  const records = generateDemoData({ companies: 300 });
  const sources = sourcesOf(records, foundOf(records));

  test('what PUT adds is the top candidate ≥ 0.9; nothing else, and nothing PUT fails, reaches 0.9', () => {
    const entries: CandidateEntry[] = records.flatMap((r, i) => {
      const other = records[(i + 7) % records.length]!;
      return [
        { name: r.name, place: r.place },
        { name: r.name.toUpperCase(), country: r.country },
        { companyNumber: r.companyNumber, name: other.name },
        { VAT: r.vatNumber, place: other.place },
        { name: `${r.name.split(' ')[0]} Qwerty`, place: r.place },
      ];
    });
    let decided = 0;

    for (const entry of entries) {
      const { decision, candidates } = matchEntry(planMatch(entry), sources);
      const [top, ...rest] = candidates;
      if (decision.ok) {
        decided++;
        expect({ entry, top: top?.company }).toEqual({ entry, top: decision.company });
        expect(top!.confidence).toBeGreaterThanOrEqual(0.9);
      } else {
        expect(top?.confidence ?? 0).toBeLessThan(0.9);
      }
      for (const other of rest) expect(other.confidence).toBeLessThan(0.9);
      expect(candidates.length).toBeLessThanOrEqual(5);
      for (const candidate of candidates) expect(candidate.matchedOn.length).toBeGreaterThan(0);
    }
    expect(decided).toBeGreaterThan(entries.length / 3);
    expect(decided).toBeLessThan(entries.length);
  });
});
