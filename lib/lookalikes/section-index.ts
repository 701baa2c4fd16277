/**
 * The index of one section's companies that finds a company's exact best lookalikes without scoring
 * every pair (contract §6.3; architecture, "Exact top-k without every pair").
 *
 * Per NACE level — the 5-digit code, the 4-, 3- and 2-digit prefix, the section — the members of each
 * group (the companies sharing that code or prefix) are kept in cells of a grid over (country,
 * log-employees, log-assets), cells CELL wide on the log scale, plus a "missing" row and column. For a
 * company and a cell of one of its groups, `cellBound` is an upper bound of the score of any member of
 * that cell whose activity part is the level's: activity is then exact (a member sharing a finer level
 * is visited there), size is bounded per figure by its closeness at the cell's nearest edge, place by
 * 0 abroad and in the same country by 1 only when the cell may hold the company's place (a 32-bit mask
 * of the cell's places), else 0.5, profile by the closeness of founding year and health to the nearest
 * of the cell's range of each.
 *
 * Why the bound is safe:
 * - the level's activity is exact for the members counted at that level;
 * - size is the mean of two closenesses, each non-increasing in the distance of the figures; a member
 *   in a cell is at least as far as the cell's nearest edge, so each closeness is at most its value at
 *   that edge (a figure missing on both sides is 1, on one side 0 — exactly what the missing row and
 *   column give), and the mean of upper bounds bounds the mean;
 * - place is 0 whenever the countries differ, 1 only for the same place (whose bit the cell's mask then
 *   has), else 0.5; profile is the mean of two closenesses, each at most its value at the nearest end
 *   of the cell's range (a missing figure: 1 only if the cell holds one missing too, else 0);
 * - the score is the rounded sum in ten-thousandths: Math.round is monotone, so rounding the bound the
 *   same way (plus 1e-6 for floating point, against errors near 1e-12) bounds the score.
 * CELL is 1/8, a power of two, so a cell's edges are exact. test/unit/lookalikes-bound.test.ts checks
 * the bound against the real score on random pairs.
 */
import type { LookalikeFeatures } from './features';
import { PreparedFeatures, WEIGHTS } from './scoring';

/** The width of a grid cell on the log10 scale of employees and assets. */
export const CELL = 1 / 8;
/** The grid coordinate of a missing figure. */
const MISSING = -1;
/** The activity part of each level, finest first: same code, 4-, 3-, 2-digit prefix, section. */
export const LEVEL_ACTIVITY = [1, 0.75, 0.5, 0.25, 0.1] as const;
const LEVELS = LEVEL_ACTIVITY.length;
/** The level key of companies without an activity (their code is -1): they are alike on activity (1). */
const NO_ACTIVITY = 0x3fffffff;

/** One group of a level: its members sorted by cell, the cells, and the cells by row. */
export interface Group {
  /** Member indices, sorted by (country, employees cell, assets cell). */
  order: Int32Array;
  /** Cell c holds order[cellStart[c] .. cellStart[c + 1]). */
  cellStart: Int32Array;
  cellCountry: Int32Array;
  cellEmployees: Int32Array;
  cellAssets: Int32Array;
  /** Per cell, a bit (place id mod 32) for each place its members have. */
  cellPlaces: Int32Array;
  /** Per cell, the range of founding years and of health, and whether one is missing (1 bit each). */
  cellYears: Float64Array;
  cellHealth: Float64Array;
  cellMissing: Uint8Array;
  /** Row r (one country and employees cell) holds cells rowStart[r] .. rowStart[r + 1], by assets cell. */
  rowStart: Int32Array;
}

/** The closeness of two log figures is 1 − d / 2 (lib/lookalikes/scoring.ts): two orders of magnitude. */
const SIZE_RANGE = 2;

/** The greatest closeness of figure x (NaN: missing) to any figure of a cell of the grid. */
export function axisBound(x: number, cell: number): number {
  if (x !== x) return cell === MISSING ? 1 : 0;
  if (cell === MISSING) return 0;
  const low = cell * CELL;
  const distance = Math.max(0, low - x, x - (low + CELL));
  return distance >= SIZE_RANGE ? 0 : 1 - distance / SIZE_RANGE;
}

export const cellOf = (x: number) => (x === x ? Math.floor(x / CELL) : MISSING);

/** The greatest closeness of x (NaN: missing) to a figure in [low, high] (empty: none known), or a missing one. */
export function rangeBound(x: number, low: number, high: number, missing: boolean, range: number): number {
  if (x !== x) return missing ? 1 : 0;
  if (!(low <= high)) return 0;
  const distance = Math.max(0, low - x, x - high);
  return distance >= range ? 0 : 1 - distance / range;
}

/** The bound of the score in ten-thousandths, rounded as the score is (see the file comment). */
export function boundOf(
  activity: number,
  employees: number,
  assets: number,
  place: number,
  profile = 1,
): number {
  const bound =
    WEIGHTS.activity * activity +
    (WEIGHTS.size * (employees + assets)) / 2 +
    WEIGHTS.place * place +
    WEIGHTS.profile * profile;
  return Math.floor(10_000 * bound + 0.5 + 1e-6);
}

const YEAR_MISSING = 1;
const HEALTH_MISSING = 2;

export class SectionIndex {
  readonly size: number;
  readonly prepared: PreparedFeatures;
  /** rank[i]: the member's place in the contract's tie order (`country`, then `companyNumber`). */
  readonly rank: Int32Array;
  /** keys[level][i]: the member's code or prefix at the level, -1 when it has none. */
  readonly keys: Int32Array[];
  /** Per level, the groups by key. */
  readonly groups: Map<number, Group>[];
  readonly cellEmployees: Int32Array;
  readonly cellAssets: Int32Array;

  /**
   * `members` are the section's companies; `probes` (companies as they were or are, for the import's
   * completion) are prepared after them, indices size.., but belong to no group.
   */
  constructor(members: readonly LookalikeFeatures[], probes: readonly LookalikeFeatures[] = []) {
    const n = members.length;
    this.size = n;
    const all = probes.length === 0 ? members : [...members, ...probes];
    const p = (this.prepared = new PreparedFeatures(all));
    this.rank = new Int32Array(n);
    const byCompany = Array.from({ length: n }, (_, i) => i).sort((a, b) =>
      compareCompanies(members[a]!, members[b]!),
    );
    byCompany.forEach((member, position) => (this.rank[member] = position));

    const code = p.code.map((c) => (c === -1 ? NO_ACTIVITY : c));
    this.keys = [code, p.p4, p.p3, p.p2, p.section];
    this.cellEmployees = new Int32Array(all.length);
    this.cellAssets = new Int32Array(all.length);
    for (let i = 0; i < all.length; i++) {
      this.cellEmployees[i] = cellOf(p.logEmployees[i]!);
      this.cellAssets[i] = cellOf(p.logAssets[i]!);
    }
    this.groups = this.keys.map((key) => this.groupBy(key, n));
  }

  private groupBy(key: Int32Array, n: number): Map<number, Group> {
    const byKey = new Map<number, number[]>();
    for (let i = 0; i < n; i++) {
      const k = key[i]!;
      if (k === -1) continue;
      let list = byKey.get(k);
      if (!list) byKey.set(k, (list = []));
      list.push(i);
    }
    const groups = new Map<number, Group>();
    for (const [k, list] of byKey) groups.set(k, this.group(list));
    return groups;
  }

  private group(list: number[]): Group {
    const country = this.prepared.country;
    const ce = this.cellEmployees;
    const ca = this.cellAssets;
    const order = Int32Array.from(list).sort(
      (a, b) => country[a]! - country[b]! || ce[a]! - ce[b]! || ca[a]! - ca[b]!,
    );
    const cellStart: number[] = [];
    const rowStart: number[] = [];
    for (let i = 0; i < order.length; i++) {
      const m = order[i]!;
      const prev = i > 0 ? order[i - 1]! : -1;
      const newRow = prev === -1 || country[prev] !== country[m] || ce[prev] !== ce[m];
      if (newRow) rowStart.push(cellStart.length);
      if (newRow || ca[prev] !== ca[m]) cellStart.push(i);
    }
    const cells = cellStart.length;
    rowStart.push(cells);
    cellStart.push(order.length);
    const first = (c: number) => order[cellStart[c]!]!;
    const p = this.prepared;
    const cellPlaces = new Int32Array(cells);
    const cellYears = new Float64Array(2 * cells).fill(Number.NaN);
    const cellHealth = new Float64Array(2 * cells).fill(Number.NaN);
    const cellMissing = new Uint8Array(cells);
    for (let c = 0; c < cells; c++) {
      let [yearLow, yearHigh, healthLow, healthHigh] = [Infinity, -Infinity, Infinity, -Infinity];
      for (let at = cellStart[c]!; at < cellStart[c + 1]!; at++) {
        const m = order[at]!;
        cellPlaces[c]! |= 1 << (p.place[m]! & 31);
        const year = p.foundedYear[m]!;
        const health = p.health[m]!;
        if (year !== year) cellMissing[c]! |= YEAR_MISSING;
        else [yearLow, yearHigh] = [Math.min(yearLow, year), Math.max(yearHigh, year)];
        if (health !== health) cellMissing[c]! |= HEALTH_MISSING;
        else [healthLow, healthHigh] = [Math.min(healthLow, health), Math.max(healthHigh, health)];
      }
      cellYears.set([yearLow, yearHigh], 2 * c);
      cellHealth.set([healthLow, healthHigh], 2 * c);
    }
    return {
      order,
      cellStart: Int32Array.from(cellStart),
      cellCountry: Int32Array.from({ length: cells }, (_, c) => country[first(c)]!),
      cellEmployees: Int32Array.from({ length: cells }, (_, c) => ce[first(c)]!),
      cellAssets: Int32Array.from({ length: cells }, (_, c) => ca[first(c)]!),
      cellPlaces,
      cellYears,
      cellHealth,
      cellMissing,
      rowStart: Int32Array.from(rowStart),
    };
  }

  /**
   * The levels of company i (a member or a probe), finest first: [level, group] for each level it has
   * a code or prefix at. The levels are nested: a member of a finer group is in every coarser one.
   */
  levelsOf(i: number): Array<[number, Group]> {
    const levels: Array<[number, Group]> = [];
    for (let level = 0; level < LEVELS; level++) {
      const key = this.keys[level]![i]!;
      const group = key === -1 ? undefined : this.groups[level]!.get(key);
      if (group) levels.push([level, group]);
    }
    return levels;
  }

  /** The bound of the score of company i with any member of `cell` counted at `level` (its activity part). */
  cellBound(i: number, level: number, group: Group, cell: number): number {
    const p = this.prepared;
    const missing = group.cellMissing[cell]!;
    const place =
      group.cellCountry[cell] !== p.country[i]
        ? 0
        : group.cellPlaces[cell]! & (1 << (p.place[i]! & 31))
          ? 1
          : 0.5;
    const profile =
      (rangeBound(
        p.foundedYear[i]!,
        group.cellYears[2 * cell]!,
        group.cellYears[2 * cell + 1]!,
        (missing & YEAR_MISSING) !== 0,
        40,
      ) +
        rangeBound(
          p.health[i]!,
          group.cellHealth[2 * cell]!,
          group.cellHealth[2 * cell + 1]!,
          (missing & HEALTH_MISSING) !== 0,
          10,
        )) /
      2;
    return boundOf(
      LEVEL_ACTIVITY[level]!,
      axisBound(p.logEmployees[i]!, group.cellEmployees[cell]!),
      axisBound(p.logAssets[i]!, group.cellAssets[cell]!),
      place,
      profile,
    );
  }

  /**
   * Calls `visit(cell, bound)` for the cells of `group` whose bound for company i at `level` is at
   * least `atLeast`, and maybe a few more (the caller compares the bound again). Per row it looks only
   * at the assets cells that can reach `atLeast` (a binary search around the company's own assets).
   */
  forCells(
    i: number,
    level: number,
    group: Group,
    atLeast: number,
    visit: (cell: number, bound: number) => void,
  ): void {
    const p = this.prepared;
    const x = p.logEmployees[i]!;
    const y = p.logAssets[i]!;
    const country = p.country[i]!;
    const activity = LEVEL_ACTIVITY[level]!;
    const { rowStart, cellAssets, cellEmployees, cellCountry } = group;
    const target = (atLeast - 0.5 - 1e-6) / 10_000;
    for (let row = 0; row + 1 < rowStart.length; row++) {
      const from = rowStart[row]!;
      const to = rowStart[row + 1]!;
      const fe = axisBound(x, cellEmployees[from]!);
      const place = cellCountry[from] === country ? WEIGHTS.place : 0;
      // The assets closeness a cell of this row needs to reach `atLeast`.
      const needed =
        (2 * (target - WEIGHTS.activity * activity - place - WEIGHTS.profile)) / WEIGHTS.size - fe;
      let lo = from;
      let hi = to;
      if (needed > 1 + 1e-9) continue;
      if (needed > 1e-9) {
        if (y !== y) {
          // Only the missing column (sorted first) is close to a missing figure.
          hi = cellAssets[from] === MISSING ? from + 1 : from;
        } else {
          // Cells whose nearest edge is within reach, widened by a cell against rounding.
          const reach = SIZE_RANGE * (1 - needed);
          lo = lowerBound(cellAssets, from, to, Math.max(0, cellOf(y - reach) - 1));
          hi = lowerBound(cellAssets, lo, to, cellOf(y + reach) + 2);
        }
      }
      for (let cell = lo; cell < hi; cell++) {
        const bound = this.cellBound(i, level, group, cell);
        if (bound >= atLeast) visit(cell, bound);
      }
    }
  }
}

/** The first index in [from, to) whose value is ≥ value (values sorted ascending). */
function lowerBound(values: Int32Array, from: number, to: number, value: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Compares two companies in the contract's tie order: `country`, then `companyNumber`, ascending. */
export function compareCompanies(a: LookalikeFeatures, b: LookalikeFeatures): number {
  if (a.country !== b.country) return a.country < b.country ? -1 : 1;
  return a.companyNumber < b.companyNumber ? -1 : a.companyNumber > b.companyNumber ? 1 : 0;
}
