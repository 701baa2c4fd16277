/**
 * Delivery of events to webhook endpoints (contract §12), the same code on AWS and on the local stage:
 *
 * - `queueNewEvents` (the fan-out): for every enabled endpoint (of the accounts an import batch
 *   announced, or of all), the account's events after the endpoint's feed position become delivery
 *   jobs (attempt 1, due now), then the position moves past them, conditional on where it was read (two
 *   fan-outs never both move it; a fan-out that dies between queueing and moving queues the same events
 *   again: at least once, same `webhook-id`).
 * - `deliverAll` (a batch of jobs): each endpoint read again once (deleted or disabled: its jobs are
 *   dropped) and its valid secrets opened once, each event sent (lib/webhooks/send.ts), the attempts
 *   logged, and a failed attempt queued again per the schedule (lib/webhooks/schedule.ts) or, after the
 *   eighth, logged `failed`. An endpoint whose deliveries all failed for 5 days is disabled.
 *
 * Jobs wait in the stage's queue (lib/webhooks/queue.ts): SQS on AWS, the table on the local stage.
 */
import { forEachLimited } from '../concurrency';
import type { StorageAccess } from '../storage/access';
import * as partitions from '../storage/partitions';
import { readEvents } from '../events/store';
import { logAttempts, type Attempt } from './deliveries';
import type { DueJob } from './job';
import { enqueueDeliveries } from './queue';
import { FAILING_DISABLES_AFTER_MS, retryDelayMs } from './schedule';
import { secretBox } from './secrets';
import { sendEvent, type Sent } from './send';
import {
  getAllWebhookListings,
  getWebhook,
  getWebhooks,
  updateWebhook,
  type StoredWebhook,
  type WebhookChanges,
} from './store';
import type { UrlRules } from './url';

/**
 * The fan-out: the listing of accounts with endpoints (the sweep), each account's endpoints (one Query),
 * its feed (its last number and events), each endpoint's position moved; jobs into the table's queue on
 * the local stage.
 */
export const fanOutStorage = {
  Query: [partitions.webhookListings, partitions.webhooks, partitions.events],
  GetItem: [partitions.eventLog],
  UpdateItem: [partitions.webhooks],
  BatchWriteItem: [partitions.deliveriesDue],
} as const satisfies StorageAccess;

/**
 * A delivery: the endpoint read, the attempt logged, its health noted, a retry queued; on the local
 * stage the jobs due are read from the table's queue and taken by conditional deletes.
 */
export const deliveryStorage = {
  GetItem: [partitions.webhooks],
  UpdateItem: [partitions.webhooks],
  BatchWriteItem: [partitions.webhookDeliveries, partitions.deliveriesDue],
  Query: [partitions.deliveriesDue],
  DeleteItem: [partitions.deliveriesDue],
} as const satisfies StorageAccess;

/** Events read per endpoint per step of a fan-out (it reads again while a step comes back full). */
const EVENTS_PER_STEP = 500;
/** A fan-out run queues at most this many events per endpoint (the next run takes the rest). */
const EVENTS_PER_FAN_OUT = 10 * EVENTS_PER_STEP;
const ENDPOINTS_IN_FLIGHT = 8;

export interface DeliveryOptions {
  rules: UrlRules;
  now?: () => Date;
  /** Jobs that must wait go here (the stage's queue by default). */
  enqueue?: (jobs: DueJob[]) => Promise<void>;
}

export interface FanOutOptions {
  /** Only these accounts' endpoints (the accounts an import batch wrote events for); every one else. */
  accounts?: string[];
  enqueue?: (jobs: DueJob[]) => Promise<void>;
  nowMs?: number;
}

/** Queues the events derived since each enabled endpoint's position; answers how many jobs it queued. */
export async function queueNewEvents({
  accounts,
  enqueue = enqueueDeliveries,
  nowMs = Date.now(),
}: FanOutOptions = {}): Promise<number> {
  const endpoints: StoredWebhook[] = [];
  await forEachLimited(accounts ?? (await sweptAccounts()), ENDPOINTS_IN_FLIGHT, async (accountId) => {
    endpoints.push(...(await getWebhooks(accountId, { consistent: true })));
  });
  let queued = 0;
  await forEachLimited(endpoints, ENDPOINTS_IN_FLIGHT, async (read) => {
    for (let webhook: StoredWebhook | null = read, sent = 0; webhook?.enabled && sent < EVENTS_PER_FAN_OUT;) {
      const { accountId, id: webhookId, cursor } = webhook;
      const { events, readTo } = await readEvents(accountId, cursor, EVENTS_PER_STEP, nowMs);
      if (readTo === cursor) return;
      await enqueue(
        events.map((event) => ({
          job: { accountId, webhookId, eventId: event.id, attempt: 1, body: event.body },
          dueMs: nowMs,
        })),
      );
      // Only from where it was read: of two fan-outs of one endpoint, one moves it (the other's jobs
      // are redeliveries of the same ids; on AWS one account's fan-outs run one at a time).
      webhook = await updateWebhook(accountId, webhookId, { cursor: readTo }, { cursor });
      if (!webhook) return;
      queued += events.length;
      sent += events.length;
      if (events.length < EVENTS_PER_STEP) return;
    }
  });
  return queued;
}

/** The accounts with an endpoint (the sweep: on AWS it announces each, locally it fans them out). */
export async function sweptAccounts(): Promise<string[]> {
  return [...new Set((await getAllWebhookListings()).map((l) => l.accountId))];
}

export type Outcome = 'delivered' | 'pending' | 'failed' | 'dropped';

/** One delivery attempt (`deliverAll` of one job); answers what happened. */
export async function deliver(due: DueJob, options: DeliveryOptions): Promise<Outcome> {
  const [outcome] = await deliverAll([due], options);
  if (outcome instanceof Error) throw outcome;
  return outcome!;
}

/** Attempts made at once (each waits on a receiver, up to 10 s). */
const ATTEMPTS_IN_FLIGHT = 16;
/** Log rows and retries are written a full BatchWriteItem at a time (and what is left at the end). */
const WRITE_BATCH = 25;

/**
 * The attempts of a batch of jobs (a poll of the table's queue, an SQS batch), `ATTEMPTS_IN_FLIGHT` at
 * once; answers each job's outcome, or the error that kept it from one (the SQS consumer hands those
 * back to the queue).
 *
 * Per endpoint, once a batch: its item is read (consistent) and its secrets opened (a KMS call on AWS),
 * not once an attempt; its health (the run of failures, disabling) follows each attempt in the order
 * attempts end, so a batch decides as attempts one by one would. The attempts' log rows and retries are
 * written `WRITE_BATCH` at a time. A batch lasts seconds: an endpoint disabled or changed meanwhile by its
 * owner is seen by the next batch.
 */
export async function deliverAll(dues: DueJob[], options: DeliveryOptions): Promise<Array<Outcome | Error>> {
  const now = options.now ?? (() => new Date());
  const endpoints = new Map<string, Promise<Endpoint | null>>();
  const endpointOf = (job: DueJob['job']) => {
    const key = `${job.accountId}#${job.webhookId}`;
    let endpoint = endpoints.get(key);
    if (!endpoint) endpoints.set(key, (endpoint = readEndpoint(job.accountId, job.webhookId, now)));
    return endpoint;
  };
  const writes = new PendingWrites(options.enqueue ?? enqueueDeliveries);
  const outcomes: Array<Outcome | Error> = [];
  await forEachLimited(
    dues.map((due, index) => ({ due, index })),
    ATTEMPTS_IN_FLIGHT,
    async ({ due: { job }, index }) => {
      try {
        outcomes[index] = await attempt(job, await endpointOf(job), writes, { ...options, now });
        await writes.flush(WRITE_BATCH);
      } catch (error) {
        outcomes[index] = error instanceof Error ? error : new Error(String(error));
      }
    },
  );
  await writes.flush(1);
  return outcomes;
}

/** An endpoint as a batch sees it: its item (health fields kept current by the batch) and open secrets. */
interface Endpoint {
  webhook: StoredWebhook;
  secrets: string[];
  /** Its health's updates so far, in order. */
  health: Promise<unknown>;
}

async function readEndpoint(accountId: string, webhookId: string, now: () => Date): Promise<Endpoint | null> {
  const webhook = await getWebhook(accountId, webhookId, { consistent: true });
  if (!webhook) return null;
  const secrets = webhook.enabled ? await validSecrets(webhook, now()) : [];
  return { webhook, secrets, health: Promise.resolve() };
}

async function attempt(
  job: DueJob['job'],
  endpoint: Endpoint | null,
  writes: PendingWrites,
  { rules, now }: DeliveryOptions & { now: () => Date },
): Promise<Outcome> {
  if (!endpoint?.webhook.enabled) {
    // A retry of a disabled endpoint is dropped: its log, which said `pending`, says it ends here
    // (no request made: no status, no duration). A first attempt dropped has nothing to close.
    if (endpoint && job.attempt > 1) writes.log.push(closed(job, now().getTime()));
    return 'dropped';
  }
  const { webhook } = endpoint;
  const at = now();
  const sent = await sendEvent(
    { url: webhook.url, eventId: job.eventId, body: job.body, secrets: endpoint.secrets, at },
    rules,
  );
  // From here to the writes below nothing awaits: the endpoint's health moves attempt by attempt.
  // §12: deliveries that all failed for 5 days disable the endpoint; this attempt is then its last.
  const disables =
    !sent.delivered &&
    webhook.enabled &&
    webhook.failingSince !== undefined &&
    at.getTime() - Date.parse(webhook.failingSince) >= FAILING_DISABLES_AFTER_MS;
  const delay = sent.delivered || disables ? null : retryDelayMs(job.attempt);
  const status = sent.delivered ? 'delivered' : delay === null ? 'failed' : 'pending';
  const nextAttemptAtMs = delay === null ? null : at.getTime() + delay;
  writes.log.push({
    accountId: job.accountId,
    webhookId: job.webhookId,
    eventId: job.eventId,
    attempt: job.attempt,
    atMs: at.getTime(),
    status,
    responseStatus: sent.responseStatus,
    durationMs: sent.durationMs,
    nextAttemptAtMs,
  });
  if (nextAttemptAtMs !== null) {
    writes.retries.push({ job: { ...job, attempt: job.attempt + 1 }, dueMs: nextAttemptAtMs });
  }
  followHealth(endpoint, sent, at, disables);
  await endpoint.health;
  return status;
}

/** A batch's log rows and retries, written `WRITE_BATCH` at a time. */
class PendingWrites {
  readonly log: Attempt[] = [];
  readonly retries: DueJob[] = [];
  constructor(private readonly enqueue: (jobs: DueJob[]) => Promise<void>) {}

  /** Writes while at least `atLeast` of a kind wait (each taken before any await: none written twice). */
  async flush(atLeast: number): Promise<void> {
    while (this.log.length >= atLeast || this.retries.length >= atLeast) {
      const log = this.log.length >= atLeast ? this.log.splice(0, WRITE_BATCH) : [];
      const retries = this.retries.length >= atLeast ? this.retries.splice(0, WRITE_BATCH) : [];
      await Promise.all([log.length > 0 && logAttempts(log), retries.length > 0 && this.enqueue(retries)]);
    }
  }
}

/** The log's last word on a delivery dropped before its attempt: `failed`. */
function closed(job: DueJob['job'], atMs: number) {
  return {
    accountId: job.accountId,
    webhookId: job.webhookId,
    eventId: job.eventId,
    attempt: job.attempt,
    atMs,
    status: 'failed' as const,
    responseStatus: null,
    durationMs: null,
    nextAttemptAtMs: null,
  };
}

/** The secrets that sign now: the current one, and a rotated-out one for its 24 hours. */
async function validSecrets(webhook: StoredWebhook, at: Date): Promise<string[]> {
  const context = { accountId: webhook.accountId, webhookId: webhook.id };
  const valid = webhook.secrets.filter((s) => s.until === undefined || Date.parse(s.until) > at.getTime());
  return Promise.all(valid.map((s) => secretBox().open(s.sealed, context)));
}

/**
 * The endpoint's run of failures: started by a failed attempt, ended by a delivered one or by disabling.
 * The batch's copy changes at once (the next attempt to end decides on it); the item's updates run one
 * after another in that order (`endpoint.health`), so they land as the attempts ended.
 */
function followHealth(endpoint: Endpoint, sent: Sent, at: Date, disables: boolean): void {
  const { webhook } = endpoint;
  const { accountId, id } = webhook;
  let change: WebhookChanges | undefined;
  if (sent.delivered) {
    if (webhook.failingSince === undefined) return;
    delete webhook.failingSince;
    change = { clearFailing: true };
  } else if (disables) {
    webhook.enabled = false;
    change = { enabled: false };
  } else if (webhook.failingSince === undefined) {
    webhook.failingSince = at.toISOString();
    change = { failingSince: webhook.failingSince };
  }
  if (change) {
    const update = change;
    endpoint.health = endpoint.health.then(() => updateWebhook(accountId, id, update));
  }
}
