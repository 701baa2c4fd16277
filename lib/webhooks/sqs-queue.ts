/**
 * The AWS side of the delivery queue (lib/webhooks/queue.ts): jobs go to the stage's SQS queue with a
 * delay until they are due. SQS delays a message 15 minutes at most, so a job due later (the retries
 * after 30 min, 2 h, …) is sent with the longest delay and carries its due time; the delivery function
 * sends it on again until its time comes (`dueLater`). A message the function fails on comes back after
 * the queue's visibility timeout and, after a few receives, goes to the dead-letter queue. The fan-out's
 * announcements (lib/webhooks/announce.ts) go through `sendEntries` too.
 */
import { chunk } from '../storage/batch';
import { callAws } from './aws-json';
import type { DueJob } from './job';

/** SQS's longest delay. */
export const MAX_DELAY_SECONDS = 900;
const SEND_BATCH = 10;

export async function sendToQueue(queueUrl: string, jobs: DueJob[], nowMs = Date.now()): Promise<void> {
  await sendEntries(
    queueUrl,
    jobs.map((due) => ({
      MessageBody: JSON.stringify(due),
      DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((due.dueMs - nowMs) / 1000))),
    })),
  );
}

/** A message as SendMessageBatch takes it (its `Id` in the batch is given here). */
interface Entry {
  MessageBody: string;
  DelaySeconds?: number;
  MessageGroupId?: string;
  MessageDeduplicationId?: string;
}

/** Sends messages SEND_BATCH at a time, sending again those SQS refused (5 tries, then it throws). */
export async function sendEntries(queueUrl: string, entries: Entry[]): Promise<void> {
  for (const part of chunk(entries, SEND_BATCH)) {
    let pending = part.map((entry, i) => ({ ...entry, Id: String(i) }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === 5) throw new Error('SQS kept refusing messages');
      const result = await callAws<{ Failed?: Array<{ Id: string }> }>('sqs', 'SendMessageBatch', {
        QueueUrl: queueUrl,
        Entries: pending,
      });
      const failed = new Set((result.Failed ?? []).map((f) => f.Id));
      pending = pending.filter((entry) => failed.has(entry.Id));
    }
  }
}

/** A received message's job, and whether it must wait longer (sent on by the caller). */
export function dueLater(message: string, nowMs = Date.now()): { due: DueJob; later: boolean } {
  const due = JSON.parse(message) as DueJob;
  return { due, later: due.dueMs > nowMs + 1000 };
}
