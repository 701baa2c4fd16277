/**
 * The lookalike lists of a section's companies (contract §6.3): each subject keeps its best KEPT among
 * all the companies of its section, best first (score descending, then `country`, `companyNumber`
 * ascending), found with the bounds of lib/lookalikes/section-index.ts instead of by scoring every pair.
 *
 * Per subject (Fagin's threshold algorithm over the NACE levels): cells of its own code's group first,
 * best bound first; a coarser level's cells join when that level's best possible score reaches the best
 * bound still waiting. A cell is scored unless the list is full and the cell's bound is below its KEPT-th
 * score — a bound equal to it is scored, since a member of that score may come earlier in the tie order.
 * When the best waiting bound is below the KEPT-th score, no company left out can enter: the list is exact.
 *
 * Pure, and per subject: a worker given the section's index computes any shard of its subjects
 * (the import's completion and the full recompute job, lib/lookalikes/recompute.ts; the bench).
 */
import { LEVEL_ACTIVITY, boundOf, type Group, type SectionIndex } from './section-index';

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

/** A cell waiting in the frontier: bound × 2^24 + level × 2^21 + cell (cells of a group < 2^21). */
const BOUND_SHIFT = 2 ** 24;
const LEVEL_SHIFT = 2 ** 21;

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
  const frontier = new Frontier();
  const stats: ComputeStats = { subjects: 0, pairs: 0 };
  const count = subjects === 'all' ? index.size : subjects.length;
  for (let s = 0; s < count; s++) {
    const subject = subjects === 'all' ? s : subjects[s]!;
    top.clear(0);
    stats.pairs += topOf(index, subject, top, frontier, kept);
    stats.subjects++;
    onList(subject, top.sorted(0));
  }
  return stats;
}

/** Fills `top` with the best of `subject`; returns the number of pairs scored. */
function topOf(index: SectionIndex, subject: number, top: TopK, frontier: Frontier, kept: number): number {
  const { prepared, keys } = index;
  const levels = index.levelsOf(subject);
  const groups: Group[] = [];
  // finerKey[level]: the subject's key at the next finer level it has: members sharing it are counted there.
  const finer: Array<Int32Array | null> = [];
  const finerKey: number[] = [];
  levels.forEach(([level, group], k) => {
    groups[level] = group;
    const previous = k > 0 ? levels[k - 1]![0] : -1;
    finer[level] = previous === -1 ? null : keys[previous]!;
    finerKey[level] = previous === -1 ? -1 : keys[previous]![subject]!;
  });
  const floor = () => (top.size(0) < kept ? -1 : top.worstScore(0));
  const expand = (level: number) => {
    index.forCells(subject, level, groups[level]!, floor(), (cell, bound) =>
      frontier.push(level, bound * BOUND_SHIFT + level * LEVEL_SHIFT + cell),
    );
    frontier.seal(level);
  };

  frontier.clear();
  let pairs = 0;
  let next = 0;
  for (;;) {
    let best = frontier.size > 0 ? Math.floor(frontier.peek() / BOUND_SHIFT) : -1;
    // Widen while the next coarser level could still hold a member as good as the best waiting cell.
    while (next < levels.length && levelBest(levels[next]![0]) >= best) {
      expand(levels[next]![0]);
      next++;
      best = frontier.size > 0 ? Math.floor(frontier.peek() / BOUND_SHIFT) : -1;
    }
    if (frontier.size === 0 || best < floor()) break;
    const entry = frontier.pop();
    const level = Math.floor((entry % BOUND_SHIFT) / LEVEL_SHIFT);
    const cell = entry % LEVEL_SHIFT;
    const group = groups[level]!;
    const skip = finer[level];
    const skipKey = finerKey[level]!;
    for (let at = group.cellStart[cell]!, end = group.cellStart[cell + 1]!; at < end; at++) {
      const member = group.order[at]!;
      if (member === subject || (skip !== null && skip![member] === skipKey)) continue;
      pairs++;
      top.offer(0, member, prepared.score(subject, member));
    }
  }
  return pairs;
}

/** The best score any member counted at `level` could reach (every other part at its maximum). */
const levelBest = (level: number) => boundOf(LEVEL_ACTIVITY[level]!, 1, 1, 1);

/**
 * The members whose list may change when the companies `probes` change, given each member's floor (its
 * KEPT-th score, 0 while it keeps fewer): those a probe reaches at or above their floor. A probe's old
 * features find the lists it leaves, its new features the lists it enters. The index holds the probes
 * after its members (`new SectionIndex(members, probes)`).
 *
 * Per probe, only cells whose bound reaches the lowest floor in the cell are scored: the cost follows
 * how many lists the probe can be in (about KEPT on average), plus one bound per cell of its groups —
 * never a pass over the section.
 */
export function affectedMembers(index: SectionIndex, floors: ArrayLike<number>, probes: number): number[] {
  const affected = new Set<number>();
  const lowest = new Map<Group, Int32Array>();
  const lowestFloors = (group: Group) => {
    let found = lowest.get(group);
    if (!found) {
      found = new Int32Array(group.cellStart.length - 1);
      for (let cell = 0; cell < found.length; cell++) {
        let min = Infinity;
        for (let at = group.cellStart[cell]!; at < group.cellStart[cell + 1]!; at++)
          min = Math.min(min, floors[group.order[at]!] ?? 0);
        found[cell] = min;
      }
      lowest.set(group, found);
    }
    return found;
  };
  for (let probe = index.size; probe < index.size + probes; probe++) {
    const levels = index.levelsOf(probe);
    levels.forEach(([level, group], k) => {
      const minFloor = lowestFloors(group);
      const skip = k > 0 ? index.keys[levels[k - 1]![0]]! : null;
      const skipKey = skip === null ? -1 : skip[probe]!;
      index.forCells(probe, level, group, 0, (cell, bound) => {
        if (bound < minFloor[cell]!) return;
        for (let at = group.cellStart[cell]!; at < group.cellStart[cell + 1]!; at++) {
          const member = group.order[at]!;
          if (affected.has(member) || (skip !== null && skip[member] === skipKey)) continue;
          if (index.prepared.score(probe, member) >= (floors[member] ?? 0)) affected.add(member);
        }
      });
    });
  }
  return [...affected].sort((a, b) => a - b);
}

/** The KEPT-th score of a list: what a newcomer must reach to enter it (0 while it has room). */
export function floorOf(list: Scored[], kept = KEPT): number {
  return list.length >= kept ? list[list.length - 1]!.score : 0;
}

/**
 * The cells waiting, per level: each level's cells are sorted once when it is expanded (a native sort of
 * numbers), and the best waiting cell is the best head of the levels (at most five).
 */
class Frontier {
  private readonly items = Array.from({ length: LEVEL_ACTIVITY.length }, () => new Float64Array(256));
  private readonly sizes = new Int32Array(LEVEL_ACTIVITY.length);
  size = 0;

  clear(): void {
    this.sizes.fill(0);
    this.size = 0;
  }

  push(level: number, value: number): void {
    let items = this.items[level]!;
    const size = this.sizes[level]!;
    if (size === items.length) {
      const grown = new Float64Array(items.length * 2);
      grown.set(items);
      this.items[level] = items = grown;
    }
    items[size] = value;
    this.sizes[level] = size + 1;
    this.size++;
  }

  /** Sorts a level's cells ascending: the best is last. */
  seal(level: number): void {
    this.items[level]!.subarray(0, this.sizes[level]!).sort();
  }

  /** The level holding the best waiting cell (only while size > 0). */
  private bestLevel(): number {
    let best = -1;
    let value = -1;
    for (let level = 0; level < this.sizes.length; level++) {
      const size = this.sizes[level]!;
      if (size > 0 && this.items[level]![size - 1]! > value)
        [best, value] = [level, this.items[level]![size - 1]!];
    }
    return best;
  }

  peek(): number {
    const level = this.bestLevel();
    return this.items[level]![this.sizes[level]! - 1]!;
  }

  pop(): number {
    const level = this.bestLevel();
    this.size--;
    return this.items[level]![--this.sizes[level]!]!;
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
