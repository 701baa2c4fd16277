/**
 * The AWS side of the delivery queue (lib/webhooks/queue.ts): jobs go to the stage's SQS queue with a
 * delay until they are due. SQS delays a message 15 minutes at most, so a job due later (the retries
 * after 30 min, 2 h, …) is sent with the longest delay and carries its due time; the delivery function
 * sends it on again until its time comes (`dueLater`). A message the function fails on comes back after
 * the queue's visibility timeout and, after a few receives, goes to the dead-letter queue. The fan-out's
 * announcements (lib/webhooks/announce.ts) go through `sendEntries` too.
 */
import type * as Sqs from '@aws-sdk/client-sqs';
import { backoff, chunk } from '../storage/batch';
import type { DueJob } from './job';

/** SQS's longest delay. */
export const MAX_DELAY_SECONDS = 900;
const SEND_BATCH = 10;
/** Sends of a batch's refused messages, the first included; a wait with backoff before each resend. */
const SEND_ATTEMPTS = 5;
const RESEND_BASE_MS = 50;
const RESEND_MAX_MS = 1000;

let sqs: Promise<{ sdk: typeof Sqs; client: Sqs.SQSClient }> | undefined;

/**
 * The SDK's SQS client, loaded and built on first use (a function that queues nothing, such as the
 * webhook GETs, does not load it) and kept across invocations: the region, the credentials (on Lambda,
 * the role's, from the environment) and AWS_ENDPOINT_URL_SQS (the tests' stand-in) as the SDK reads
 * them; its standard retries (3 attempts, backoff after a throttle, a 5xx or a lost connection); at
 * most 10 s an attempt.
 */
function sqsClient() {
  return (sqs ??= import('@aws-sdk/client-sqs').then((sdk) => ({
    sdk,
    client: new sdk.SQSClient({
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 3000, requestTimeout: 10_000, throwOnRequestTimeout: true },
    }),
  })));
}

export async function sendToQueue(queueUrl: string, jobs: DueJob[], nowMs = Date.now()): Promise<void> {
  await sendEntries(
    queueUrl,
    jobs.map((due) => ({
      MessageBody: JSON.stringify(due),
      // The queue is a fair queue: SQS tells tenants apart by the group, and when one account's jobs
      // take more than their share of the consumers (a receiver that times out, a burst of events) it
      // hands the other accounts' jobs out first (docs/notifications.md).
      MessageGroupId: due.job.accountId,
      DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((due.dueMs - nowMs) / 1000))),
    })),
  );
}

/** A message as SendMessageBatch takes it (its `Id` in the batch is given here). */
type Entry = Omit<Sqs.SendMessageBatchRequestEntry, 'Id'>;

/** Refused by SQS: `failed` says which messages and why. */
export class MessagesRefusedError extends Error {
  constructor(readonly failed: Array<{ Code?: string; Message?: string; SenderFault?: boolean }>) {
    super(`SQS refused ${failed.length} message(s): ${[...new Set(failed.map((f) => f.Code))].join(', ')}`);
    this.name = 'MessagesRefusedError';
  }
}

/**
 * Sends messages SEND_BATCH at a time. A batch's messages SQS refused on its side (a failed entry
 * without `SenderFault`) are sent again after a backoff, SEND_ATTEMPTS sends in all; a message refused
 * for what it is (`SenderFault`), or still refused after the last send, fails the call.
 */
export async function sendEntries(queueUrl: string, entries: Entry[]): Promise<void> {
  if (entries.length === 0) return;
  const { sdk, client } = await sqsClient();
  for (const part of chunk(entries, SEND_BATCH)) {
    let pending = part.map((entry, i) => ({ ...entry, Id: String(i) }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await backoff(attempt, RESEND_BASE_MS, RESEND_MAX_MS);
      const { Failed = [] } = await client.send(
        new sdk.SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }),
      );
      const refused = Failed.filter((f) => f.SenderFault);
      if (refused.length > 0 || (Failed.length > 0 && attempt === SEND_ATTEMPTS - 1)) {
        throw new MessagesRefusedError(refused.length > 0 ? refused : Failed);
      }
      const failed = new Set(Failed.map((f) => f.Id));
      pending = pending.filter((entry) => failed.has(entry.Id));
    }
  }
}

/** A received message's job, and whether it must wait longer (sent on by the caller). */
export function dueLater(message: string, nowMs = Date.now()): { due: DueJob; later: boolean } {
  const due = JSON.parse(message) as DueJob;
  return { due, later: due.dueMs > nowMs + 1000 };
}
