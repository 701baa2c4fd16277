/**
 * Background worker: webhook delivery attempts (contract §12). On AWS the stage's SQS queue invokes it
 * with a batch of jobs (a job due later than SQS could delay it is sent on; a job that throws is
 * reported failed, comes back after the visibility timeout and, after a few receives, goes to the
 * dead-letter queue). On the local stage it runs every second and takes the jobs due from the table.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { forEachLimited } from '../lib/concurrency';
import { withDeclaredAccess } from '../lib/storage/access';
import { deliver, deliveryStorage } from '../lib/webhooks/deliver';
import { takeDueDeliveries } from '../lib/webhooks/queue';
import { stageUrlRules } from '../lib/webhooks/url';

/** Attempts made at once on the local stage (each waits on a receiver, up to 10 s). */
const ATTEMPTS_IN_FLIGHT = 16;

export const handler = async (event?: SQSEvent): Promise<SQSBatchResponse | { delivered: number }> =>
  withDeclaredAccess(deliveryStorage, async () => {
    const rules = stageUrlRules();
    if (event?.Records) {
      const { dueLater, sendToQueue } = await import('../lib/webhooks/sqs-queue');
      const failures: SQSBatchResponse['batchItemFailures'] = [];
      await Promise.all(
        event.Records.map(async (record) => {
          try {
            const { due, later } = dueLater(record.body);
            if (later) await sendToQueue(process.env['WEBHOOK_QUEUE_URL']!, [due]);
            else await deliver(due, { rules });
          } catch {
            failures.push({ itemIdentifier: record.messageId });
          }
        }),
      );
      return { batchItemFailures: failures };
    }
    const due = await takeDueDeliveries(Date.now());
    let delivered = 0;
    await forEachLimited(due, ATTEMPTS_IN_FLIGHT, async (job) => {
      if ((await deliver(job, { rules })) === 'delivered') delivered++;
    });
    return { delivered };
  });
