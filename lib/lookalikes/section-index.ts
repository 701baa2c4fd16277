/**
 * The index of one section's companies that finds a company's exact best lookalikes without scoring
 * every pair (contract §6.3; architecture, "Exact top-k without every pair").
 *
 * Per NACE level — the 5-digit code, the 4-, 3- and 2-digit prefix, the section — the members of each
 * group (the companies sharing that code or prefix) are kept in a k-d tree: each node covers a run of
 * members and knows, per figure (employees and assets on the log scale, founding year, health), the
 * range of the known values and whether one is missing, and which countries and places (a 32-bit mask,
 * place id mod 32) its members have. A node is split at the median of the figure along which its
 * members differ most in score (the spread times the figure's weight), or by country, until it holds
 * LEAF members or fewer. So the tree follows the data: where companies are dense its nodes are small.
 *
 * For a company and a node at one of its levels, `nodeBound` is an upper bound of the score of any
 * member of the node whose activity part is the level's. Why it is safe:
 * - the level's activity is exact for the members counted at that level (a member sharing a finer
 *   level is counted there and skipped here);
 * - size and profile are means of closenesses, each non-increasing in the distance of the figures; a
 *   member's figure lies in the node's range, so each closeness is at most its value at the nearest
 *   end of the range (a figure missing on both sides is 1, on one side 0: a missing figure of the
 *   company reaches 1 only if the node holds a missing one too), and the mean of upper bounds bounds
 *   the mean;
 * - place is 0 whenever the countries differ, 1 only for the same place (whose bit the node's mask
 *   then has), else 0.5: 0 when the node holds none of the company's country;
 * - the score is the rounded sum in ten-thousandths: Math.round is monotone, so rounding the bound the
 *   same way (plus 1e-6 for floating point, against errors near 1e-12) bounds the score.
 * test/unit/lookalikes-exact.test.ts checks the bound against the real score on random pairs, and the
 * lists against brute force.
 */
import type { LookalikeFeatures } from './features';
import { PreparedFeatures, WEIGHTS } from './scoring';

/** The activity part of each level, finest first: same code, 4-, 3-, 2-digit prefix, section. */
export const LEVEL_ACTIVITY = [1, 0.75, 0.5, 0.25, 0.1] as const;
const LEVELS = LEVEL_ACTIVITY.length;
/** The level key of companies without an activity (their code is -1): they are alike on activity (1). */
const NO_ACTIVITY = 0x3fffffff;
/**
 * Members of a leaf, scored together once the leaf's bound reaches the floor. Smaller leaves score
 * fewer pairs but bound more nodes; 16 scored the fewest pairs + bounds in the bench.
 */
const LEAF = 16;

/** The figures a node knows the range of: employees and assets (log scale), founding year, health. */
const AXES = 4;
/** How far apart a figure's closeness reaches 0 (lib/lookalikes/scoring.ts), per axis. */
const AXIS_RANGE = [2, 2, 40, 10] as const;
/** What a figure's closeness weighs in the score, per axis: half of size's, half of profile's. */
const AXIS_WEIGHT = [WEIGHTS.size / 2, WEIGHTS.size / 2, WEIGHTS.profile / 2, WEIGHTS.profile / 2] as const;
/** The split axis for countries, after the four figures. */
const COUNTRY_AXIS = AXES;

/** One group of a level as a k-d tree; node 0 is the root, children come after their parent. */
export interface Tree {
  /** Member indices; node n covers order[start[n] .. end[n]). */
  order: Int32Array;
  start: Int32Array;
  end: Int32Array;
  /** The children of node n: left[n] and right[n], -1 for a leaf. */
  left: Int32Array;
  right: Int32Array;
  /** Per node and axis (n × AXES + axis), the range of the known figures; low > high when none is known. */
  low: Float64Array;
  high: Float64Array;
  /** Per node, a bit per axis for "a member lacks this figure". */
  missing: Uint8Array;
  /** Per node, a bit per country (section-local id, see `countryBit`) and per place id mod 32. */
  countries: Int32Array;
  places: Int32Array;
  /** Nodes in use. */
  nodes: number;
}

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

export class SectionIndex {
  readonly size: number;
  readonly prepared: PreparedFeatures;
  /** rank[i]: the member's place in the contract's tie order (`country`, then `companyNumber`). */
  readonly rank: Int32Array;
  /** keys[level][i]: the member's code or prefix at the level, -1 when it has none. */
  readonly keys: Int32Array[];
  /** Per level, the groups by key. */
  readonly groups: Map<number, Tree>[];
  /** The figures per axis (NaN: missing), members and probes. */
  private readonly axes: Float64Array[];
  /** countryBit[i]: the company's country as one bit of a node's mask. */
  private readonly countryBit: Int32Array;

  /**
   * Members are renumbered inside the index (see `internal`): `external[k]` is the caller's index of
   * member k, `internal[i]` the index's number of the caller's member i. Probes keep theirs.
   */
  readonly external: Int32Array;
  readonly internal: Int32Array;

  /**
   * `members` are the section's companies; `probes` (companies as they were or are, for the import's
   * completion) are prepared after them, indices size.., but belong to no group.
   *
   * The members are numbered by activity code, country and size first, so that the members of a leaf
   * of the finest level, which a search scores together, sit side by side in memory: scattered, they
   * cost a cache miss each, which at 100,000 companies took more time than the scoring itself.
   */
  constructor(members: readonly LookalikeFeatures[], probes: readonly LookalikeFeatures[] = []) {
    const n = members.length;
    this.size = n;
    const first = new PreparedFeatures(members);
    const coarse = (x: number) => (x === x ? Math.floor(4 * x) : -1);
    this.external = Int32Array.from({ length: n }, (_, i) => i).sort(
      (a, b) =>
        first.code[a]! - first.code[b]! ||
        first.country[a]! - first.country[b]! ||
        coarse(first.logEmployees[a]!) - coarse(first.logEmployees[b]!) ||
        coarse(first.logAssets[a]!) - coarse(first.logAssets[b]!),
    );
    this.internal = new Int32Array(n);
    this.external.forEach((member, k) => (this.internal[member] = k));
    const renumbered = Array.from(this.external, (member) => members[member]!);
    const all = probes.length === 0 ? renumbered : [...renumbered, ...probes];
    const p = (this.prepared = new PreparedFeatures(all));
    this.rank = new Int32Array(n);
    const byCompany = Array.from({ length: n }, (_, i) => i).sort((a, b) =>
      compareCompanies(renumbered[a]!, renumbered[b]!),
    );
    byCompany.forEach((member, position) => (this.rank[member] = position));
    this.axes = [p.logEmployees, p.logAssets, p.foundedYear, p.health];
    // Countries as small ids for the masks; past 31 countries they share the last bit (still a bound).
    const countryIds = new Map<number, number>();
    this.countryBit = p.country.map((c) => {
      let id = countryIds.get(c);
      if (id === undefined) countryIds.set(c, (id = countryIds.size));
      return 1 << Math.min(id, 31);
    });

    const code = p.code.map((c) => (c === -1 ? NO_ACTIVITY : c));
    this.keys = [code, p.p4, p.p3, p.p2, p.section];
    this.groups = this.keys.map((key) => this.groupBy(key, n));
  }

  private groupBy(key: Int32Array, n: number): Map<number, Tree> {
    const byKey = new Map<number, number[]>();
    for (let i = 0; i < n; i++) {
      const k = key[i]!;
      if (k === -1) continue;
      let list = byKey.get(k);
      if (!list) byKey.set(k, (list = []));
      list.push(i);
    }
    const groups = new Map<number, Tree>();
    for (const [k, list] of byKey) groups.set(k, this.tree(Int32Array.from(list)));
    return groups;
  }

  /** Builds the k-d tree of a group's members (see the file comment). */
  private tree(order: Int32Array): Tree {
    // Leaves hold LEAF/2 to LEAF members (median splits), so fewer than 4n/LEAF + 2 nodes.
    const capacity = Math.ceil((4 * order.length) / LEAF) + 2;
    const tree: Tree = {
      order,
      start: new Int32Array(capacity),
      end: new Int32Array(capacity),
      left: new Int32Array(capacity).fill(-1),
      right: new Int32Array(capacity).fill(-1),
      low: new Float64Array(capacity * AXES),
      high: new Float64Array(capacity * AXES),
      missing: new Uint8Array(capacity),
      countries: new Int32Array(capacity),
      places: new Int32Array(capacity),
      nodes: 0,
    };
    const keys = new Float64Array(order.length);
    const build = (from: number, to: number): number => {
      const node = tree.nodes++;
      tree.start[node] = from;
      tree.end[node] = to;
      const axis = this.describe(tree, node);
      if (to - from <= LEAF || axis === -1) return node;
      const values = axis === COUNTRY_AXIS ? this.countryBit : this.axes[axis]!;
      // Missing figures sort first, so they gather on one side.
      for (let at = from; at < to; at++) {
        const v = values[order[at]!]!;
        keys[at] = v === v ? v : -Infinity;
      }
      const middle = (from + to) >> 1;
      select(order, keys, from, to, middle);
      tree.left[node] = build(from, middle);
      tree.right[node] = build(middle, to);
      return node;
    };
    build(0, order.length);
    return tree;
  }

  /**
   * Fills in a node's ranges and masks; returns the axis to split it along (the one along which its
   * members' scores differ most), or -1 when they are alike on every axis.
   */
  private describe(tree: Tree, node: number): number {
    const { order } = tree;
    const from = tree.start[node]!;
    const to = tree.end[node]!;
    const p = this.prepared;
    let countries = 0;
    let places = 0;
    let missing = 0;
    for (let at = from; at < to; at++) {
      const m = order[at]!;
      countries |= this.countryBit[m]!;
      places |= 1 << (p.place[m]! & 31);
    }
    let bestAxis = -1;
    let bestSpread = 0;
    for (let axis = 0; axis < AXES; axis++) {
      const values = this.axes[axis]!;
      let low = Infinity;
      let high = -Infinity;
      let lacks = false;
      for (let at = from; at < to; at++) {
        const v = values[order[at]!]!;
        if (v !== v) lacks = true;
        else {
          if (v < low) low = v;
          if (v > high) high = v;
        }
      }
      tree.low[node * AXES + axis] = low;
      tree.high[node * AXES + axis] = high;
      if (lacks) missing |= 1 << axis;
      const known = low <= high;
      // Known and missing together differ by the whole weight; known figures by their spread.
      const spread =
        AXIS_WEIGHT[axis]! * (lacks && known ? 1 : known ? Math.min(1, (high - low) / AXIS_RANGE[axis]!) : 0);
      if (spread > bestSpread) [bestAxis, bestSpread] = [axis, spread];
    }
    tree.missing[node] = missing;
    tree.countries[node] = countries;
    tree.places[node] = places;
    // Two countries differ by place's whole weight.
    if ((countries & (countries - 1)) !== 0 && WEIGHTS.place >= bestSpread) bestAxis = COUNTRY_AXIS;
    return bestAxis;
  }

  /**
   * The levels of company i (a member or a probe), finest first: [level, tree] for each level it has a
   * code or prefix at. The levels are nested: a member of a finer group is in every coarser one.
   */
  levelsOf(i: number): Array<[number, Tree]> {
    const levels: Array<[number, Tree]> = [];
    for (let level = 0; level < LEVELS; level++) {
      const key = this.keys[level]![i]!;
      const tree = key === -1 ? undefined : this.groups[level]!.get(key);
      if (tree) levels.push([level, tree]);
    }
    return levels;
  }

  /** The bound of the score of company i with any member of `node` counted at `level` (its activity part). */
  nodeBound(i: number, level: number, tree: Tree, node: number): number {
    const p = this.prepared;
    const place =
      (tree.countries[node]! & this.countryBit[i]!) === 0
        ? 0
        : tree.places[node]! & (1 << (p.place[i]! & 31))
          ? 1
          : 0.5;
    const missing = tree.missing[node]!;
    const at = node * AXES;
    const { low, high } = tree;
    const [employees, assets, years, health] = this.axes as [
      Float64Array,
      Float64Array,
      Float64Array,
      Float64Array,
    ];
    // Per axis, written out: this runs for every node a search opens.
    return boundOf(
      LEVEL_ACTIVITY[level]!,
      rangeBound(employees[i]!, low[at]!, high[at]!, (missing & 1) !== 0, AXIS_RANGE[0]),
      rangeBound(assets[i]!, low[at + 1]!, high[at + 1]!, (missing & 2) !== 0, AXIS_RANGE[1]),
      place,
      (rangeBound(years[i]!, low[at + 2]!, high[at + 2]!, (missing & 4) !== 0, AXIS_RANGE[2]) +
        rangeBound(health[i]!, low[at + 3]!, high[at + 3]!, (missing & 8) !== 0, AXIS_RANGE[3])) /
        2,
    );
  }
}

/**
 * Rearranges order[from..to) (and keys alongside) so that position `nth` holds what a sort by key
 * would put there, smaller keys before it and larger after (Hoare's selection, linear on average).
 */
function select(order: Int32Array, keys: Float64Array, from: number, to: number, nth: number): void {
  let lo = from;
  let hi = to - 1;
  const swap = (a: number, b: number) => {
    const k = keys[a]!;
    keys[a] = keys[b]!;
    keys[b] = k;
    const o = order[a]!;
    order[a] = order[b]!;
    order[b] = o;
  };
  while (lo < hi) {
    const pivot = keys[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (keys[i]! < pivot) i++;
      while (keys[j]! > pivot) j--;
      if (i <= j) swap(i++, j--);
    }
    if (nth <= j) hi = j;
    else if (nth >= i) lo = i;
    else return;
  }
}

/** Compares two companies in the contract's tie order: `country`, then `companyNumber`, ascending. */
export function compareCompanies(a: LookalikeFeatures, b: LookalikeFeatures): number {
  if (a.country !== b.country) return a.country < b.country ? -1 : 1;
  return a.companyNumber < b.companyNumber ? -1 : a.companyNumber > b.companyNumber ? 1 : 0;
}
