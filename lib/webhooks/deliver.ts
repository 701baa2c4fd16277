/**
 * Delivery of events to webhook endpoints (contract §12), the same code on AWS and on the local stage:
 *
 * - `queueNewEvents` (the fan-out): for every enabled endpoint, the account's events after the
 *   endpoint's feed position become delivery jobs (attempt 1, due now), then the position moves past
 *   them, conditional on where it was read (two fan-outs never both move it; a fan-out that dies
 *   between queueing and moving queues the same events again: at least once, same `webhook-id`).
 * - `deliver` (one job): the endpoint read again (deleted or disabled: the job is dropped), its valid
 *   secrets opened, the event sent (lib/webhooks/send.ts), the attempt logged, and a failed attempt
 *   queued again per the schedule (lib/webhooks/schedule.ts) or, after the eighth, logged `failed`.
 *   An endpoint whose deliveries all failed for 5 days is disabled.
 *
 * Jobs wait in the stage's queue (lib/webhooks/queue.ts): SQS on AWS, the table on the local stage.
 */
import { forEachLimited } from '../concurrency';
import type { StorageAccess } from '../storage/access';
import { partitions } from '../storage/keys';
import { readEvents } from '../events/store';
import { logAttempts } from './deliveries';
import type { DueJob } from './job';
import { enqueueDeliveries } from './queue';
import { FAILING_DISABLES_AFTER_MS, retryDelayMs } from './schedule';
import { secretBox } from './secrets';
import { sendEvent, type Sent } from './send';
import { getAllWebhookListings, getWebhook, updateWebhook, type StoredWebhook } from './store';
import type { UrlRules } from './url';

/**
 * The fan-out: every endpoint's listing and item, the account's feed (its last number and events), the
 * endpoint's position moved; jobs into the table's queue on the local stage.
 */
export const fanOutStorage = {
  Query: [partitions.webhookListings, partitions.events],
  GetItem: [partitions.webhooks, partitions.eventLog],
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

/** Events queued per endpoint per fan-out (the next fan-out takes the rest). */
const EVENTS_PER_FAN_OUT = 500;
const ENDPOINTS_IN_FLIGHT = 8;

export interface DeliveryOptions {
  rules: UrlRules;
  now?: () => Date;
  /** Jobs that must wait go here (the stage's queue by default). */
  enqueue?: (jobs: DueJob[]) => Promise<void>;
}

/** Queues the events derived since each enabled endpoint's position; answers how many jobs it queued. */
export async function queueNewEvents(
  enqueue: (jobs: DueJob[]) => Promise<void> = enqueueDeliveries,
  nowMs = Date.now(),
): Promise<number> {
  const listings = await getAllWebhookListings();
  let queued = 0;
  await forEachLimited(listings, ENDPOINTS_IN_FLIGHT, async ({ accountId, webhookId }) => {
    const webhook = await getWebhook(accountId, webhookId, { consistent: true });
    if (!webhook?.enabled) return;
    const { events, readTo } = await readEvents(accountId, webhook.cursor, EVENTS_PER_FAN_OUT, nowMs);
    if (readTo === webhook.cursor) return;
    await enqueue(
      events.map((event) => ({
        job: { accountId, webhookId, eventId: event.id, attempt: 1, body: event.body },
        dueMs: nowMs,
      })),
    );
    // Only from where it was read: a fan-out running beside this one moves it once.
    if (await updateWebhook(accountId, webhookId, { cursor: readTo }, { cursor: webhook.cursor })) {
      queued += events.length;
    }
  });
  return queued;
}

/** One delivery attempt; answers what happened (`dropped`: the endpoint is gone or disabled). */
export async function deliver(
  { job }: DueJob,
  options: DeliveryOptions,
): Promise<'delivered' | 'pending' | 'failed' | 'dropped'> {
  const now = options.now ?? (() => new Date());
  const webhook = await getWebhook(job.accountId, job.webhookId, { consistent: true });
  if (!webhook?.enabled) {
    // A retry of a disabled endpoint is dropped: its log, which said `pending`, says it ends here
    // (no request made: no status, no duration). A first attempt dropped has nothing to close.
    if (webhook && job.attempt > 1) await logAttempts([closed(job, now().getTime())]);
    return 'dropped';
  }
  const at = now();
  const secrets = await validSecrets(webhook, at);
  const sent = await sendEvent(
    { url: webhook.url, eventId: job.eventId, body: job.body, secrets, at },
    options.rules,
  );
  // §12: deliveries that all failed for 5 days disable the endpoint; this attempt is then its last.
  const disables =
    !sent.delivered &&
    webhook.failingSince !== undefined &&
    at.getTime() - Date.parse(webhook.failingSince) >= FAILING_DISABLES_AFTER_MS;
  const delay = sent.delivered || disables ? null : retryDelayMs(job.attempt);
  const status = sent.delivered ? 'delivered' : delay === null ? 'failed' : 'pending';
  const nextAttemptAtMs = delay === null ? null : at.getTime() + delay;
  await logAttempts([
    {
      accountId: job.accountId,
      webhookId: job.webhookId,
      eventId: job.eventId,
      attempt: job.attempt,
      atMs: at.getTime(),
      status,
      responseStatus: sent.responseStatus,
      durationMs: sent.durationMs,
      nextAttemptAtMs,
    },
  ]);
  if (nextAttemptAtMs !== null) {
    await (options.enqueue ?? enqueueDeliveries)([
      { job: { ...job, attempt: job.attempt + 1 }, dueMs: nextAttemptAtMs },
    ]);
  }
  await followHealth(webhook, sent, at, disables);
  return status;
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

/** The endpoint's run of failures: started by a failed attempt, ended by a delivered one or by disabling. */
async function followHealth(webhook: StoredWebhook, sent: Sent, at: Date, disables: boolean): Promise<void> {
  const { accountId, id } = webhook;
  if (sent.delivered) {
    if (webhook.failingSince) await updateWebhook(accountId, id, { clearFailing: true });
    return;
  }
  if (disables) await updateWebhook(accountId, id, { enabled: false });
  else if (!webhook.failingSince) await updateWebhook(accountId, id, { failingSince: at.toISOString() });
}
