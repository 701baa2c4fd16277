/**
 * Delivery of events to webhook endpoints (contract §12), the same code on AWS and on the local stage:
 *
 * - `queueNewEvents` (the fan-out): for every enabled endpoint (of the accounts an import batch
 *   announced, or of all), the account's events after the endpoint's feed position become delivery
 *   jobs (attempt 1, due now), then the position moves past them, conditional on where it was read (two
 *   fan-outs never both move it; a fan-out that dies between queueing and moving queues the same events
 *   again: at least once, same `webhook-id`).
 * - `deliverAll` (a batch of jobs: an SQS batch) and `deliverDue` (the local stage's run, taking jobs
 *   as they come due): the attempts (lib/webhooks/attempts.ts), each endpoint in its own lane, each
 *   attempt's log entries and retry written as it ends, the retry due its interval after the attempt
 *   ended (lib/webhooks/schedule.ts) or, after the eighth, none. An endpoint whose deliveries all failed
 *   for 5 days is disabled.
 *
 * Jobs wait in the stage's queue (lib/webhooks/queue.ts): SQS on AWS, the table on the local stage.
 */
import { forEachLimited } from '../concurrency';
import type { StorageAccess } from '../storage/access';
import * as partitions from '../storage/partitions';
import { readEvents } from '../events/store';
import { DeliveryRun, type DeliveryOptions, type Outcome } from './attempts';
import type { DueJob } from './job';
import { enqueueDeliveries, takeDueDeliveries } from './queue';
import { getAllWebhookListings, getWebhooks, updateWebhook, type StoredWebhook } from './store';

export type { Outcome } from './attempts';

/** A run's options: its URL rules, and a clock and a queue of its own if it wants (tests). */
export type DeliveryRunOptions = Omit<DeliveryOptions, 'enqueue'> & Partial<Pick<DeliveryOptions, 'enqueue'>>;

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
 * A delivery: the endpoint read, the lists its creator sees, the attempt logged (a retry's entry closed
 * when it is dropped), its health noted, a retry queued; on the local stage the jobs due are read from
 * the table's queue and taken by conditional deletes.
 */
export const deliveryStorage = {
  GetItem: [partitions.webhooks],
  UpdateItem: [partitions.webhooks, partitions.webhookDeliveries],
  BatchWriteItem: [partitions.webhookDeliveries, partitions.deliveriesDue],
  Query: [partitions.deliveriesDue, partitions.accountLists],
  DeleteItem: [partitions.deliveriesDue],
} as const satisfies StorageAccess;

/** Events read per endpoint per step of a fan-out (it reads again while a step comes back full). */
const EVENTS_PER_STEP = 500;
/** A fan-out run queues at most this many events per endpoint (the next run takes the rest). */
const EVENTS_PER_FAN_OUT = 10 * EVENTS_PER_STEP;
const ENDPOINTS_IN_FLIGHT = 8;

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

/** One delivery attempt (`deliverAll` of one job); answers what happened. */
export async function deliver(due: DueJob, options: DeliveryRunOptions): Promise<Outcome> {
  const [outcome] = await deliverAll([due], options);
  if (outcome instanceof Error) throw outcome;
  return outcome!;
}

/**
 * The attempts of a batch of jobs (an SQS batch, a test's), each endpoint in its own lane
 * (lib/webhooks/attempts.ts); answers each job's outcome, or the error that kept it from one (the SQS
 * consumer hands those back to the queue).
 */
export async function deliverAll(
  dues: DueJob[],
  options: DeliveryRunOptions,
): Promise<Array<Outcome | Error>> {
  const run = new DeliveryRun({ ...options, enqueue: options.enqueue ?? enqueueDeliveries });
  return Promise.all(dues.map((due) => run.submit(due)));
}

/** How often the local run looks for jobs come due while attempts are under way. */
const POLL_MS = 100;
/** Jobs the local run holds taken and not yet ended at most (it takes no more until some end). */
const TAKEN_AT_MOST = 1000;

/**
 * The local stage's delivery: every job due, taken from the table as it comes due, also while attempts
 * are under way (a retry due in 5 s is taken then, whatever receiver is still being waited on), until
 * nothing is due and no attempt is left. Answers the outcomes.
 */
export async function deliverDue(
  options: DeliveryRunOptions,
  take: (nowMs: number) => Promise<DueJob[]> = takeDueDeliveries,
): Promise<Array<Outcome | Error>> {
  const now = options.now ?? (() => new Date());
  const run = new DeliveryRun({ ...options, now, enqueue: options.enqueue ?? enqueueDeliveries });
  const outcomes: Array<Outcome | Error> = [];
  const underway = new Set<Promise<void>>();
  for (;;) {
    const due = run.pending < TAKEN_AT_MOST ? await take(now().getTime()) : [];
    for (const job of due) {
      const attempt: Promise<void> = run.submit(job).then((outcome) => {
        outcomes.push(outcome);
        underway.delete(attempt);
      });
      underway.add(attempt);
    }
    if (due.length > 0) continue;
    if (underway.size === 0) return outcomes;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([...underway, new Promise((resolve) => (timer = setTimeout(resolve, POLL_MS)))]);
    clearTimeout(timer);
  }
}
