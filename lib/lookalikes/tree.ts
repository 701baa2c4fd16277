/**
 * The k-d tree of one group of a section's index (lib/lookalikes/section-index.ts builds and bounds it):
 * how its nodes and its members' figures are laid out in memory, and the median selection it is built
 * with. A search visits nodes scattered over the tree and scores a leaf's members one after the other,
 * so each node's fields, and each member's figures in tree order, lie side by side.
 */

/** The figures a node knows the range of: employees and assets (log scale), founding year, health. */
export const AXES = 4;

/** Where a node's fields sit in its row of `Tree.data`. */
export const LOW = 0; // + axis: the lowest known figure per axis (AXES of them)
export const HIGH = LOW + AXES; // + axis: the highest; low > high when none is known
export const START = HIGH + AXES;
export const END = START + 1;
export const LEFT = END + 1;
export const RIGHT = LEFT + 1;
export const MISSING = RIGHT + 1;
export const COUNTRIES = MISSING + 1;
/**
 * A bit per place id mod 32 × PLACE_WORDS, in PLACE_WORDS numbers: enough bits that a node's few
 * places seldom share one with a company's place (each false match bounds place at 1 instead of 0.5).
 * 256 bits cost a node three cache lines rather than two, and prune enough more pairs to pay for it
 * (docs/benchmarks.md).
 */
export const PLACES = COUNTRIES + 1;
export const PLACE_WORDS = 8;
/** Numbers per node: its fields side by side, since a search visits nodes scattered over the tree. */
export const NODE = PLACES + PLACE_WORDS;

/** The columns of a member's row in `Tree.rows`: its figures, country and place, and its key one level finer. */
export const [M_EMPLOYEES, M_ASSETS, M_YEAR, M_HEALTH, M_COUNTRY, M_PLACE, M_FINER] = [0, 1, 2, 3, 4, 5, 6];
export const MEMBER_ROW = 8;

/**
 * One group of a level as a k-d tree; node 0 is the root, children come after their parent. A node's
 * fields are one row of `data` (see the constants above): its members order[start .. end), its
 * children (-1 for a leaf), per axis the range of the known figures and a bit for "a member lacks this
 * figure", and a bit per country (section-local id) and per place id mod 32 × PLACE_WORDS.
 */
export class Tree {
  /** Member indices; node n covers order[start(n) .. end(n)). */
  readonly order: Int32Array;
  data: Float64Array;
  /**
   * What scoring a member at this tree's level reads, for order[k] at k × MEMBER_ROW (see MEMBER_ROW):
   * a search scores the members of a leaf one after the other, so their figures lie side by side
   * instead of scattered over the section (in a large section a scattered read costs more than the
   * arithmetic). The activity part needs no column: at a level it is the level's.
   */
  rows = new Float64Array(0);
  /** Nodes in use. */
  nodes = 0;

  constructor(order: Int32Array, capacity: number) {
    this.order = order;
    this.data = new Float64Array(capacity * NODE);
  }

  start(node: number): number {
    return this.data[node * NODE + START]!;
  }

  end(node: number): number {
    return this.data[node * NODE + END]!;
  }

  /** The first child, -1 for a leaf. */
  left(node: number): number {
    return this.data[node * NODE + LEFT]!;
  }

  right(node: number): number {
    return this.data[node * NODE + RIGHT]!;
  }

  countries(node: number): number {
    return this.data[node * NODE + COUNTRIES]!;
  }
}

/**
 * Rearranges order[from..to) (and keys alongside) so that position `nth` holds what a sort by key
 * would put there, smaller keys before it and larger after (Hoare's selection, linear on average).
 */
export function select(order: Int32Array, keys: Float64Array, from: number, to: number, nth: number): void {
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
