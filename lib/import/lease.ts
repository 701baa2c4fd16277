/**
 * One import run at a time per stage. A run reads each changed company, merges its records into it and
 * puts it whole (lib/import/changes.ts); two runs that change one company at once would each merge into
 * what they read, and the last put would drop the other's merge (a filing's period, a registry's
 * fields), with journal `before` images and derivations as stale. So every run that writes companies —
 * `npm run import` of any format, the demo data, a registry's erasures, and on AWS the import engine's
 * executions — holds the stage's import lease (the item `keys.importLease`; its mechanics are every
 * lease's, lib/storage/lease.ts) from before it reads anything until it ends:
 *
 * - A run in one process (`holdingImportLease`, around lib/import/import.ts `runImport` until its
 *   companies are written and derived, before its completions) takes it, or
 *   waits while another holds it: it says once on stderr whom it waits for and until when ("waiting
 *   for import <holder> (lease until <ISO time>)"), tries again every second, takes it over at once
 *   from a dead process of this host, or once expired. It renews it while it runs and releases it at
 *   its end, also when it fails; a CLI stopped by Ctrl-C or SIGTERM frees it before it exits.
 * - An execution of the import engine (`importRunStep`) holds it in its own name: its split takes it,
 *   each partition renews it (takes it again if it expired and nobody took it), and the step after the
 *   partitions frees it (`releaseImportRunLease`): the lookalike rounds and the completion that follow
 *   write no company (the lookalikes hold their own lease), so the next run need not wait for them. A step that finds it held by another execution fails with ImportLeaseHeld, which the
 *   state machine retries with back-off for hours (infra/import-engine.ts): the run waits its turn.
 *   A run that fails for good leaves its lease to expire LEASE_MS after its last step.
 */
import { RequestScope } from '../request-scope';
import * as keys from '../storage/keys';
import {
  ensureLeaseHeld,
  holdingHere,
  keepingLease,
  processHolder,
  releaseLease,
  takeLease,
  waitForLease,
  type Clock,
  type Lease,
  type LeaseHeld,
  type LeaseHold,
  type LeaseWait,
} from '../storage/lease';

export const IMPORT_LEASE: Lease = {
  key: keys.importLease,
  entity: 'ImportLease',
  name: 'import',
  runOf: (holder) => `import ${holder}`,
  run: 'import',
  lostError: 'ImportLeaseLost',
};

/** The name a run fails with when another took its lease over (it writes nothing more: `importLeaseHeld`). */
export const IMPORT_LEASE_LOST = IMPORT_LEASE.lostError;

/** The name the state machine retries on (infra/import-engine.ts). */
export const IMPORT_LEASE_HELD = 'ImportLeaseHeld';

/** A step of an execution found the import lease held by another run: it wrote nothing. */
export class ImportLeaseHeldError extends Error {
  override readonly name = IMPORT_LEASE_HELD;
  constructor(run: string, { heldBy, heldUntil }: LeaseHeld) {
    super(`import ${run} waits for import ${heldBy} (lease until ${heldUntil})`);
  }
}

/**
 * The import lease the code running now is under, if any: its holder, what it knows of it, its clock.
 * A `RequestScope`: a run alone in its process (a command, a Lambda invocation) keeps it in a plain
 * variable, not in an AsyncLocalStorage, whose hook on every promise cost a warm KBO re-import about a
 * tenth of its time (docs/benchmarks.md). Runs that overlap (an engine's partitions in one process,
 * imports started together) each enter their own store; a process where a run may start while another
 * runs alone (the local gateway) calls `isolateRequestScopes()` first, or the newcomer would take the
 * lone run's lease for its own.
 */
const underLease = /* @__PURE__ */ new RequestScope<{ holder: string; hold: LeaseHold; clock: Clock }>();

/** Runs `work` under `holder`'s import lease, renewed while it runs (its hold kept for the fence). */
const keepingImportLease = <T>(holder: string, work: () => Promise<T>, clock: Clock): Promise<T> =>
  keepingLease(IMPORT_LEASE, holder, (hold) => underLease.run({ holder, hold, clock }, work), clock, true);

/**
 * The fence before a run's writes: true when the code running now is under the import lease and its
 * run still holds it (`ensureLeaseHeld`: known held within two renewals, else renewed now), so no other
 * import writes the stage's companies and feeds meanwhile; false when it runs under no import lease.
 * Throws ImportLeaseLost, before anything is written, when another run took the lease over (this one
 * stalled past its expiry).
 */
export async function importLeaseHeld(): Promise<boolean> {
  const under = underLease.get();
  if (!under) return false;
  await ensureLeaseHeld(IMPORT_LEASE, under.holder, under.hold, under.clock);
  return true;
}

/** How a run in one process holds the import lease; tests name the holder and turn the clock. */
export interface ImportLeaseOptions {
  /** A fresh `processHolder()` by default. */
  holder?: string;
  clock?: Clock;
  wait?: LeaseWait;
}

/**
 * Runs `work`, an import run in one process, under the import lease: taken (waiting while another run
 * holds it), renewed while it runs, released at its end. Within a step of an execution (`importRunStep`)
 * or another run of this process that holds it already, `work` simply runs under that one.
 */
export async function holdingImportLease<T>(
  work: () => Promise<T>,
  { holder = processHolder(), clock = Date.now, wait }: ImportLeaseOptions = {},
): Promise<T> {
  if (underLease.get() !== undefined) return work();
  // Counted as this process's from before the lease is taken: a CLI stopped meanwhile frees it.
  return holdingHere(IMPORT_LEASE, holder, async () => {
    await waitForLease(IMPORT_LEASE, holder, { clock, ...(wait ? { wait } : {}) });
    try {
      return await keepingImportLease(holder, work, clock);
    } finally {
      await releaseLease(IMPORT_LEASE, holder);
    }
  });
}

/**
 * Runs `work`, a step of the import engine's execution `run`, under the import lease in the run's name:
 * taken when free, expired or already the run's (else ImportLeaseHeld, nothing done), renewed while
 * `work` runs; released after it when the step is the run's last (`release`).
 */
export async function importRunStep<T>(
  run: string,
  work: () => Promise<T>,
  { clock = Date.now, release = false }: { clock?: Clock; release?: boolean | ((result: T) => boolean) } = {},
): Promise<T> {
  const held = await takeLease(IMPORT_LEASE, run, clock);
  if (held) throw new ImportLeaseHeldError(run, held);
  const result = await keepingImportLease(run, work, clock);
  if (typeof release === 'function' ? release(result) : release) await releaseLease(IMPORT_LEASE, run);
  return result;
}

/** A split that answers nothing to import, or a wait for a pair's second file, frees the lease meanwhile. */
export const splitFreesLease = ({ status }: { status: string }): boolean =>
  status === 'done' || status === 'wait';

/** The import engine's step after the partitions: frees execution `run`'s lease (nothing when not its). */
export const releaseImportRunLease = (run: string): Promise<void> => releaseLease(IMPORT_LEASE, run);
