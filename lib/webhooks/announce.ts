/**
 * New events announced to the webhook fan-out (contract §12: a delivery leaves within seconds of the
 * import batch that derived its event, not at the next scheduled run).
 *
 * On AWS an import batch that wrote events, and the fan-out's minute sweep, send one message per
 * account to the stage's FIFO fan-out queue (FAN_OUT_QUEUE_URL), grouped by account: SQS hands one
 * account's messages to one fan-out at a time, in order, so two fan-outs never queue the same events of
 * an endpoint. A message lost (an import that died between its events and this) is made good by the next
 * sweep, a minute later at most. Elsewhere (the local stage, tests) nothing is sent: the local fan-out
 * runs on its own, often (lib/routes.ts).
 */
import { createHash } from 'node:crypto';
import { webhookConfig } from '../config';
import { sendEntries } from './sqs-queue';

/** One account's announcement, as the queue carries it. */
export interface Announcement {
  accountId: string;
}

/**
 * Announces new events of `accountIds`. `occasion` names what announces (the import batch's change
 * id, the sweep's minute): SQS drops a repeat of the same occasion and account within 5 minutes (a
 * retried batch), never an announcement of a later one.
 */
export async function announceEvents(accountIds: Iterable<string>, occasion: string): Promise<void> {
  const queueUrl = webhookConfig.fanOutQueueUrl();
  const accounts = [...new Set(accountIds)];
  if (!queueUrl || accounts.length === 0) return;
  await sendEntries(
    queueUrl,
    accounts.map((accountId) => ({
      MessageBody: JSON.stringify({ accountId } satisfies Announcement),
      MessageGroupId: accountId,
      MessageDeduplicationId: createHash('sha256').update(`${occasion}\n${accountId}`).digest('hex'),
    })),
  );
}

/** The accounts a batch of the fan-out queue's messages announces. */
export function announcedAccounts(bodies: string[]): string[] {
  return [...new Set(bodies.map((body) => (JSON.parse(body) as Announcement).accountId))];
}
