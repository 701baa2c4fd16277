/**
 * Keeping the lookalike lists current (contract §6.3, §11.2). One library, three callers:
 *
 * - the import: `deriveLookalikes` (a batch Derivation) records the changed companies' features in
 *   their blocks and names them in the batch's mark; `recomputeMarked` (a Completion) then recomputes,
 *   before the import returns, the lists of the marked companies and of every company of their sections
 *   that a marked company entered or may have left: those it reaches, with its old or its new features,
 *   at or above their floor (their 100th score), found through the section's index (`affectedMembers`:
 *   only the tree nodes whose bound reaches their lowest floor are opened). A run cut off before its
 *   completion leaves its marks to the next run's.
 * - the full job in one process (`npm run lookalikes`): `recomputeAll` recomputes every section.
 * - on AWS, both as a fan-out over workers (lib/lookalikes/fan-out.ts): the same plans (`planMarked`,
 *   `planAll`), the subjects cut into shards, each shard's lists computed by `writeLists`.
 *
 * Each of them holds the table's lookalike lease (lib/lookalikes/lease.ts) from before it reads the marks
 * until its lists are written, so no recompute writes lists from a snapshot older than another's. In one
 * process a recompute that finds the lease held waits for it (`acquireLease`): the import returns with
 * its lookalikes written; on AWS a plan that finds it held leaves its marks to the holder, which
 * re-checks them when it ends.
 *
 * Candidates are the companies of the same section (lib/lookalikes/features.ts), read as the blocks of
 * its divisions; each list is found with bounds (lib/lookalikes/compute.ts), never every pair.
 */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { forEachLimited } from '../concurrency';
import type { CompanyChange, Derived, DerivedWrites } from '../derivation/change';
import {
  deleteMarks,
  getBlock,
  getMarks,
  hasMarks,
  putLists,
  rebuildFeatures,
  changeWrites,
  type BlockMember,
  type ComputedList,
  type Mark,
} from './block-store';
import { affectedMembers, computeLists, floorOf } from './compute';
import {
  featuresOf,
  sameFeatures,
  SECTION_BLOCKS,
  sectionOf,
  sectionOfBlock,
  type LookalikeFeatures,
} from './features';
import {
  holdingHere,
  keepingLease,
  LOOKALIKE_LEASE,
  processHolder,
  releaseAndRecheck,
  releaseLease,
  takeLease,
  type Clock,
  type LeaseHeld,
  type LeaseWait,
} from './lease';
import { SectionIndex } from './section-index';
import * as keys from '../storage/keys';
import { waitForLease } from '../storage/lease';
import { packLookalikes } from './store';

/** Sections read at once: one computes while another reads or writes. */
const SECTIONS_IN_FLIGHT = 2;
/**
 * Lists written per batch of subjects: a section's lists are never all held at once, and a batch's
 * writes go out while the next batch is computed, so the table is not left idle while lists are scored.
 */
const SUBJECTS_PER_WRITE = 250;
/** Batches of lists being written while the next one is computed. */
const WRITES_IN_FLIGHT = 2;
/** Above every score (ten-thousandths, at most 10,000), within the search's 32-bit floors. */
const UNREACHABLE_FLOOR = 0x7fffffff;

export interface RecomputeSummary extends Partial<LeaseHeld> {
  /** Blocks (NACE divisions) read. */
  blocks: number;
  companies: number;
  seconds: number;
  /**
   * Rounds under the lease: 0 when nothing was marked, when the recompute it waited for took the marks,
   * or (`wait: false`) when another recompute held the lease (named).
   */
  rounds: number;
  /** Marks written while it ran were left to the next recompute: it reached MAX_ROUNDS. */
  marksLeft?: boolean;
}

/**
 * A section to recompute: its members as stored (features and floors, in block order) and the members
 * whose lists are recomputed (indices into `members`, ascending, or every member). `index` is the
 * section's index the planning built, when it built one (the marked sections': it holds the probes).
 */
export interface SectionWork {
  section: string;
  members: BlockMember[];
  subjects: number[] | 'all';
  /** Blocks read. */
  blocks: number;
  index?: SectionIndex;
}

/**
 * The Derivation, over a batch: a change of what lookalikes are compared on (or of the name shown)
 * writes the company's features and names it in the batch's mark (lib/lookalikes/block-store.ts).
 */
export async function deriveLookalikes(changes: CompanyChange[]): Promise<Derived> {
  const byBatch = new Map<
    string,
    Array<{ before: LookalikeFeatures | null; after: LookalikeFeatures | null }>
  >();
  const writes: DerivedWrites = { puts: [], deletes: [] };
  for (const { before, after, changeId, gone } of changes) {
    const old = before && featuresOf(before);
    // An erased company (§11.5.6) leaves its block and its own list goes: it answers as unknown.
    if (gone) writes.deletes.push(keys.lookalikes(after));
    const now = gone ? null : featuresOf(after);
    if (now === null ? old === null : sameFeatures(old, now)) continue;
    byBatch.set(changeId, [...(byBatch.get(changeId) ?? []), { before: old, after: now }]);
  }
  for (const [changeId, changed] of byBatch) {
    const { puts, deletes } = changeWrites(changed, changeId);
    writes.puts.push(...puts);
    writes.deletes.push(...deletes);
  }
  return writes.puts.length === 0 && writes.deletes.length === 0 ? { updates: 0 } : { updates: 0, writes };
}

/**
 * The sections the marks touch, one at a time to `onSection` (up to SECTIONS_IN_FLIGHT at once), each
 * with the members to recompute: the marked companies as they are now and every member a marked company
 * reaches at or above its floor, with its old features (lists it may leave) or its new ones (lists it
 * may enter), found through the section's index (`affectedMembers`).
 */
export async function planMarked(
  marks: Mark[],
  onSection: (work: SectionWork) => Promise<void>,
): Promise<void> {
  const bySection = new Map<string, { marked: Set<string>; leaving: LookalikeFeatures[] }>();
  const entry = (section: string) => {
    let found = bySection.get(section);
    if (!found) bySection.set(section, (found = { marked: new Set(), leaving: [] }));
    return found;
  };
  for (const change of marks.flatMap((m) => m.changes)) {
    entry(sectionOfBlock(change.block)).marked.add(companyKey(change.company));
    if (change.before) entry(sectionOf(change.before)).leaving.push(change.before);
  }
  await forEachLimited([...bySection], SECTIONS_IN_FLIGHT, async ([section, { marked, leaving }]) => {
    const { members, blocks } = await getSection(section);
    const features = members.map((m) => m.features);
    const isMarked = (f: LookalikeFeatures) => marked.has(companyKey(f));
    // The marked companies as they are now (entering lists) and as they were (leaving them).
    const probes = [...features.filter(isMarked), ...leaving];
    const index = new SectionIndex(features, probes);
    // A marked member is recomputed whatever a probe scores with it: a floor no score reaches keeps the
    // search from opening the nodes that hold only marked members (a section every member of which
    // changed opens none).
    const floors = members.map((m, i) => (isMarked(features[i]!) ? UNREACHABLE_FLOOR : m.floor));
    const subjects = new Set(affectedMembers(index, floors, probes.length));
    features.forEach((f, i) => isMarked(f) && subjects.add(i));
    await onSection({ section, members, subjects: [...subjects].sort((a, b) => a - b), blocks, index });
  });
}

/** Every section with a member, each to `onSection` with all its members to recompute. */
export async function planAll(onSection: (work: SectionWork) => Promise<void>): Promise<void> {
  await forEachLimited([...SECTION_BLOCKS.keys()], SECTIONS_IN_FLIGHT, async (section) => {
    const { members, blocks } = await getSection(section);
    await onSection({ section, members, subjects: members.length === 0 ? [] : 'all', blocks });
  });
}

export type { LeaseWait } from './lease';

/** Who recomputes in one process, and its clock (the tests turn it forward to expire a lease). */
export interface RecomputeOptions {
  /** The lease holder's name; a fresh `processHolder()` by default. */
  holder?: string;
  clock?: Clock;
  /**
   * With the lease held by another recompute: wait for it (the default), or `false`: answer at once,
   * naming the holder (`heldBy`, `heldUntil`), the marks left to it.
   */
  wait?: LeaseWait | false;
}

/**
 * The Completion, in one process: recomputes what the marked changes touch, then drops the marks. With
 * nothing marked it takes no lease; with the lease held by another recompute it waits for it (or for
 * that one to take the marks), so the lists are written when it returns.
 */
export async function recomputeMarked(options: RecomputeOptions = {}): Promise<RecomputeSummary> {
  const started = performance.now();
  if (!(await hasMarks())) return { blocks: 0, companies: 0, seconds: 0, rounds: 0 };
  return recomputeUnderLease('marked', options, started);
}

/**
 * The full job, in one process: every list of every section, from the features stored in the blocks.
 * With `rebuildFeatures`, the features are first written again from the stored companies (a table
 * imported before lookalikes existed; a Scan, so only for that). With the lease held by another
 * recompute it waits for it.
 */
export async function recomputeAll(
  options: RecomputeOptions & { rebuildFeatures?: boolean } = {},
): Promise<RecomputeSummary> {
  const started = performance.now();
  if (options.rebuildFeatures) await rebuildFeatures();
  return recomputeUnderLease('all', options, started);
}

/**
 * Rounds under the lease (lib/lookalikes/lease.ts), as the state machines run them: the first of
 * `first`'s kind, then one per re-check that found marks written meanwhile.
 */
async function recomputeUnderLease(
  first: 'marked' | 'all',
  { holder = processHolder(), clock = Date.now, wait = {} }: RecomputeOptions,
  started: number,
): Promise<RecomputeSummary> {
  // Counted as this process's from before the lease is taken: a CLI stopped meanwhile frees it.
  return holdingHere(holder, () => roundsUnderLease(first, holder, clock, wait, started));
}

async function roundsUnderLease(
  first: 'marked' | 'all',
  holder: string,
  clock: Clock,
  wait: LeaseWait | false,
  started: number,
): Promise<RecomputeSummary> {
  const seconds = () => (performance.now() - started) / 1000;
  const held = await acquireLease(first, holder, clock, wait);
  if (held === 'marks taken') return { blocks: 0, companies: 0, seconds: seconds(), rounds: 0 };
  if (held) return { blocks: 0, companies: 0, seconds: 0, rounds: 0, ...held };
  const total = { blocks: 0, companies: 0 };
  for (let round = 1; ; round++) {
    // In one process nothing retries a round that failed: the lease is released at once (its marks
    // stay), not left to expire while every other recompute waits.
    await keepingLease(
      holder,
      async () => {
        // Marks read before the blocks: whatever is marked later is the re-check's.
        const marks = await getMarks();
        const { blocks, companies } = await recomputeSections(
          round === 1 && first === 'all' ? planAll : (onSection) => planMarked(marks, onSection),
        );
        total.blocks += blocks;
        total.companies += companies;
        await deleteMarks(marks);
      },
      clock,
    ).catch(async (error: unknown) => {
      await releaseLease(holder);
      throw error;
    });
    const { again, marksLeft } = await releaseAndRecheck(holder, round, clock);
    if (again) continue;
    if (marksLeft) {
      // Written by imports whose recompute found this one's lease held: in one process they wait
      // for it and take them; an import engine's run leaves them to the next recompute.
      log('WARN', 'lookalikes recomputed; marks left to the next recompute', { holder, rounds: round });
    }
    return { ...total, rounds: round, seconds: seconds(), ...(marksLeft ? { marksLeft } : {}) };
  }
}

/**
 * Takes the lease for `holder` (undefined). Held by another recompute: with `wait` false, answers who
 * holds it; else waits for it (lib/storage/lease.ts `waitForLease`: a dead process's taken over at
 * once, else tried again every `pollMs`), a `marked` recompute also until no mark is left ('marks
 * taken': the holder's re-check took them, and the lists are written). Ctrl-C stops the wait, the
 * marks stay for the next recompute.
 */
async function acquireLease(
  first: 'marked' | 'all',
  holder: string,
  clock: Clock,
  wait: LeaseWait | false,
): Promise<LeaseHeld | 'marks taken' | undefined> {
  if (wait === false) return takeLease(holder, clock);
  const stopWaiting = first === 'marked' ? async () => !(await hasMarks()) : undefined;
  const waited = await waitForLease(LOOKALIKE_LEASE, holder, { clock, wait, stopWaiting });
  return waited === 'stopped' ? 'marks taken' : undefined;
}

/** A JSON line on stderr (stdout is the import's summary). */
function log(level: 'WARN', message: string, fields: Record<string, unknown>): void {
  console.error(JSON.stringify({ level, message, ...fields }));
}

async function recomputeSections(
  plan: (onSection: (work: SectionWork) => Promise<void>) => Promise<void>,
): Promise<{ blocks: number; companies: number }> {
  let companies = 0;
  let blocks = 0;
  await plan(async ({ members, subjects, blocks: read, index }) => {
    blocks += read;
    if (subjects.length === 0) return;
    const all = subjects === 'all' ? members.map((_, i) => i) : subjects;
    // Awaited first: `x += await …` reads x before the wait and would lose another section's count.
    const written = await writeLists(members, index ?? new SectionIndex(members.map((m) => m.features)), all);
    companies += written;
  });
  return { blocks, companies };
}

/** Every company of a section: the blocks of its divisions, read at once, in block order. */
async function getSection(section: string): Promise<{ members: BlockMember[]; blocks: number }> {
  const blocks = SECTION_BLOCKS.get(section) ?? [];
  return { members: (await Promise.all(blocks.map(getBlock))).flat(), blocks: blocks.length };
}

/**
 * Computes and writes the lists of `subjects` (indices into `members`, which `index` was built from),
 * a batch at a time: what one process does for a whole section and a fan-out worker for its shard.
 * Answers the number of lists written.
 */
export async function writeLists(
  members: readonly BlockMember[],
  index: SectionIndex,
  subjects: readonly number[],
): Promise<number> {
  const writing = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  for (let from = 0; from < subjects.length && !failure; from += SUBJECTS_PER_WRITE) {
    const lists: ComputedList[] = [];
    computeLists(index, subjects.slice(from, from + SUBJECTS_PER_WRITE), (subject, list) => {
      const member = members[subject]!;
      lists.push({
        features: member.features,
        packed: packLookalikes(
          list.map(({ index: i, score }) => ({ ref: refOf(members[i]!.features), score })),
        ),
        floor: floorOf(list),
        previousFloor: member.floor,
      });
    });
    const write: Promise<void> = putLists(lists)
      .catch((error: unknown) => void (failure ??= { error }))
      .finally(() => writing.delete(write));
    writing.add(write);
    // Computing the next batch holds the event loop: the requests of this one go out first.
    await new Promise((resolve) => setImmediate(resolve));
    while (writing.size >= WRITES_IN_FLIGHT) await Promise.race(writing);
  }
  await Promise.all(writing);
  if (failure) throw (failure as { error: unknown }).error;
  return subjects.length;
}

const refOf = ({ country, companyNumber }: CompanyRef): CompanyRef => ({ country, companyNumber });
