/**
 * A lease: one run at a time of some work per table, held by a lease item of its own (`Lease.key`).
 * The lookalike recompute holds one (lib/lookalikes/lease.ts), the import another (lib/import/lease.ts).
 *
 * - Taken by a conditional put: free, expired, or already this holder's (`takeLease`).
 * - Renewed while a step runs (`keepingLease`: at its start and every RENEW_EVERY_MS), so it expires
 *   LEASE_MS after its holder's last sign of life: a run that dies holding it blocks the others for at
 *   most that long.
 * - Sooner for a one-process holder: its name (`processHolder`) carries its host and process id, and a
 *   one-process waiter on that host that finds the process gone takes the lease over at once
 *   (`takeOverLease`, conditional on that holder: of two waiters one wins). Holders of other hosts, and
 *   the state machines' runs, are only ever taken over once expired.
 * - A CLI stopped by Ctrl-C or SIGTERM frees the leases its process holds (`holdingHere`) before it
 *   exits (`releaseLeasesHeldHere`).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { conditionHeld, dynamodb, isConditionFailed, send, tableName } from './client';
import type { Key } from './keys';

/**
 * How long a lease outlives its holder's last renewal. Every step renews it at its start and each
 * RENEW_EVERY_MS while it runs; between two steps a state machine waits at most a retry's 40 s. 15
 * minutes is many renewals lost in a row.
 */
export const LEASE_MS = 15 * 60_000;
const RENEW_EVERY_MS = 60_000;
/** How long a one-process waiter waits between two tries of a lease held by another. */
export const POLL_MS = 1_000;

/** Milliseconds since the epoch: the tests turn it forward to expire a lease without waiting. */
export type Clock = () => number;

/** One lease of the table. */
export interface Lease {
  /** Its item (lib/storage/keys.ts). */
  key: () => Key;
  /** The item's `entity`. */
  entity: string;
  /** In messages: "the <name> lease". */
  name: string;
  /** In messages: what a holder runs ("the lookalike recompute of <holder>", "import <holder>"). */
  runOf: (holder: string) => string;
  /** In messages: one run ("recompute", "import"). */
  run: string;
  /** The name of the error a holder whose lease was taken over fails with. */
  lostError: string;
}

/** Who holds a lease when another run wanted it. */
export interface LeaseHeld {
  heldBy: string;
  /** When it expires unless renewed (ISO 8601). */
  heldUntil: string;
}

/** A run's lease renewal failed: another run took it (this one stalled past LEASE_MS). */
export class LeaseLostError extends Error {
  constructor(lease: Lease, holder: string) {
    super(`the ${lease.name} lease of ${holder} was taken over by another ${lease.run}`);
    this.name = lease.lostError;
  }
}

const leaseItem = (lease: Lease, holder: string, now: number) => ({
  ...lease.key(),
  entity: lease.entity,
  holder,
  expiresAt: now + LEASE_MS,
  expires: new Date(now + LEASE_MS).toISOString(),
});

/** Takes `lease` for `holder` if it is free, expired or already its own; else says who holds it. */
export async function takeLease(
  lease: Lease,
  holder: string,
  clock: Clock = Date.now,
): Promise<LeaseHeld | undefined> {
  const now = clock();
  try {
    await send(() =>
      dynamodb().send(
        new PutCommand({
          TableName: tableName(),
          Item: leaseItem(lease, holder, now),
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
export function renewLease(lease: Lease, holder: string, clock: Clock = Date.now): Promise<boolean> {
  return putLeaseHeldBy(lease, holder, holder, clock);
}

/** Writes the lease as `holder`'s, if `current` holds it now; false when it does not. */
function putLeaseHeldBy(lease: Lease, holder: string, current: string, clock: Clock): Promise<boolean> {
  return conditionHeld(() =>
    dynamodb().send(
      new PutCommand({
        TableName: tableName(),
        Item: leaseItem(lease, holder, clock()),
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':holder': current },
      }),
    ),
  );
}

/** Frees the lease if `holder` still has it (a retried step may already have freed it). */
export async function releaseLease(lease: Lease, holder: string): Promise<void> {
  await conditionHeld(() =>
    dynamodb().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: lease.key(),
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
export function takeOverLease(
  lease: Lease,
  holder: string,
  dead: string,
  clock: Clock = Date.now,
): Promise<boolean> {
  return putLeaseHeldBy(lease, holder, dead, clock);
}

/**
 * A fresh holder name for a run in one process: `process-<host>-<pid>-<uuid>` (the UUID tells two runs
 * of one process apart). The state machines' holders are their run names, never of this form.
 */
export function processHolder(): string {
  return `process-${hostname()}-${process.pid}-${randomUUID()}`;
}

const PROCESS_HOLDER_TAIL = /^(\d+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Whether `holder` is a one-process run of this host (`processHolder`) whose process no longer exists.
 * Any other holder (another host's, a state machine's run, a name of another form) and any process that
 * exists, or that this one may not signal, counts as alive.
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

/** The leases of the one-process runs under way in this process, with their holders. */
const heldHere = new Set<{ lease: Lease; holder: string }>();

/** Runs `work`, a one-process run of `holder`, counted among this process's holders of `lease` while it runs. */
export async function holdingHere<T>(lease: Lease, holder: string, work: () => Promise<T>): Promise<T> {
  const held = { lease, holder };
  heldHere.add(held);
  try {
    return await work();
  } finally {
    heldHere.delete(held);
  }
}

/**
 * Frees every lease a run of this process holds (`holdingHere`): what a CLI stopped by a signal does
 * before it exits, so the next run need not wait for the expiry.
 */
export async function releaseLeasesHeldHere(): Promise<void> {
  await Promise.all([...heldHere].map(({ lease, holder }) => releaseLease(lease, holder)));
}

/**
 * What a step knows of its lease while it runs: when it was last known held (by its clock: the start of
 * the last renewal that succeeded, or of the take), and whether a renewal found it taken by another.
 */
export interface LeaseHold {
  heldAt: number;
  lost: boolean;
}

/**
 * How long after the lease was last known held a step still writes without renewing it first
 * (`ensureLeaseHeld`): two renewals' time, far inside LEASE_MS, so a step that stalled longer (its
 * renewals could not run) asks again before it writes, and stops if another run took the lease over.
 */
export const HELD_FRESH_MS = 2 * RENEW_EVERY_MS;

/**
 * Runs one step of `holder`'s run with its lease renewed: at the start (a step whose lease another run
 * took writes nothing: LeaseLostError), unless `justTaken` (the caller took it this moment), and every
 * RENEW_EVERY_MS while `work` runs. `work` gets the step's `LeaseHold`, for `ensureLeaseHeld` before
 * each of its writes.
 */
export async function keepingLease<T>(
  lease: Lease,
  holder: string,
  work: (hold: LeaseHold) => Promise<T>,
  clock: Clock = Date.now,
  justTaken = false,
): Promise<T> {
  const hold: LeaseHold = { heldAt: clock(), lost: false };
  if (!justTaken && !(await renewLease(lease, holder, clock))) throw new LeaseLostError(lease, holder);
  const timer = setInterval(() => {
    renewHold(lease, holder, hold, clock).then(
      () => undefined,
      // Storage trouble: the next renewal tries again, well inside LEASE_MS.
      () => undefined,
    );
  }, RENEW_EVERY_MS);
  timer.unref();
  try {
    const result = await work(hold);
    if (hold.lost) throw new LeaseLostError(lease, holder);
    return result;
  } finally {
    clearInterval(timer);
  }
}

/** Renews the lease and notes it in `hold`: when it was held, or that it was lost. */
async function renewHold(lease: Lease, holder: string, hold: LeaseHold, clock: Clock): Promise<boolean> {
  const asked = clock();
  const held = await renewLease(lease, holder, clock);
  if (!held) hold.lost = true;
  else if (!hold.lost) hold.heldAt = Math.max(hold.heldAt, asked);
  return held && !hold.lost;
}

/**
 * The fence of a step's writes: returns when `holder` still holds the lease — known held within
 * HELD_FRESH_MS, else renewed now — and throws LeaseLostError, before anything more is written, when a
 * renewal found it taken by another run (this one stalled past LEASE_MS and another took it over).
 */
export async function ensureLeaseHeld(
  lease: Lease,
  holder: string,
  hold: LeaseHold,
  clock: Clock = Date.now,
): Promise<void> {
  if (!hold.lost && clock() - hold.heldAt < HELD_FRESH_MS) return;
  if (hold.lost || !(await renewHold(lease, holder, hold, clock))) throw new LeaseLostError(lease, holder);
}

/** How a run in one process waits for a lease held by another. */
export interface LeaseWait {
  /** Between two tries; POLL_MS by default. */
  pollMs?: number;
  /** Waits `ms`: a timer by default (the tests free or expire the lease from theirs instead). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Takes `lease` for `holder`, a run in one process, waiting while another holds it: takes it over at
 * once from a holder whose process is gone (`isDeadLocalHolder`: this host's only), or tries again
 * every `pollMs` until it is free or expired. Says once per holder whom it waits for, on stderr
 * ("waiting for <runOf(holder)> (lease until <ISO time>)"). No bound: a live holder renews the lease
 * and ends, a dead one's lease expires; Ctrl-C stops the wait. 'stopped' when `stopWaiting`, asked
 * after each wait, says the wait is no longer needed.
 */
export async function waitForLease(
  lease: Lease,
  holder: string,
  {
    clock = Date.now,
    wait = {},
    stopWaiting,
  }: { clock?: Clock; wait?: LeaseWait; stopWaiting?: () => Promise<boolean> },
): Promise<'stopped' | undefined> {
  let waitingFor: string | undefined;
  for (;;) {
    const held = await takeLease(lease, holder, clock);
    if (!held) return undefined;
    if (isDeadLocalHolder(held.heldBy) && (await takeOverLease(lease, holder, held.heldBy, clock))) {
      logInfo(`took over the ${lease.name} lease of ${held.heldBy}: its process is gone`, {
        holder,
        ...held,
      });
      return undefined;
    }
    if (held.heldBy !== waitingFor) {
      waitingFor = held.heldBy;
      logInfo(`waiting for ${lease.runOf(held.heldBy)} (lease until ${held.heldUntil})`, { holder, ...held });
    }
    await (wait.sleep ?? sleep)(wait.pollMs ?? POLL_MS);
    if (stopWaiting && (await stopWaiting())) return 'stopped';
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A JSON line on stderr (stdout is a CLI's summary). */
function logInfo(message: string, fields: Record<string, unknown>): void {
  console.error(JSON.stringify({ level: 'INFO', message, ...fields }));
}
