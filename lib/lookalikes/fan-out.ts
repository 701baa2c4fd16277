/**
 * The lookalike recompute as a fan-out (contract §6.3): the same work as `recomputeMarked` and
 * `recomputeAll` (lib/lookalikes/recompute.ts), cut into shards that workers compute in parallel, so no
 * single worker bounds the data. On AWS the import engine's state machines run the three steps
 * (infra/import-engine.ts): the import's completion with the marked sections, the full job with all.
 *
 * 1. `planLookalikes` takes the table's lookalike lease for the run (lib/lookalikes/lease.ts: one
 *    recompute at a time; held by another, it plans nothing and the marks stay for the holder), reads
 *    the marks (the completion) or nothing (the full job), then each section to recompute once: it
 *    writes the section's members (features and floors) to the bucket as a snapshot, with the members to
 *    recompute when they are not all, and cuts them into shards of at most SHARD_SUBJECTS. It answers
 *    the shards; the keys of the marks it read go to the bucket too.
 * 2. `computeLookalikeShard`, one worker per shard (a Distributed Map), renews the lease, reads its
 *    section's snapshot, indexes the section and computes and writes its subjects' lists
 *    (BatchWriteItem, retried).
 * 3. `finishLookalikes` deletes the marks the plan read and the run's lookalike work files, releases
 *    the lease and looks for marks written meanwhile: if there are, the run takes the lease again and
 *    the state machine goes back to step 1 for another round (`marked`), at most MAX_ROUNDS in all.
 *
 * Every step is idempotent: a shard computed again writes the same lists from the same snapshot. A
 * worker that dies after writing part of its shard is retried by the state machine; a run that fails
 * for good leaves its marks, and its lease expires, so the next completion (or the full job) takes the
 * lease and recomputes what they name.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { StorageAccess } from '../storage/access';
import type { Key } from '../storage/keys';
import * as partitions from '../storage/partitions';
import { deleteMarks, getMarks, hasMarks, type BlockMember } from './block-store';
import { packFeatures, unpackFeatures } from './features';
import { keepingLease, releaseAndRecheck, takeLease, type Clock, type LeaseHeld } from './lease';
import { planAll, planMarked, writeLists, type SectionWork } from './recompute';
import { SectionIndex } from './section-index';
import type { Country } from '../companies/identifiers';

/**
 * The most subjects one worker computes. A worker's time is its section's load (reading the snapshot
 * and indexing it) plus, per subject, the list's CPU (the bounded search of lib/lookalikes/compute.ts)
 * and its write (one list and at most one floor item, 25 items a BatchWriteItem, 8 in flight). Sized so
 * that at ten times the measured cost per subject (for a larger section, a skewed one or a slower
 * worker) a shard takes a small part of a Lambda's 15 minutes: the margin absorbs throttled writes and
 * retries. The figures are in docs/benchmarks.md.
 */
export const SHARD_SUBJECTS = 50_000;

/**
 * A worker's share: the subjects `from` up to (not including) `to` of one section's plan — of its
 * listed subjects when `listed`, else of its members.
 */
export interface LookalikeShard {
  section: string;
  listed: boolean;
  from: number;
  to: number;
}

export interface LookalikePlan extends Partial<LeaseHeld> {
  /** The run's round (1, then one more per re-check that found marks, `finishLookalikes`). */
  round: number;
  /**
   * Whether the run holds the lease and planned (its shards, none or more, then the finish follow).
   * False when nothing was marked, or another recompute holds the lease (`heldBy`, `heldUntil`).
   */
  planned: boolean;
  /** Not planned, and a full job that should wait for the lease and try again. */
  waitForLease: boolean;
  shards: LookalikeShard[];
  /** Sections written as snapshots. */
  sections: number;
  /** Lists to recompute, over every shard. */
  subjects: number;
  /** Marks read (the import batches whose changes are recomputed). */
  marks: number;
}

/** What the finish answers: the marks it deleted, and whether the run goes round again. */
export interface LookalikeFinish {
  marks: number;
  /** The run holds the lease again: another round of planning (`marked`) follows. */
  again: boolean;
  /** The round the next plan is (this one's + 1 when `again`). */
  round: number;
  /** Marks are left for the next recompute: the run reached its last round. */
  marksLeft: boolean;
}

/** The bucket as the fan-out uses it (lib/import/bucket.ts on S3); `dir` below is a key prefix in it. */
export interface WorkFiles {
  read(key: string): Promise<{ body: Readable }>;
  write(key: string, body: string | Uint8Array): Promise<void>;
  list(prefix: string): Promise<string[]>;
  remove(keys: string[]): Promise<void>;
}

/**
 * What the planning step touches: the lease (taken or renewed by a conditional put), the marks and the
 * blocks (read); it writes no list.
 */
export const lookalikePlanStorage = {
  Query: [partitions.lookalikeBlock, partitions.lookalikeMarks],
  PutItem: [partitions.lookalikeLease],
} as const satisfies StorageAccess;

/** What a shard's worker touches: it renews the lease, writes its subjects' lists and the floors that moved. */
export const lookalikeShardStorage = {
  BatchWriteItem: [partitions.company, partitions.lookalikeBlock],
  PutItem: [partitions.lookalikeLease],
} as const satisfies StorageAccess;

/**
 * What the last step touches: it deletes the marks the plan read, releases the lease (a conditional
 * delete), looks for marks left (one Query a shard) and then may take the lease again.
 */
export const lookalikeFinishStorage = {
  BatchWriteItem: [partitions.lookalikeMarks],
  Query: [partitions.lookalikeMarks],
  PutItem: [partitions.lookalikeLease],
  DeleteItem: [partitions.lookalikeLease],
} as const satisfies StorageAccess;

/**
 * Who runs a step: the lease holder (the state machine's run) and its clock (the tests turn it forward
 * to expire a lease).
 */
export interface LeaseRun {
  holder: string;
  clock?: Clock;
}

const snapshotKey = (dir: string, section: string) => `${dir}sections/${section}.tsv`;
const subjectsKey = (dir: string, section: string) => `${dir}sections/${section}.subjects`;
const marksKey = (dir: string) => `${dir}marks.json`;

/**
 * Step 1: the sections to recompute as snapshots and shards. `marked`: the completion's; `all`: the full
 * job's, in its first round (a later round takes the marks left, whatever the mode).
 */
export async function planLookalikes(
  files: WorkFiles,
  input: LeaseRun & { dir: string; mode: 'marked' | 'all'; round?: number; shardSubjects?: number },
): Promise<LookalikePlan> {
  const { holder, clock, round = 1 } = input;
  const mode = round > 1 ? 'marked' : input.mode;
  const shardSubjects = input.shardSubjects ?? SHARD_SUBJECTS;
  const plan: LookalikePlan = {
    round,
    planned: false,
    waitForLease: false,
    shards: [],
    sections: 0,
    subjects: 0,
    marks: 0,
  };
  // Nothing marked, nothing to do: no lease taken. (A later round holds it already: it plans, even none.)
  if (mode === 'marked' && round === 1 && !(await hasMarks())) return plan;
  const held = await takeLease(holder, clock);
  if (held) return { ...plan, ...held, waitForLease: mode === 'all' };
  return keepingLease(
    holder,
    async () => {
      // Marks read before the blocks: whatever is marked later is the finish's re-check's.
      const marks = await getMarks();
      plan.planned = true;
      plan.marks = marks.length;
      const onSection = async ({ section, members, subjects }: SectionWork) => {
        if (subjects.length === 0) return;
        await files.write(snapshotKey(input.dir, section), snapshotOf(members));
        if (subjects !== 'all') await files.write(subjectsKey(input.dir, section), subjects.join('\n'));
        const count = subjects === 'all' ? members.length : subjects.length;
        plan.shards.push(...shardsOf(section, subjects !== 'all', count, shardSubjects));
        plan.sections++;
        plan.subjects += count;
      };
      if (mode === 'all') await planAll(onSection);
      else if (marks.length > 0) await planMarked(marks, onSection);
      // Last: a plan retried after a failure above reads the marks again, and they are all still there.
      await files.write(marksKey(input.dir), JSON.stringify(marks.map((m) => m.key)));
      plan.shards.sort((a, b) => (a.section < b.section ? -1 : a.section > b.section ? 1 : a.from - b.from));
      return plan;
    },
    clock,
  );
}

/**
 * Step 2: one shard's lists, from its section's snapshot, under the run's lease (a worker whose lease
 * another run took writes nothing). Answers the number of lists written.
 */
export async function computeLookalikeShard(
  files: WorkFiles,
  { dir, shard, holder, clock }: LeaseRun & { dir: string; shard: LookalikeShard },
): Promise<number> {
  return keepingLease(
    holder,
    async () => {
      const members = await readSnapshot(files, snapshotKey(dir, shard.section));
      const mine = shard.listed
        ? (await readLines(files, subjectsKey(dir, shard.section))).slice(shard.from, shard.to).map(Number)
        : Array.from({ length: shard.to - shard.from }, (_, i) => shard.from + i);
      // The members only, as the one-process run's lists are: probes belong to no group of the index.
      const index = new SectionIndex(members.map((m) => m.features));
      return writeLists(members, index, mine);
    },
    clock,
  );
}

/**
 * Step 3: the marks the plan read are done; its work files go; the lease is released and the marks
 * re-checked (lib/lookalikes/lease.ts `releaseAndRecheck`): `again` when the run took it back for
 * another round.
 */
export async function finishLookalikes(
  files: WorkFiles,
  { dir, holder, clock, round = 1 }: LeaseRun & { dir: string; round?: number },
): Promise<LookalikeFinish> {
  const work = await files.list(dir);
  let deleted = 0;
  // A retry after the files below went: the marks went before them.
  if (work.includes(marksKey(dir))) {
    const keys = JSON.parse((await readLines(files, marksKey(dir))).join('\n')) as Key[];
    await deleteMarks(keys.map((key) => ({ key })));
    // The snapshots first, the marks' list last: a retry of this step still finds it.
    await files.remove(work.filter((key) => key !== marksKey(dir)));
    await files.remove([marksKey(dir)]);
    deleted = keys.length;
  }
  const { again, marksLeft } = await releaseAndRecheck(holder, round, clock);
  return { marks: deleted, again, round: again ? round + 1 : round, marksLeft };
}

/** Ranges of at most `size` of `count` subjects, as even as can be. */
export function shardsOf(section: string, listed: boolean, count: number, size: number): LookalikeShard[] {
  const n = Math.ceil(count / size);
  const edge = (i: number) => Math.floor((i * count) / n);
  return Array.from({ length: n }, (_, i) => ({ section, listed, from: edge(i), to: edge(i + 1) }));
}

/** One line per member, in block order: country, number, floor, the features as the block stores them. */
function snapshotOf(members: readonly BlockMember[]): Uint8Array {
  // In chunks, never one string: a section of millions is hundreds of MB.
  const chunks: Buffer[] = [];
  let text = '';
  for (const { features, floor } of members) {
    text += `${features.country}\t${features.companyNumber}\t${floor}\t${packFeatures(features)}\n`;
    if (text.length >= 1 << 20) {
      chunks.push(Buffer.from(text));
      text = '';
    }
  }
  chunks.push(Buffer.from(text));
  return Buffer.concat(chunks);
}

async function readSnapshot(files: WorkFiles, key: string): Promise<BlockMember[]> {
  const members: BlockMember[] = [];
  for await (const line of lineReader((await files.read(key)).body)) {
    if (line === '') continue;
    const [country, companyNumber, floor, packed] = line.split('\t') as [Country, string, string, string];
    members.push({ features: unpackFeatures({ country, companyNumber }, packed), floor: Number(floor) });
  }
  return members;
}

async function readLines(files: WorkFiles, key: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of lineReader((await files.read(key)).body)) if (line !== '') lines.push(line);
  return lines;
}

const lineReader = (body: Readable) => createInterface({ input: body, crlfDelay: Infinity });
