/**
 * How alike two companies are (contract §6.3), a buyer's view: "more customers like this one".
 *
 *   score = 0.35 × activity + 0.4 × size + 0.15 × place + 0.1 × profile, rounded to 4 decimals
 *
 * - activity: the same NACE code 1; else a shared 4-digit prefix 0.75, 3-digit 0.5, 2-digit 0.25; the
 *   same NACE section only 0.1; nothing shared 0;
 * - size: the mean of employees and total assets of the latest period, each
 *   max(0, 1 − |log10(1 + a) − log10(1 + b)| / 2): 10 vs 12 employees 0.96, 10 vs 1,000 employees 0.02;
 * - place: the same place (ignoring case) in the same country 1, the same country 0.5, else 0;
 * - profile: the mean of founding year, max(0, 1 − |Δ years| / 40), and health, 1 − |Δ| / 10.
 *
 * A figure both companies lack counts as equal (1), a figure only one of them has as unlike (0), so
 * two companies equal on every feature score exactly 1. Every part is symmetric, so the score is too.
 *
 * Size weighs a little more than activity and profile least: were profile weighed as much as place, a
 * same-code company of another age and health would often be out-ranked by strangers of the right age
 * (`npm run bench:lookalikes` counts the planted families found in the top 5; figures in
 * docs/benchmarks.md).
 */
import type { LookalikeFeatures } from './features';
import { naceSection } from './nace';

export const WEIGHTS = { activity: 0.35, size: 0.4, place: 0.15, profile: 0.1 } as const;

/**
 * Companies' features as numbers, in typed arrays, computed once: comparing two is a few arithmetic
 * steps with no allocation (a full recompute scores hundreds of millions of pairs).
 */
export class PreparedFeatures {
  // Read by the section index (lib/lookalikes/section-index.ts), which groups and bounds by the same numbers.
  /** The full code, interned (-1: no activity). */
  readonly code: Int32Array;
  /** Prefixes as integers, -1 when the code is shorter. */
  readonly p4: Int32Array;
  readonly p3: Int32Array;
  readonly p2: Int32Array;
  /** The section letter's char code, -1 for a division outside every section (or no activity). */
  readonly section: Int32Array;
  /** log10(1 + figure), NaN when unknown. */
  readonly logEmployees: Float64Array;
  readonly logAssets: Float64Array;
  readonly country: Int32Array;
  /** The place, interned after trimming and lower-casing (-1: unknown). */
  readonly place: Int32Array;
  /** NaN when unknown. */
  readonly foundedYear: Float64Array;
  readonly health: Float64Array;
  constructor(companies: readonly LookalikeFeatures[]) {
    const n = companies.length;
    const ids = new Map<string, number>();
    const intern = (text: string) => {
      let id = ids.get(text);
      if (id === undefined) ids.set(text, (id = ids.size));
      return id;
    };
    this.code = new Int32Array(n);
    this.p4 = new Int32Array(n);
    this.p3 = new Int32Array(n);
    this.p2 = new Int32Array(n);
    this.section = new Int32Array(n);
    this.logEmployees = new Float64Array(n);
    this.logAssets = new Float64Array(n);
    this.country = new Int32Array(n);
    this.place = new Int32Array(n);
    this.foundedYear = new Float64Array(n);
    this.health = new Float64Array(n);
    companies.forEach((f, i) => {
      const code = f.activity;
      const section = code ? naceSection(code) : null;
      this.code[i] = code ? intern(`nace:${code}`) : -1;
      this.p4[i] = code ? prefix(code, 4) : -1;
      this.p3[i] = code ? prefix(code, 3) : -1;
      this.p2[i] = code ? prefix(code, 2) : -1;
      this.section[i] = section ? section.charCodeAt(0) : -1;
      this.logEmployees[i] = logOf(f.employees);
      this.logAssets[i] = logOf(f.totalAssets);
      this.country[i] = intern(`country:${f.country}`);
      this.place[i] = f.place === null ? -1 : intern(`place:${f.place.trim().toLowerCase()}`);
      this.foundedYear[i] = orNaN(f.foundedYear);
      this.health[i] = orNaN(f.healthIndicator);
    });
  }

  /**
   * Renumbers the first `order.length` companies: company k becomes the one that was order[k] (the
   * rest keep their numbers). In place, one column at a time, so a section is never held twice.
   */
  reorder(order: Int32Array): void {
    const columns = [
      this.code,
      this.p4,
      this.p3,
      this.p2,
      this.section,
      this.logEmployees,
      this.logAssets,
      this.country,
      this.place,
      this.foundedYear,
      this.health,
    ];
    for (const column of columns) {
      const before = column.slice(0, order.length);
      for (let k = 0; k < order.length; k++) column[k] = before[order[k]!]!;
    }
  }

  activity(i: number, j: number): number {
    const code = this.code;
    if (code[i] === code[j]) return 1;
    if (code[i] === -1 || code[j] === -1) return 0;
    if (this.p4[i] !== -1 && this.p4[i] === this.p4[j]) return 0.75;
    if (this.p3[i] !== -1 && this.p3[i] === this.p3[j]) return 0.5;
    if (this.p2[i] === this.p2[j]) return 0.25;
    if (this.section[i] !== -1 && this.section[i] === this.section[j]) return 0.1;
    return 0;
  }

  size(i: number, j: number): number {
    return (
      (closeness(this.logEmployees[i]!, this.logEmployees[j]!, 2) +
        closeness(this.logAssets[i]!, this.logAssets[j]!, 2)) /
      2
    );
  }

  placeOf(i: number, j: number): number {
    if (this.country[i] !== this.country[j]) return 0;
    return this.place[i] === this.place[j] ? 1 : 0.5;
  }

  profile(i: number, j: number): number {
    return (
      (closeness(this.foundedYear[i]!, this.foundedYear[j]!, 40) +
        closeness(this.health[i]!, this.health[j]!, 10)) /
      2
    );
  }

  /** The score of companies i and j in ten-thousandths (0..10000): the contract's 4 decimals, exact. */
  score(i: number, j: number): number {
    return scoreOf(this.activity(i, j), this.size(i, j), this.placeOf(i, j), this.profile(i, j));
  }
}

/**
 * The score in ten-thousandths from its parts: one expression for every path that scores (the same
 * operations in the same order give the same rounding, so every path gives the same number).
 */
export function scoreOf(activity: number, size: number, place: number, profile: number): number {
  return Math.round(
    10_000 *
      (WEIGHTS.activity * activity + WEIGHTS.size * size + WEIGHTS.place * place + WEIGHTS.profile * profile),
  );
}

const prefix = (code: string, digits: number) => (code.length >= digits ? Number(code.slice(0, digits)) : -1);
const logOf = (x: number | null) => (x === null ? Number.NaN : Math.log10(1 + Math.max(0, x)));
const orNaN = (x: number | null) => (x === null ? Number.NaN : x);

/**
 * 1 when equal, falling linearly to 0 at `range` apart (sizes: on a log scale, two orders of
 * magnitude). Unknown on both sides is equal; on one side only, unlike.
 */
export function closeness(a: number, b: number, range: number): number {
  const knownA = a === a;
  const knownB = b === b;
  if (!knownA || !knownB) return knownA === knownB ? 1 : 0;
  const d = Math.abs(a - b);
  return d >= range ? 0 : 1 - d / range;
}

/** The parts and the score of two companies, the score in [0, 1] with 4 decimals. */
export function compare(a: LookalikeFeatures, b: LookalikeFeatures) {
  const pair = new PreparedFeatures([a, b]);
  return {
    activity: pair.activity(0, 1),
    size: pair.size(0, 1),
    place: pair.placeOf(0, 1),
    profile: pair.profile(0, 1),
    score: pair.score(0, 1) / 10_000,
  };
}

/** The score of two companies, in [0, 1] with 4 decimals. */
export function similarity(a: LookalikeFeatures, b: LookalikeFeatures): number {
  return compare(a, b).score;
}
