/**
 * The lookalike lists of a section's companies (contract §6.3): each subject keeps its best KEPT among
 * all the companies of its section, best first (score descending, then `country`, `companyNumber`
 * ascending), found with the bounds of lib/lookalikes/section-index.ts instead of by scoring every pair.
 *
 * Per subject, best-first branch and bound (Fagin's threshold algorithm over the NACE levels): the root
 * of its group's tree at each level waits in one frontier, ordered by bound; the best waiting node is
 * opened (its children join the frontier) or, for a leaf, its members are scored. A node joins unless the
 * list is full and the node's bound is below its KEPT-th score — a bound equal to it is kept, since a
 * member of that score may come earlier in the tie order. When the best waiting bound is below the
 * KEPT-th score, no company left out can enter: the list is exact. A coarser level's root bound is lower
 * by its activity part, so it is opened only when a member there could still enter.
 *
 * Pure, and per subject: a worker given the section's index computes any shard of its subjects
 * (the import's completion and the full recompute job, lib/lookalikes/recompute.ts; the bench).
 */
import * as scoring from './scoring';
import * as sectionIndex from './section-index';
import type { SectionIndex } from './section-index';
import * as treeLayout from './tree';
import type { Tree } from './tree';

// Bound once: where modules are CommonJS (tsx, jest), each use of an imported name is a call of the
// module's export getter, which the search's loops would otherwise make for every pair they score.
const { closeness, scoreOf } = scoring;
const { LEVEL_ACTIVITY } = sectionIndex;
const { M_ASSETS, M_COUNTRY, M_EMPLOYEES, M_FINER, M_HEALTH, M_PLACE, M_YEAR, MEMBER_ROW } = treeLayout;

export { compareCompanies } from './section-index';

/** How many lookalikes each company keeps. */
export const KEPT = 100;

/** A lookalike as computed: the member's index in the section and the score in ten-thousandths. */
export interface Scored {
  index: number;
  score: number;
}

export interface ComputeStats {
  subjects: number;
  /** Pairs scored, over all subjects. */
  pairs: number;
}

/**
 * A node waiting in the frontier: bound × 2^26 + level × 2^23 + node (nodes of a tree < 2^23, so trees
 * of up to some 30 million members; bounds ≤ 10,000, so the value stays an exact integer).
 */
const BOUND_SHIFT = 2 ** 26;
const LEVEL_SHIFT = 2 ** 23;

/**
 * The lists of `subjects` (indices into the index's members, or every member), each best first;
 * `onList` gets each one as it is done, so a caller can write it away instead of keeping every list.
 */
export function computeLists(
  index: SectionIndex,
  subjects: readonly number[] | 'all',
  onList: (subject: number, list: Scored[]) => void,
  kept = KEPT,
): ComputeStats {
  const top = new TopK(1, kept, index.rank);
  const frontier = new MaxHeap();
  const stats: ComputeStats = { subjects: 0, pairs: 0 };
  const count = subjects === 'all' ? index.size : subjects.length;
  const { internal, external } = index;
  for (let s = 0; s < count; s++) {
    const subject = subjects === 'all' ? s : subjects[s]!;
    top.clear(0);
    stats.pairs += topOf(index, internal[subject]!, top, frontier, kept);
    stats.subjects++;
    const list = top.sorted(0);
    for (const scored of list) scored.index = external[scored.index]!;
    onList(subject, list);
  }
  return stats;
}

/**
 * Per level of a company: its tree there, and the keys that tell which members share a finer level
 * with it (those are counted at the finer level, with its greater activity part, and skipped here).
 */
interface Level {
  tree: Tree;
  finer: Int32Array | null;
  finerKey: number;
  /** True when the finer level is the next one, whose key each member's row holds (M_FINER). */
  finerInRow: boolean;
}

function levelsOf(index: SectionIndex, company: number): Array<Level | undefined> {
  const levels: Array<Level | undefined> = [];
  let previous = -1;
  for (const [level, tree] of index.levelsOf(company)) {
    const finer = previous === -1 ? null : index.keys[previous]!;
    levels[level] = {
      tree,
      finer,
      finerKey: finer === null ? -1 : finer[company]!,
      finerInRow: finer !== null && previous === level - 1,
    };
    previous = level;
  }
  return levels;
}

/** Fills `top` with the best of `subject`; returns the number of pairs scored. */
function topOf(index: SectionIndex, subject: number, top: TopK, frontier: MaxHeap, kept: number): number {
  const { prepared, stopped } = index;
  const levels = levelsOf(index, subject);
  const employees = prepared.logEmployees[subject]!;
  const assets = prepared.logAssets[subject]!;
  const year = prepared.foundedYear[subject]!;
  const health = prepared.health[subject]!;
  const country = prepared.country[subject]!;
  const place = prepared.place[subject]!;
  const floor = () => (top.size(0) < kept ? -1 : top.worstScore(0));
  const push = (level: number, tree: Tree, node: number) => {
    const bound = index.nodeBound(subject, level, tree, node);
    if (bound >= floor()) frontier.push(bound * BOUND_SHIFT + level * LEVEL_SHIFT + node);
  };
  frontier.clear();
  levels.forEach((l, level) => l && push(level, l.tree, 0));
  let pairs = 0;
  while (frontier.size > 0) {
    // Best bound first; once it is below the KEPT-th score no member left out can enter.
    if (Math.floor(frontier.peek() / BOUND_SHIFT) < floor()) break;
    const entry = frontier.pop();
    const level = Math.floor((entry % BOUND_SHIFT) / LEVEL_SHIFT);
    const node = entry % LEVEL_SHIFT;
    const { tree, finer, finerKey, finerInRow } = levels[level]!;
    if (tree.left(node) !== -1) {
      push(level, tree, tree.left(node));
      push(level, tree, tree.right(node));
      continue;
    }
    // The leaf's members, scored from the tree's rows: PreparedFeatures.score's parts, written out
    // over the rows, with the level's activity (test/unit/lookalikes-exact.test.ts holds the lists,
    // scores included, equal to brute force with PreparedFeatures.score).
    const { rows, order } = tree;
    const activity = LEVEL_ACTIVITY[level]!;
    for (let at = tree.start(node), end = tree.end(node); at < end; at++) {
      const member = order[at]!;
      const row = at * MEMBER_ROW;
      // A stopped company is never another's lookalike (§11.5.8); bounds stay bounds without it.
      if (member === subject || stopped[member] === 1) continue;
      if (finerInRow ? rows[row + M_FINER] === finerKey : finer !== null && finer[member] === finerKey)
        continue;
      pairs++;
      const size =
        (closeness(employees, rows[row + M_EMPLOYEES]!, 2) + closeness(assets, rows[row + M_ASSETS]!, 2)) / 2;
      const placePart = country !== rows[row + M_COUNTRY] ? 0 : place === rows[row + M_PLACE] ? 1 : 0.5;
      const profile =
        (closeness(year, rows[row + M_YEAR]!, 40) + closeness(health, rows[row + M_HEALTH]!, 10)) / 2;
      top.offer(0, member, scoreOf(activity, size, placePart, profile));
    }
  }
  return pairs;
}

/**
 * The members (the caller's indices) whose list may change when the companies `probes` change, given
 * each member's floor (its KEPT-th score, 0 while it keeps fewer): those a probe reaches at or above their floor. A probe's old
 * features find the lists it leaves, its new features the lists it enters. The index holds the probes
 * after its members (`new SectionIndex(members, probes)`).
 *
 * Per probe, a node is opened only when its bound reaches the lowest floor among its members: the cost
 * follows how many lists the probe can be in (about KEPT on average), never a pass over the section.
 */
export function affectedMembers(index: SectionIndex, floors: ArrayLike<number>, probes: number): number[] {
  const { external } = index;
  const affected = new Set<number>();
  const lowest = new Map<Tree, Int32Array>();
  const lowestFloors = (tree: Tree) => {
    let found = lowest.get(tree);
    if (!found) {
      found = new Int32Array(tree.nodes);
      // Children come after their parent: from the last node back, each node's children are done.
      for (let node = tree.nodes - 1; node >= 0; node--) {
        if (tree.left(node) !== -1) {
          found[node] = Math.min(found[tree.left(node)]!, found[tree.right(node)]!);
          continue;
        }
        let min = Infinity;
        for (let at = tree.start(node); at < tree.end(node); at++)
          min = Math.min(min, floors[external[tree.order[at]!]!] ?? 0);
        found[node] = min;
      }
      lowest.set(tree, found);
    }
    return found;
  };
  for (let probe = index.size; probe < index.size + probes; probe++) {
    levelsOf(index, probe).forEach((l, level) => {
      if (!l) return;
      const { tree, finer, finerKey } = l;
      const minFloor = lowestFloors(tree);
      const open = [0];
      while (open.length > 0) {
        const node = open.pop()!;
        if (index.nodeBound(probe, level, tree, node) < minFloor[node]!) continue;
        if (tree.left(node) !== -1) {
          open.push(tree.left(node), tree.right(node));
          continue;
        }
        for (let at = tree.start(node); at < tree.end(node); at++) {
          const member = tree.order[at]!;
          if (affected.has(member) || (finer !== null && finer[member] === finerKey)) continue;
          if (index.prepared.score(probe, member) >= (floors[external[member]!] ?? 0)) affected.add(member);
        }
      }
    });
  }
  return Array.from(affected, (member) => external[member]!).sort((a, b) => a - b);
}

/** The KEPT-th score of a list: what a newcomer must reach to enter it (0 while it has room). */
export function floorOf(list: Scored[], kept = KEPT): number {
  return list.length >= kept ? list[list.length - 1]!.score : 0;
}

/** A binary max-heap of numbers in a growable typed array: the frontier of nodes, best bound first. */
class MaxHeap {
  private items = new Float64Array(1024);
  size = 0;

  clear(): void {
    this.size = 0;
  }

  push(value: number): void {
    if (this.size === this.items.length) {
      const grown = new Float64Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    const items = this.items;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]! >= value) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = value;
  }

  peek(): number {
    return this.items[0]!;
  }

  pop(): number {
    const items = this.items;
    const top = items[0]!;
    const last = items[--this.size]!;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) break;
      const child = left + 1 < this.size && items[left + 1]! > items[left]! ? left + 1 : left;
      if (items[child]! <= last) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

/**
 * One bounded min-heap per slot over typed arrays: the root is the worst kept candidate (lowest score,
 * then the latest in the tie order), so a candidate that does not beat it is dropped in one comparison.
 */
class TopK {
  private readonly scores: Int32Array;
  private readonly members: Int32Array;
  private readonly sizes: Int32Array;

  constructor(
    slots: number,
    private readonly k: number,
    private readonly rank: Int32Array,
  ) {
    this.scores = new Int32Array(slots * k);
    this.members = new Int32Array(slots * k);
    this.sizes = new Int32Array(slots);
  }

  /** True when candidate (s1, m1) is worse than (s2, m2). */
  private worse(s1: number, m1: number, s2: number, m2: number): boolean {
    return s1 < s2 || (s1 === s2 && this.rank[m1]! > this.rank[m2]!);
  }

  /** True when the candidate at position `a` is worse than the one at `b`. */
  private worseAt(a: number, b: number): boolean {
    return this.worse(this.scores[a]!, this.members[a]!, this.scores[b]!, this.members[b]!);
  }

  private move(from: number, to: number): void {
    this.scores[to] = this.scores[from]!;
    this.members[to] = this.members[from]!;
  }

  offer(slot: number, member: number, score: number): void {
    const base = slot * this.k;
    const size = this.sizes[slot]!;
    let i: number;
    if (size < this.k) {
      // Append and sift up: parents worse than the candidate move down.
      this.sizes[slot] = size + 1;
      for (i = size; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!this.worse(score, member, this.scores[base + parent]!, this.members[base + parent]!)) break;
        this.move(base + parent, base + i);
        i = parent;
      }
    } else {
      if (this.worse(score, member, this.scores[base]!, this.members[base]!)) return;
      // Replace the root and sift down: the worse child moves up while it is worse than the candidate.
      for (i = 0; ;) {
        const left = 2 * i + 1;
        if (left >= size) break;
        const right = left + 1;
        const child = right < size && this.worseAt(base + right, base + left) ? right : left;
        if (!this.worse(this.scores[base + child]!, this.members[base + child]!, score, member)) break;
        this.move(base + child, base + i);
        i = child;
      }
    }
    this.scores[base + i] = score;
    this.members[base + i] = member;
  }

  size(slot: number): number {
    return this.sizes[slot]!;
  }

  /** The score of the worst kept candidate (the root); only when the slot holds some. */
  worstScore(slot: number): number {
    return this.scores[slot * this.k]!;
  }

  clear(slot: number): void {
    this.sizes[slot] = 0;
  }

  /** The slot's candidates, best first. */
  sorted(slot: number): Scored[] {
    const base = slot * this.k;
    const list: Scored[] = [];
    for (let i = 0; i < this.sizes[slot]!; i++)
      list.push({ index: this.members[base + i]!, score: this.scores[base + i]! });
    return list.sort((a, b) => b.score - a.score || this.rank[a.index]! - this.rank[b.index]!);
  }
}
