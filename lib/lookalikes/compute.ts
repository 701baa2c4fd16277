/**
 * The lookalike lists of one block (the companies of one NACE division), in memory: every subject is
 * scored against every other member and keeps its best KEPT, best first (score descending, then
 * `country`, `companyNumber` ascending — contract §6.3). Cost: |subjects| × |block| scores; a whole
 * block scores each pair once (the score is symmetric) and offers it to both sides.
 *
 * Pure: the import's completion and the full recompute job both call it (lib/lookalikes/recompute.ts).
 */
import type { LookalikeFeatures } from './features';
import { PreparedFeatures } from './scoring';

/** How many lookalikes each company keeps. */
export const KEPT = 100;

/** A lookalike as computed: the member's index in the block and the score in ten-thousandths. */
export interface Scored {
  index: number;
  score: number;
}

/** Compares two companies in the contract's tie order: `country`, then `companyNumber`, ascending. */
export function compareCompanies(a: LookalikeFeatures, b: LookalikeFeatures): number {
  if (a.country !== b.country) return a.country < b.country ? -1 : 1;
  return a.companyNumber < b.companyNumber ? -1 : a.companyNumber > b.companyNumber ? 1 : 0;
}

/**
 * The lists of `subjects` (indices into `members`, or every member), each best first; `onList` gets
 * each one as it is done, so a caller can write it away instead of keeping every list in memory.
 */
export function computeLists(
  members: LookalikeFeatures[],
  subjects: number[] | 'all',
  onList: (subject: number, list: Scored[]) => void,
  kept = KEPT,
): void {
  const n = members.length;
  const prepared = new PreparedFeatures(members);
  // rank[i]: the member's place in the tie order, so a tie is one integer comparison.
  const rank = new Int32Array(n);
  const byCompany = Array.from({ length: n }, (_, i) => i).sort((a, b) =>
    compareCompanies(members[a]!, members[b]!),
  );
  byCompany.forEach((member, position) => (rank[member] = position));

  if (subjects === 'all') {
    const heaps = new TopK(n, kept, rank);
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const score = prepared.score(i, j);
        heaps.offer(i, j, score);
        heaps.offer(j, i, score);
      }
    }
    for (let i = 0; i < n; i++) onList(i, heaps.sorted(i));
    return;
  }
  const heaps = new TopK(subjects.length, kept, rank);
  subjects.forEach((subject, slot) => {
    for (let j = 0; j < n; j++) if (j !== subject) heaps.offer(slot, j, prepared.score(subject, j));
    onList(subject, heaps.sorted(slot));
  });
}

/**
 * The members whose list may change when the companies `probes` change, given each member's floor
 * (its KEPT-th score, 0 while it keeps fewer): those a probe reaches at or above the floor. A probe's
 * old features find the lists it leaves, its new features the lists it enters.
 */
export function affectedMembers(
  members: LookalikeFeatures[],
  floors: number[],
  probes: LookalikeFeatures[],
): number[] {
  if (probes.length === 0) return [];
  // Probes first, members after them, in one prepared set.
  const prepared = new PreparedFeatures([...probes, ...members]);
  const affected: number[] = [];
  for (let i = 0; i < members.length; i++) {
    const floor = floors[i] ?? 0;
    for (let p = 0; p < probes.length; p++) {
      if (prepared.score(p, probes.length + i) >= floor) {
        affected.push(i);
        break;
      }
    }
  }
  return affected;
}

/** The KEPT-th score of a list: what a newcomer must reach to enter it (0 while it has room). */
export function floorOf(list: Scored[], kept = KEPT): number {
  return list.length >= kept ? list[list.length - 1]!.score : 0;
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

  /** The slot's candidates, best first. */
  sorted(slot: number): Scored[] {
    const base = slot * this.k;
    const list: Scored[] = [];
    for (let i = 0; i < this.sizes[slot]!; i++)
      list.push({ index: this.members[base + i]!, score: this.scores[base + i]! });
    return list.sort((a, b) => b.score - a.score || this.rank[a.index]! - this.rank[b.index]!);
  }
}
