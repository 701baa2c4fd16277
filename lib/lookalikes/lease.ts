/**
 * One lookalike recompute at a time per table (contract §6.3). A recompute snapshots a section's members
 * when it plans and writes the lists computed from them later; two recomputes at once could write in
 * the other order than they read, and the older snapshot's lists would stay (a full job planned before
 * an import's completion, or two imports' completions). So every recompute — the import's completion,
 * the full job, in one process or as the fan-out's steps (lib/lookalikes/recompute.ts, fan-out.ts) —
 * holds this lease from before its plan reads the marks until after its lists are written (its
 * mechanics are every lease's, lib/storage/lease.ts):
 *
 * - taken by a conditional put: free, expired, or already this run's. A step of the state machines that
 *   finds it held does not plan: its marks stay stored, and the holder takes them (below). A recompute
 *   in one process (the local import's completion, `npm run lookalikes`; lib/lookalikes/recompute.ts)
 *   waits for it instead, trying again every second, so its lists are written before it returns
 *   (contract §6.3); it stops waiting early when the holder's re-check took its marks.
 * - renewed while a step runs (`keepingLease`: at its start and every minute), so it expires
 *   LEASE_MS after the run's last sign of life: a run that dies holding it blocks the others for at most
 *   that long, and the next recompute then takes the lease and the dead run's marks (never deleted).
 *   Sooner for a one-process holder: its name (`processHolder`) carries its host and process id, and a
 *   one-process waiter on that host that finds the process gone takes the lease over at once
 *   (`takeOverLease`, conditional on that holder: of two waiters one wins). Holders of other hosts, and
 *   the state machines' runs, are only ever taken over once expired. A CLI stopped by Ctrl-C or SIGTERM
 *   frees the leases its process holds before it exits (`releaseLeasesHeldHere`).
 * - released, then the marks checked (`releaseAndRecheck`): any mark still stored was written after
 *   this run's plan read them, by an import whose recompute found the lease held. The run takes the lease
 *   again and recomputes them, at most MAX_ROUNDS rounds in all. Released first, checked after: a mark
 *   written between a check and a release would belong to nobody (its recompute found the lease held,
 *   the holder saw no mark); checked after the release, every mark is seen by the holder or its own
 *   writer's recompute takes the lease, and if another run took it in between, that run's plan reads it.
 */
import * as lease from '../storage/lease';
import type { Clock, LeaseHeld } from '../storage/lease';
import * as keys from '../storage/keys';
import { hasMarks } from './block-store';

export {
  isDeadLocalHolder,
  LEASE_MS,
  processHolder,
  releaseLeasesHeldHere,
  type Clock,
  type LeaseHeld,
  type LeaseWait,
} from '../storage/lease';

/** The table's lookalike lease (lib/storage/lease.ts has its mechanics). */
export const LOOKALIKE_LEASE: lease.Lease = {
  key: keys.lookalikeLease,
  entity: 'LookalikeLease',
  name: 'lookalike',
  runOf: (holder) => `the lookalike recompute of ${holder}`,
  run: 'recompute',
  lostError: 'LookalikeLeaseLost',
};

/**
 * Rounds of one run: its first, then one per re-check that found marks. Each further round only takes
 * what imports marked while the one before ran; past this bound a steady stream of imports is left to
 * the next completion or the weekly job, so one run never goes on for ever.
 */
export const MAX_ROUNDS = 5;

/** Takes the lease for `holder` if it is free, expired or already its own; else says who holds it. */
export const takeLease = (holder: string, clock: Clock = Date.now): Promise<LeaseHeld | undefined> =>
  lease.takeLease(LOOKALIKE_LEASE, holder, clock);

/** Pushes the expiry of `holder`'s lease on; false when it is no longer its own. */
export const renewLease = (holder: string, clock: Clock = Date.now): Promise<boolean> =>
  lease.renewLease(LOOKALIKE_LEASE, holder, clock);

/** Frees the lease if `holder` still has it (a retried step may already have freed it). */
export const releaseLease = (holder: string): Promise<void> => lease.releaseLease(LOOKALIKE_LEASE, holder);

/** Takes the lease from `dead`, a holder whose process is gone; false when `dead` no longer holds it. */
export const takeOverLease = (holder: string, dead: string, clock: Clock = Date.now): Promise<boolean> =>
  lease.takeOverLease(LOOKALIKE_LEASE, holder, dead, clock);

/** Runs `work`, a one-process recompute of `holder`, counted among this process's holders while it runs. */
export const holdingHere = <T>(holder: string, work: () => Promise<T>): Promise<T> =>
  lease.holdingHere(LOOKALIKE_LEASE, holder, work);

/**
 * Runs one step of `holder`'s recompute with its lease renewed: at the start (a step whose lease
 * another run took writes nothing: lib/storage/lease.ts LeaseLostError, named LookalikeLeaseLost) and
 * every minute while `work` runs.
 */
export const keepingLease = <T>(
  holder: string,
  work: () => Promise<T>,
  clock: Clock = Date.now,
): Promise<T> => lease.keepingLease(LOOKALIKE_LEASE, holder, work, clock);

export interface Recheck {
  /** The run took the lease again for another round (mode `marked`). */
  again: boolean;
  /** Marks were left for the next recompute: the run reached MAX_ROUNDS. */
  marksLeft: boolean;
}

/**
 * The end of round `round` of `holder`'s recompute, its lists written and the marks it read deleted:
 * releases the lease, then looks for marks (written after its plan read them); if some are there, takes
 * the lease again for another round, unless this was the last one or another recompute took the lease
 * meanwhile (then that one's plan reads them).
 */
export async function releaseAndRecheck(
  holder: string,
  round: number,
  clock: Clock = Date.now,
): Promise<Recheck> {
  await releaseLease(holder);
  if (!(await hasMarks())) return { again: false, marksLeft: false };
  if (round >= MAX_ROUNDS) return { again: false, marksLeft: true };
  return { again: (await takeLease(holder, clock)) === undefined, marksLeft: false };
}
