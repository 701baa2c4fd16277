/**
 * One lookalike recompute at a time per table (contract §6.3). A recompute snapshots a section's members
 * when it plans and writes the lists computed from them later; two recomputes at once could write in
 * the other order than they read, and the older snapshot's lists would stay (a full job planned before
 * an import's completion, or two imports' completions). So every recompute — the import's completion,
 * the full job, in one process or as the fan-out's steps (lib/lookalikes/recompute.ts, fan-out.ts) —
 * holds this lease from before its plan reads the marks until after its lists are written:
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
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { conditionHeld, dynamodb, isConditionFailed, send, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { hasMarks } from './block-store';

/**
 * How long the lease outlives its holder's last renewal. Every step renews it at its start and each
 * RENEW_EVERY_MS while it runs; between two steps the state machine waits at most a retry's 40 s. 15
 * minutes is many renewals lost in a row, and a dead run's marks wait no longer than that.
 */
export const LEASE_MS = 15 * 60_000;
const RENEW_EVERY_MS = 60_000;
/**
 * Rounds of one run: its first, then one per re-check that found marks. Each further round only takes
 * what imports marked while the one before ran; past this bound a steady stream of imports is left to
 * the next completion or the weekly job, so one run never goes on for ever.
 */
export const MAX_ROUNDS = 5;

/** Milliseconds since the epoch: the tests turn it forward to expire a lease without waiting. */
export type Clock = () => number;

/** Who holds the lease when another recompute wanted it. */
export interface LeaseHeld {
  heldBy: string;
  /** When it expires unless renewed (ISO 8601). */
  heldUntil: string;
}

/** The run's lease renewal failed: another run took it (this one stalled past LEASE_MS). */
export class LeaseLostError extends Error {
  override readonly name = 'LookalikeLeaseLost';
  constructor(holder: string) {
    super(`the lookalike lease of ${holder} was taken over by another recompute`);
  }
}

const leaseItem = (holder: string, now: number) => ({
  ...keys.lookalikeLease(),
  entity: 'LookalikeLease',
  holder,
  expiresAt: now + LEASE_MS,
  expires: new Date(now + LEASE_MS).toISOString(),
});

/** Takes the lease for `holder` if it is free, expired or already its own; else says who holds it. */
export async function takeLease(holder: string, clock: Clock = Date.now): Promise<LeaseHeld | undefined> {
  const now = clock();
  try {
    await send(() =>
      dynamodb().send(
        new PutCommand({
          TableName: tableName(),
          Item: leaseItem(holder, now),
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now OR holder = :holder',
          ExpressionAttributeValues: { ':now': now, ':holder': holder },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    return undefined;
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    const held = heldItem(error);
    return { heldBy: String(held['holder']), heldUntil: String(held['expires']) };
  }
}

/** The item a failed condition returned: the document client leaves it in DynamoDB's JSON. */
function heldItem(error: unknown): Record<string, unknown> {
  const item = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
  return item ? unmarshall(item) : {};
}

/** Pushes the expiry of `holder`'s lease on; false when it is no longer its own. */
export function renewLease(holder: string, clock: Clock = Date.now): Promise<boolean> {
  return putLeaseHeldBy(holder, holder, clock);
}

/** Writes the lease as `holder`'s, if `current` holds it now; false when it does not. */
function putLeaseHeldBy(holder: string, current: string, clock: Clock): Promise<boolean> {
  return conditionHeld(() =>
    dynamodb().send(
      new PutCommand({
        TableName: tableName(),
        Item: leaseItem(holder, clock()),
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':holder': current },
      }),
    ),
  );
}

/** Frees the lease if `holder` still has it (a retried step may already have freed it). */
export async function releaseLease(holder: string): Promise<void> {
  await conditionHeld(() =>
    dynamodb().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.lookalikeLease(),
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':holder': holder },
      }),
    ),
  );
}

/**
 * Takes the lease from `dead`, a holder whose process is gone (`isDeadLocalHolder`): a conditional put on
 * that exact holder, so of two waiters that found it dead only one gets it. False when `dead` no longer
 * holds it (released, or taken by another).
 */
export function takeOverLease(holder: string, dead: string, clock: Clock = Date.now): Promise<boolean> {
  return putLeaseHeldBy(holder, dead, clock);
}

/**
 * A fresh holder name for a recompute in one process: `process-<host>-<pid>-<uuid>` (the UUID tells two
 * runs of one process apart). The state machines' holders are their run names, never of this form.
 */
export function processHolder(): string {
  return `process-${hostname()}-${process.pid}-${randomUUID()}`;
}

const PROCESS_HOLDER_TAIL = /^(\d+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Whether `holder` is a one-process recompute of this host (`processHolder`) whose process no longer
 * exists. Any other holder (another host's, a state machine's run, a name of another form) and any
 * process that exists, or that this one may not signal, counts as alive.
 */
export function isDeadLocalHolder(holder: string): boolean {
  const prefix = `process-${hostname()}-`;
  if (!holder.startsWith(prefix)) return false;
  const pid = Number(PROCESS_HOLDER_TAIL.exec(holder.slice(prefix.length))?.[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The holders of the one-process recomputes under way in this process. */
const heldHere = new Set<string>();

/** Runs `work`, a one-process recompute of `holder`, counted among this process's holders while it runs. */
export async function holdingHere<T>(holder: string, work: () => Promise<T>): Promise<T> {
  heldHere.add(holder);
  try {
    return await work();
  } finally {
    heldHere.delete(holder);
  }
}

/**
 * Frees the lease if a recompute of this process holds it (`holdingHere`): what a CLI stopped by a
 * signal does before it exits, so the next run need not wait for the expiry. Its marks stay stored.
 */
export async function releaseLeasesHeldHere(): Promise<void> {
  await Promise.all([...heldHere].map(releaseLease));
}

/**
 * Runs one step of `holder`'s recompute with its lease renewed: at the start (a step whose lease
 * another run took writes nothing: LeaseLostError) and every RENEW_EVERY_MS while `work` runs.
 */
export async function keepingLease<T>(
  holder: string,
  work: () => Promise<T>,
  clock: Clock = Date.now,
): Promise<T> {
  if (!(await renewLease(holder, clock))) throw new LeaseLostError(holder);
  let lost = false;
  const timer = setInterval(() => {
    renewLease(holder, clock).then(
      (held) => {
        if (!held) lost = true;
      },
      // Storage trouble: the next renewal tries again, well inside LEASE_MS.
      () => undefined,
    );
  }, RENEW_EVERY_MS);
  timer.unref();
  try {
    const result = await work();
    if (lost) throw new LeaseLostError(holder);
    return result;
  } finally {
    clearInterval(timer);
  }
}

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
