/**
 * The index of one section's companies that finds a company's exact best lookalikes without scoring
 * every pair (contract §6.3; architecture, "Exact top-k without every pair").
 *
 * Per NACE level — the 5-digit code, the 4-, 3- and 2-digit prefix, the section — the members of each
 * group (the companies sharing that code or prefix) are kept in a k-d tree: each node covers a run of
 * members and knows, per figure (employees and assets on the log scale, founding year, health), the
 * range of the known values and whether one is missing, and which countries and places (a 256-bit mask,
 * place id mod 256) its members have. A node is split at the median of the figure along which its
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
import {
  AXES,
  COUNTRIES,
  END,
  HIGH,
  LEFT,
  LOW,
  M_ASSETS,
  M_COUNTRY,
  M_EMPLOYEES,
  M_FINER,
  M_HEALTH,
  M_PLACE,
  M_YEAR,
  MEMBER_ROW,
  MISSING,
  NODE,
  PLACE_WORDS,
  PLACES,
  RIGHT,
  select,
  START,
  Tree,
} from './tree';

export { Tree } from './tree';

// Bound once, not read through the scoring module's export on every bound (see lib/lookalikes/compute.ts).
const {
  activity: ACTIVITY_WEIGHT,
  size: SIZE_WEIGHT,
  place: PLACE_WEIGHT,
  profile: PROFILE_WEIGHT,
} = WEIGHTS;

/** The activity part of each level, finest first: same code, 4-, 3-, 2-digit prefix, section. */
export const LEVEL_ACTIVITY = [1, 0.75, 0.5, 0.25, 0.1] as const;
const LEVELS = LEVEL_ACTIVITY.length;
/** The level key of companies without an activity (their code is -1): they are alike on activity (1). */
const NO_ACTIVITY = 0x3fffffff;
/**
 * Members of a leaf, scored together once the leaf's bound reaches the floor. Smaller leaves score
 * fewer pairs but bound more nodes; this size gives the fewest pairs plus bounds (`npm run
 * bench:lookalikes`).
 */
const LEAF = 16;

/** How far apart a figure's closeness reaches 0 (lib/lookalikes/scoring.ts), per axis. */
const AXIS_RANGE = [2, 2, 40, 10] as const;
/** What a figure's closeness weighs in the score, per axis: half of size's, half of profile's. */
const AXIS_WEIGHT = [WEIGHTS.size / 2, WEIGHTS.size / 2, WEIGHTS.profile / 2, WEIGHTS.profile / 2] as const;
/** The split axis for countries, after the four figures. */
const COUNTRY_AXIS = AXES;

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
    ACTIVITY_WEIGHT * activity +
    (SIZE_WEIGHT * (employees + assets)) / 2 +
    PLACE_WEIGHT * place +
    PROFILE_WEIGHT * profile;
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
  /** Scratch for a node's place mask while it is described. */
  private readonly placeWords = new Int32Array(PLACE_WORDS);
  /** countryBit[i]: the company's country as one bit of a node's mask. */
  private readonly countryBit: Int32Array;

  /**
   * Members are renumbered inside the index (see `internal`): `external[k]` is the caller's index of
   * member k, `internal[i]` the index's number of the caller's member i. Probes keep theirs.
   */
  readonly external: Int32Array;
  readonly internal: Int32Array;
  /** stopped[k]: member k stopped (§11.5.8): it keeps its own list but is never another's lookalike. */
  readonly stopped: Uint8Array;

  /**
   * `members` are the section's companies; `probes` (companies as they were or are, for the import's
   * completion) are prepared after them, indices size.., but belong to no group.
   *
   * The members are numbered by activity code, country and size first, so that the members of a leaf
   * of the finest level, which a search scores together, sit side by side in memory: scattered, each
   * would cost a cache miss, which in a large section outweighs the scoring itself.
   */
  constructor(members: readonly LookalikeFeatures[], probes: readonly LookalikeFeatures[] = []) {
    const n = members.length;
    this.size = n;
    const all = probes.length === 0 ? members : [...members, ...probes];
    const p = (this.prepared = new PreparedFeatures(all));
    const coarse = (x: number) => (x === x ? Math.floor(4 * x) : -1);
    this.external = Int32Array.from({ length: n }, (_, i) => i).sort(
      (a, b) =>
        p.code[a]! - p.code[b]! ||
        p.country[a]! - p.country[b]! ||
        coarse(p.logEmployees[a]!) - coarse(p.logEmployees[b]!) ||
        coarse(p.logAssets[a]!) - coarse(p.logAssets[b]!),
    );
    p.reorder(this.external);
    this.internal = new Int32Array(n);
    this.external.forEach((member, k) => (this.internal[member] = k));
    this.stopped = Uint8Array.from(this.external, (member) => (members[member]!.stopped ? 1 : 0));
    this.rank = new Int32Array(n);
    const byCompany = Array.from({ length: n }, (_, k) => k).sort((a, b) =>
      compareCompanies(members[this.external[a]!]!, members[this.external[b]!]!),
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
    this.groups = this.keys.map((_, level) => this.groupBy(level, n));
  }

  private groupBy(level: number, n: number): Map<number, Tree> {
    const key = this.keys[level]!;
    const byKey = new Map<number, number[]>();
    for (let i = 0; i < n; i++) {
      const k = key[i]!;
      if (k === -1) continue;
      let list = byKey.get(k);
      if (!list) byKey.set(k, (list = []));
      list.push(i);
    }
    const groups = new Map<number, Tree>();
    for (const [k, list] of byKey) groups.set(k, this.tree(Int32Array.from(list), level));
    return groups;
  }

  /** Builds the k-d tree of a group's members (see the file comment). */
  private tree(order: Int32Array, level: number): Tree {
    // Leaves hold LEAF/2 to LEAF members (median splits), so fewer than 4n/LEAF + 2 nodes.
    const tree = new Tree(order, Math.ceil((4 * order.length) / LEAF) + 2);
    const keys = new Float64Array(order.length);
    const build = (from: number, to: number): number => {
      const node = tree.nodes++;
      const at = node * NODE;
      tree.data[at + START] = from;
      tree.data[at + END] = to;
      tree.data[at + LEFT] = tree.data[at + RIGHT] = -1;
      const axis = this.describe(tree, node);
      if (to - from <= LEAF || axis === -1) return node;
      const values = axis === COUNTRY_AXIS ? this.countryBit : this.axes[axis]!;
      // Missing figures sort first, so they gather on one side.
      for (let k = from; k < to; k++) {
        const v = values[order[k]!]!;
        keys[k] = v === v ? v : -Infinity;
      }
      const middle = (from + to) >> 1;
      select(order, keys, from, to, middle);
      tree.data[at + LEFT] = build(from, middle);
      tree.data[at + RIGHT] = build(middle, to);
      return node;
    };
    build(0, order.length);
    // The rows in use only: a section's trees hold millions of nodes.
    tree.data = tree.data.slice(0, tree.nodes * NODE);
    const p = this.prepared;
    const finer = level > 0 ? this.keys[level - 1]! : null;
    const rows = (tree.rows = new Float64Array(order.length * MEMBER_ROW));
    for (let k = 0; k < order.length; k++) {
      const m = order[k]!;
      const at = k * MEMBER_ROW;
      rows[at + M_EMPLOYEES] = p.logEmployees[m]!;
      rows[at + M_ASSETS] = p.logAssets[m]!;
      rows[at + M_YEAR] = p.foundedYear[m]!;
      rows[at + M_HEALTH] = p.health[m]!;
      rows[at + M_COUNTRY] = p.country[m]!;
      rows[at + M_PLACE] = p.place[m]!;
      rows[at + M_FINER] = finer === null ? -2 : finer[m]!;
    }
    return tree;
  }

  /**
   * Fills in a node's ranges and masks; returns the axis to split it along (the one along which its
   * members' scores differ most), or -1 when they are alike on every axis.
   */
  private describe(tree: Tree, node: number): number {
    const { order, data } = tree;
    const row = node * NODE;
    const from = data[row + START]!;
    const to = data[row + END]!;
    const p = this.prepared;
    let countries = 0;
    const places = this.placeWords.fill(0);
    let missing = 0;
    for (let at = from; at < to; at++) {
      const m = order[at]!;
      countries |= this.countryBit[m]!;
      const bit = p.place[m]! & (32 * PLACE_WORDS - 1);
      places[bit >> 5]! |= 1 << (bit & 31);
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
      data[row + LOW + axis] = low;
      data[row + HIGH + axis] = high;
      if (lacks) missing |= 1 << axis;
      const known = low <= high;
      // Known and missing together differ by the whole weight; known figures by their spread.
      const spread =
        AXIS_WEIGHT[axis]! * (lacks && known ? 1 : known ? Math.min(1, (high - low) / AXIS_RANGE[axis]!) : 0);
      if (spread > bestSpread) [bestAxis, bestSpread] = [axis, spread];
    }
    data[row + MISSING] = missing;
    data[row + COUNTRIES] = countries;
    for (let word = 0; word < PLACE_WORDS; word++) data[row + PLACES + word] = places[word]!;
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
    const data = tree.data;
    const row = node * NODE;
    const placeBit = this.prepared.place[i]! & (32 * PLACE_WORDS - 1);
    const place =
      (data[row + COUNTRIES]! & this.countryBit[i]!) === 0
        ? 0
        : data[row + PLACES + (placeBit >> 5)]! & (1 << (placeBit & 31))
          ? 1
          : 0.5;
    const missing = data[row + MISSING]!;
    const axes = this.axes;
    const employees = axes[0]!;
    const assets = axes[1]!;
    const years = axes[2]!;
    const health = axes[3]!;
    // Per axis, written out: this runs for every node a search opens.
    return boundOf(
      LEVEL_ACTIVITY[level]!,
      rangeBound(employees[i]!, data[row + LOW]!, data[row + HIGH]!, (missing & 1) !== 0, AXIS_RANGE[0]),
      rangeBound(assets[i]!, data[row + LOW + 1]!, data[row + HIGH + 1]!, (missing & 2) !== 0, AXIS_RANGE[1]),
      place,
      (rangeBound(
        years[i]!,
        data[row + LOW + 2]!,
        data[row + HIGH + 2]!,
        (missing & 4) !== 0,
        AXIS_RANGE[2],
      ) +
        rangeBound(
          health[i]!,
          data[row + LOW + 3]!,
          data[row + HIGH + 3]!,
          (missing & 8) !== 0,
          AXIS_RANGE[3],
        )) /
        2,
    );
  }
}

/** Compares two companies in the contract's tie order: `country`, then `companyNumber`, ascending. */
export function compareCompanies(a: LookalikeFeatures, b: LookalikeFeatures): number {
  if (a.country !== b.country) return a.country < b.country ? -1 : 1;
  return a.companyNumber < b.companyNumber ? -1 : a.companyNumber > b.companyNumber ? 1 : 0;
}
