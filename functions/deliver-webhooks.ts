/**
 * Background worker: webhook delivery attempts (contract §12). On AWS the stage's SQS queue invokes it
 * with a batch of jobs (a job due later than SQS could delay it is sent on; a job that throws is
 * reported failed, comes back after the visibility timeout and, after 5 receives, goes to the
 * dead-letter queue). On the local stage it runs every second and takes every job due from the table.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { forEachLimited } from '../lib/concurrency';
import { withDeclaredAccess } from '../lib/storage/access';
import { deliver, deliveryStorage } from '../lib/webhooks/deliver';
import type { DueJob } from '../lib/webhooks/job';
import { deliveryMetricsLine } from '../lib/webhooks/metrics';
import { takeDueDeliveries } from '../lib/webhooks/queue';
import { stageUrlRules } from '../lib/webhooks/url';

/** Attempts made at once (each waits on a receiver, up to 10 s). */
const ATTEMPTS_IN_FLIGHT = 16;

export const handler = async (event?: SQSEvent): Promise<SQSBatchResponse | { delivered: number }> =>
  withDeclaredAccess(deliveryStorage, async () => {
    const rules = stageUrlRules();
    const outcomes: string[] = [];
    const attempt = async (due: DueJob) => void outcomes.push(await deliver(due, { rules }));
    if (event?.Records) {
      const { dueLater, sendToQueue } = await import('../lib/webhooks/sqs-queue');
      const failures: SQSBatchResponse['batchItemFailures'] = [];
      await Promise.all(
        event.Records.map(async (record) => {
          try {
            const { due, later } = dueLater(record.body);
            if (later) await sendToQueue(process.env['WEBHOOK_QUEUE_URL']!, [due]);
            else await attempt(due);
          } catch {
            failures.push({ itemIdentifier: record.messageId });
          }
        }),
      );
      report(outcomes);
      return { batchItemFailures: failures };
    }
    // Every job due, 100 at a time, until none is left: a burst of events does not wait a tick per 100.
    for (
      let due = await takeDueDeliveries(Date.now());
      due.length > 0;
      due = await takeDueDeliveries(Date.now())
    ) {
      await forEachLimited(due, ATTEMPTS_IN_FLIGHT, attempt);
    }
    report(outcomes);
    return { delivered: outcomes.filter((o) => o === 'delivered').length };
  });

function report(outcomes: string[]): void {
  const attempts = outcomes.filter((o) => o !== 'dropped').length;
  if (attempts === 0) return;
  const failed = outcomes.filter((o) => o === 'pending' || o === 'failed').length;
  console.log(deliveryMetricsLine(attempts, failed));
}
