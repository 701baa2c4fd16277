/**
 * The smart-list worker (contract §7.6): the rest of the evaluations a create or filter change left
 * over (smart-bounds.ts), noted as jobs (store/smart-jobs.ts). Scheduled in the stack every minute;
 * the local stage runs it every second.
 *
 * Turns. A run takes turns until no job is free or its time is up. Each turn is one job's bounded
 * work, under that job's lease: at most TURN_COMPANIES of its list's NEW members
 * checked for leaving, or as many filter profiles read for entering (the candidates the request chose,
 * smart-candidates.ts), from where its last turn stopped (the cursor), then the cursor moves on and the lease is released. The next turn goes to the account
 * whose last turn is the oldest (its jobs' latest `turnAt`; never: first), so accounts take turns
 * whatever the size of their lists: a small list of one account waits at most one turn of another's
 * huge one. Two workers (the stack runs two at most) never take the same job: the lease is a
 * conditional write, and a worker that crashed leaves a lease that expires (LEASE_MS).
 *
 * Reads. A turn reads its slice once: nothing is read again on the next turn, and no list's members
 * are read whole. Companies that change meanwhile are the import's: it records every changed company
 * whose match with a smart list flips (store/smart-flips.ts) and applies those flips to the list when
 * its run ends, behind or ahead of the cursor alike (a company entered twice counts once). A job ends
 * when its cursor is through: the list's hold of its account's bound gives way to its companies, and
 * the job goes, in one transaction (store/smart-holds.ts `settleHold`).
 */
import type { StorageAccess } from '../storage/access';
import * as keys from '../storage/keys';
import * as partitions from '../storage/partitions';
import { smartListConfig } from '../config';
import { evaluateSmartLists, type Candidate } from './smart';
import { countriesOf } from './filters';
import { matching, newMembersAsCandidates } from './smart-bounds';
import { getList } from './store/lists';
import { readNewMembersFrom } from './store/members';
import { everyProfile, readSweep } from './store/profiles';
import { settleHold } from './store/smart-holds';
import {
  dropJob,
  endTurn,
  getJobs,
  heldCondition,
  takeLease,
  type EvaluationJob,
  type HeldJob,
  type JobCursor,
} from './store/smart-jobs';

/** What the worker touches: its jobs, the lists, the filter profiles, and what an evaluation writes. */
export const evaluateSmartListsStorage = {
  GetItem: [partitions.accountLists],
  BatchGetItem: [partitions.accountLists, partitions.listMembers, partitions.filterProfiles],
  Query: [
    partitions.smartListEvaluations,
    partitions.filterProfiles,
    partitions.listOrder,
    partitions.accountLists,
  ],
  UpdateItem: [partitions.accountLists, partitions.smartListEvaluations],
  PutItem: [partitions.accountLists, partitions.listMembers, partitions.listOrder],
  DeleteItem: [
    partitions.smartListEvaluations,
    partitions.accountLists,
    partitions.listMembers,
    partitions.listOrder,
  ],
  BatchWriteItem: [partitions.listMembers, partitions.listOrder],
} as const satisfies StorageAccess;

/** Filter profiles (or NEW members) one turn reads: a turn's work, whatever its list's size. */
export const TURN_COMPANIES = 10_000;
/** How long a turn's job is its worker's alone: far more than a turn takes, the wait after a crash. */
export const LEASE_MS = 5 * 60_000;
/** How long a job noted with nothing left waits for its request to end it (a request's time, and more). */
const NOTED_GRACE_MS = 60_000;
/** A run takes no new turn after this long (the next run starts a minute after this one). */
const RUN_BUDGET_MS = 20_000;

export interface WorkerOptions {
  /** At most this many turns (tests take one at a time). */
  turns?: number;
  /** No new turn after this long (ms). */
  budgetMs?: number;
}

/** One run of the worker: turns while jobs are free. `lists`: the lists it evaluated; `entered`: companies. */
export async function evaluateDeferredSmartLists({
  turns = Number.POSITIVE_INFINITY,
  budgetMs = RUN_BUDGET_MS,
}: WorkerOptions = {}): Promise<{ lists: number; entered: number }> {
  const started = Date.now();
  const lists = new Set<string>();
  let entered = 0;
  for (let turn = 0; turn < turns && Date.now() - started < budgetMs; turn++) {
    const job = await nextTurn();
    if (!job) break;
    lists.add(`${job.accountId}#${job.listId}`);
    entered += await takeTurn(job);
  }
  return { lists: lists.size, entered };
}

/**
 * The job whose turn it is, its lease taken: of the free jobs, one of the account whose last turn is
 * the oldest, its own least recently turned first. Null when none is free (or all were taken meanwhile).
 */
async function nextTurn(): Promise<HeldJob | null> {
  const jobs = await getJobs();
  const lastTurn = new Map<string, number>();
  for (const job of jobs) lastTurn.set(job.accountId, Math.max(lastTurn.get(job.accountId) ?? 0, job.turnAt));
  const now = Date.now();
  const order = (job: EvaluationJob) => [lastTurn.get(job.accountId)!, job.turnAt, job.notedAt, job.listId];
  const free = jobs
    // A job with nothing left is its request's to end, unless that request died (NOTED_GRACE_MS ago).
    .filter((job) => job.leaseUntil < now && (hasWork(job) || now - job.notedAt > NOTED_GRACE_MS))
    .sort((a, b) => {
      const [x, y] = [order(a), order(b)];
      return x.reduce((by, n, i) => by || n - y[i]!, 0) || a.accountId.localeCompare(b.accountId);
    });
  for (const job of free) {
    const held = await takeLease(job, LEASE_MS);
    if (held) return held;
  }
  return null;
}

const hasWork = ({ cursor }: EvaluationJob) => cursor.leave !== undefined || cursor.enter !== undefined;

/** One turn of a held job (see the module comment). Returns how many companies entered. */
async function takeTurn(job: HeldJob): Promise<number> {
  const list = await getList(job.accountId, job.listId, { consistent: true });
  if (!list?.filters || JSON.stringify(list.filters) !== job.filters) {
    // The list is gone, or evaluates newer filters (their change noted its own job).
    await dropJob(job);
    return 0;
  }
  // Still being created: its first members are not written yet; its turn comes again.
  if (list.pending) return (await endTurn(job, job.cursor), 0);
  const filters = list.filters;
  const limit = Math.floor(smartListConfig.turnCompanies() ?? TURN_COMPANIES);
  let cursor: JobCursor = job.cursor;
  let candidates: Candidate[] = [];
  if (cursor.leave) {
    const { refs, next } = await readNewMembersFrom(job.accountId, job.listId, cursor.leave.key, limit);
    candidates = await newMembersAsCandidates(refs);
    cursor = { ...(next ? { leave: { key: next } } : {}), ...(cursor.enter ? { enter: cursor.enter } : {}) };
  } else if (cursor.enter) {
    const { via } = cursor.enter;
    const { profiles, next } = await readSweep(via ?? everyProfile(countriesOf(filters)), cursor.enter, {
      limit,
      filters,
    });
    candidates = matching(filters, profiles);
    cursor = next ? { enter: { ...next, ...(via ? { via } : {}) } } : {};
  }
  const { entered } = await evaluateSmartLists([{ list: { ...list, filters }, candidates }], new Date());
  if (cursor.leave || cursor.enter) await endTurn(job, cursor);
  else
    await settleHold(job.accountId, job.listId, job.filters, {
      key: keys.smartListEvaluation(job.accountId, job.listId),
      condition: heldCondition(job),
    });
  return entered;
}
