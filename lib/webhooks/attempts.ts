/**
 * Delivery attempts (contract §12), made so that endpoints never wait on each other: "a retry is due its
 * interval after the failed attempt ended, whatever other endpoints' receivers do at the same time".
 *
 * - **Each endpoint its own lane.** A run (an SQS batch on AWS, the local poller's run) keeps a queue of
 *   jobs per endpoint and makes at most `ATTEMPTS_PER_ENDPOINT` of one endpoint's attempts at once,
 *   taking the endpoints in turn; no limit is shared between endpoints, so a receiver that times out
 *   holds its own lane only.
 * - **Each attempt's writes when it ends.** Its log entries and its retry are written as soon as the
 *   attempt ends (writes of attempts that end meanwhile go in the same requests, 25 items a request),
 *   not when the run ends; the retry is due its interval after the attempt ended, by the run's clock.
 * - **Once per endpoint, not per attempt**: its item read (consistent) and its secrets opened (a KMS call
 *   on AWS), read again when older than `ENDPOINT_FRESH_MS`; the lists its creator sees, for the events'
 *   visibility (lib/events/visibility.ts). Its health (the run of failures, disabling) follows each
 *   attempt in the order attempts end, so a run decides as attempts one by one would.
 */
import { eventAsSeen, visibleListIds } from '../events/visibility';
import { closeAttempt, writeLog, type Attempt, type EntryKey, type LogChanges } from './deliveries';
import type { DeliveryJob, DueJob } from './job';
import { FAILING_DISABLES_AFTER_MS, retryDelayMs } from './schedule';
import { secretBox } from './secrets';
import { sendEvent, type Sent } from './send';
import { getWebhook, updateWebhook, type StoredWebhook, type WebhookChanges } from './store';
import type { UrlRules } from './url';

/** What an attempt came to: the log's status of it, or `dropped` (no attempt made, no entry). */
export type Outcome = 'delivered' | 'failed' | 'dropped';

export interface DeliveryOptions {
  rules: UrlRules;
  now?: () => Date;
  /** Jobs that must wait go here (the stage's queue by default). */
  enqueue: (jobs: DueJob[]) => Promise<void>;
}

/** One endpoint's attempts at once (a receiver is not flooded; other endpoints have lanes of their own). */
export const ATTEMPTS_PER_ENDPOINT = 8;
/** An endpoint read this long ago is read again (a change by its owner shows within this). */
const ENDPOINT_FRESH_MS = 5000;
/** Log items and retries a write request carries. */
const WRITE_BATCH = 25;
/** Write requests at once. */
const WRITERS = 4;

/** An endpoint as a run sees it: its item (health fields kept current by the run), secrets, lists seen. */
interface Endpoint {
  webhook: StoredWebhook;
  secrets: string[];
  readAtMs: number;
  /** The list ids its creator sees (read when an event first needs them). */
  visible?: Promise<Set<number>>;
  /** Its health's updates so far, in order. */
  health: Promise<unknown>;
}

interface Waiting {
  due: DueJob;
  settle: (outcome: Outcome | Error) => void;
}

export class DeliveryRun {
  private readonly now: () => Date;
  private readonly lanes = new Map<string, Waiting[]>();
  private readonly running = new Map<string, number>();
  private readonly endpoints = new Map<string, Promise<Endpoint | null>>();
  private readonly writes: Writes;

  constructor(private readonly options: DeliveryOptions) {
    this.now = options.now ?? (() => new Date());
    this.writes = new Writes(options.enqueue);
  }

  /** Jobs taken and not yet ended. */
  get pending(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.length;
    for (const count of this.running.values()) n += count;
    return n;
  }

  /** Makes the job's attempt in its endpoint's lane; answers its outcome, or the error that kept it from one. */
  submit(due: DueJob): Promise<Outcome | Error> {
    return new Promise((settle) => {
      const key = laneOf(due.job);
      const lane = this.lanes.get(key) ?? [];
      lane.push({ due, settle });
      this.lanes.set(key, lane);
      this.pump();
    });
  }

  /** Starts what the lanes allow, the endpoints in turn. */
  private pump(): void {
    for (const [key, lane] of this.lanes) {
      while (lane.length > 0 && (this.running.get(key) ?? 0) < ATTEMPTS_PER_ENDPOINT) {
        const { due, settle } = lane.shift()!;
        this.running.set(key, (this.running.get(key) ?? 0) + 1);
        void this.attempt(due.job)
          .then(settle, (error: unknown) => {
            settle(error instanceof Error ? error : new Error(String(error)));
          })
          .finally(() => {
            const left = this.running.get(key)! - 1;
            if (left === 0) this.running.delete(key);
            else this.running.set(key, left);
            this.pump();
          });
      }
      if (lane.length === 0) this.lanes.delete(key);
    }
  }

  private endpointOf(job: DeliveryJob): Promise<Endpoint | null> {
    const key = laneOf(job);
    const cached = this.endpoints.get(key);
    const read = (async () => {
      const before = cached ? await cached : null;
      if (before && this.now().getTime() - before.readAtMs < ENDPOINT_FRESH_MS) return before;
      // Read again after the health updates so far have landed: the new copy carries them.
      await before?.health.catch(() => undefined);
      return readEndpoint(job.accountId, job.webhookId, this.now());
    })();
    this.endpoints.set(key, read);
    return read;
  }

  private async attempt(job: DeliveryJob): Promise<Outcome> {
    const endpoint = await this.endpointOf(job);
    // Deleted: no attempt, and its log went with it. Disabled: no attempt, the log says none is coming.
    if (!endpoint) return 'dropped';
    if (!endpoint.webhook.enabled) return this.drop(job);
    const { webhook } = endpoint;
    const body = job.test ? job.body : eventAsSeen(job.body, await visibleTo(endpoint));
    if (body === null) return this.drop(job);

    const at = this.now();
    const sent = await sendEvent(
      { url: webhook.url, eventId: job.eventId, body, secrets: endpoint.secrets, at },
      this.options.rules,
    );
    const ended = this.now();
    // From here to the writes below nothing awaits: the endpoint's health moves attempt by attempt.
    // §12: deliveries that all failed for 5 days disable the endpoint; this attempt is then its last.
    const disables =
      !sent.delivered &&
      webhook.enabled &&
      webhook.failingSince !== undefined &&
      at.getTime() - Date.parse(webhook.failingSince) >= FAILING_DISABLES_AFTER_MS;
    const delay = sent.delivered || disables || job.test ? null : retryDelayMs(job.attempt);
    const nextAttemptAtMs = delay === null ? null : ended.getTime() + delay;
    const made: Attempt = {
      ...entryOf(job, at.getTime()),
      status: sent.delivered ? 'delivered' : 'failed',
      responseStatus: sent.responseStatus,
      durationMs: sent.durationMs,
      nextAttemptAtMs,
    };
    const changes: LogChanges = { put: [made], remove: job.logged ? [pendingOf(job)] : [] };
    const retries: DueJob[] = [];
    if (nextAttemptAtMs !== null) {
      const retry = { ...job, attempt: job.attempt + 1 };
      // Queued after the attempt, so newer in the log: a millisecond later at least when the attempt
      // took less than one (the log's order within a millisecond is by attempt, oldest first).
      const pendingAtMs = Math.max(ended.getTime(), at.getTime() + 1);
      retry.logged = { failedAtMs: at.getTime(), pendingAtMs };
      changes.put.push({
        ...entryOf(retry, pendingAtMs),
        status: 'pending',
        responseStatus: null,
        durationMs: null,
        nextAttemptAtMs,
      });
      retries.push({ job: retry, dueMs: nextAttemptAtMs });
    }
    followHealth(endpoint, sent, at, disables);
    await Promise.all([this.writes.add(changes, retries), endpoint.health]);
    return made.status === 'delivered' ? 'delivered' : 'failed';
  }

  /** A job not attempted: its `pending` entry removed and the failed attempt before it closed. */
  private async drop(job: DeliveryJob): Promise<Outcome> {
    if (job.logged) {
      await Promise.all([
        this.writes.add({ put: [], remove: [pendingOf(job)] }, []),
        closeAttempt({ ...entryOf(job, job.logged.failedAtMs), attempt: job.attempt - 1 }),
      ]);
    }
    return 'dropped';
  }
}

const laneOf = (job: DeliveryJob) => `${job.accountId}#${job.webhookId}`;

const entryOf = (job: DeliveryJob, atMs: number): EntryKey => ({
  accountId: job.accountId,
  webhookId: job.webhookId,
  eventId: job.eventId,
  attempt: job.attempt,
  atMs,
});

const pendingOf = (job: DeliveryJob): EntryKey => entryOf(job, job.logged!.pendingAtMs);

async function readEndpoint(accountId: string, webhookId: string, at: Date): Promise<Endpoint | null> {
  const webhook = await getWebhook(accountId, webhookId, { consistent: true });
  if (!webhook) return null;
  const secrets = webhook.enabled ? await validSecrets(webhook, at) : [];
  return { webhook, secrets, readAtMs: at.getTime(), health: Promise.resolve() };
}

/** §12: the endpoint's events are those its creator sees (shared lists only when none is recorded). */
function visibleTo(endpoint: Endpoint): Promise<Set<number>> {
  const { accountId, createdBy } = endpoint.webhook;
  return (endpoint.visible ??= visibleListIds(accountId, createdBy ?? null));
}

/** The secrets that sign now: the current one, and a rotated-out one for its 24 hours. */
async function validSecrets(webhook: StoredWebhook, at: Date): Promise<string[]> {
  const context = { accountId: webhook.accountId, webhookId: webhook.id };
  const valid = webhook.secrets.filter((s) => s.until === undefined || Date.parse(s.until) > at.getTime());
  return Promise.all(valid.map((s) => secretBox().open(s.sealed, context)));
}

/**
 * The endpoint's run of failures: started by a failed attempt, ended by a delivered one or by disabling.
 * The run's copy changes at once (the next attempt to end decides on it); the item's updates run one
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

/**
 * The log changes and retries of attempts as they end, written at once: whatever ended while a request
 * was on its way goes in the next one (up to `WRITE_BATCH` items), `WRITERS` requests at a time. Each
 * caller learns whether its own changes were written.
 */
class Writes {
  private readonly waiting: Array<{ changes: LogChanges; retries: DueJob[]; done: (e?: unknown) => void }> =
    [];
  private writers = 0;

  constructor(private readonly enqueue: (jobs: DueJob[]) => Promise<void>) {}

  add(changes: LogChanges, retries: DueJob[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ changes, retries, done: (e) => (e === undefined ? resolve() : reject(e)) });
      if (this.writers < WRITERS) void this.write();
    });
  }

  private async write(): Promise<void> {
    this.writers++;
    while (this.waiting.length > 0) {
      const taken: typeof this.waiting = [];
      let items = 0;
      while (
        this.waiting.length > 0 &&
        (taken.length === 0 || items + size(this.waiting[0]!) <= WRITE_BATCH)
      ) {
        const next = this.waiting.shift()!;
        items += size(next);
        taken.push(next);
      }
      const log: LogChanges = {
        put: taken.flatMap((t) => t.changes.put),
        remove: taken.flatMap((t) => t.changes.remove),
      };
      const retries = taken.flatMap((t) => t.retries);
      try {
        await Promise.all([writeLog(log), retries.length > 0 ? this.enqueue(retries) : undefined]);
        for (const t of taken) t.done();
      } catch (error) {
        for (const t of taken) t.done(error ?? new Error('write failed'));
      }
    }
    this.writers--;
  }
}

const size = (w: { changes: LogChanges; retries: DueJob[] }) =>
  w.changes.put.length + w.changes.remove.length + w.retries.length;
