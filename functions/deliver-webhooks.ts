/**
 * Background worker: webhook delivery attempts (contract §12). On AWS the stage's SQS queue invokes it
 * with a batch of jobs (a job due later than SQS could delay it is sent on; a job that throws is
 * reported failed, comes back after the visibility timeout and, after 5 receives, goes to the
 * dead-letter queue). On the local stage it runs every 250 ms and takes the jobs due from the table as
 * they come due, until none is due and no attempt is under way.
 *
 * The partial-batch answer is Lambda's `SQSBatchResponse` (the event source mapping reports batch item
 * failures), built here rather than with Powertools' batch processor: that processor hands each record
 * to a handler of its own, while a delivery batch is worked as one (`deliverAll`: each endpoint read and
 * its secrets opened by KMS once a batch, not once a message; log entries and retries of attempts that
 * end together written together), which record-by-record handling would multiply by the batch's size.
 * Each job's attempt still ends on its own: its retry is queued when it ends, not when the batch does.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { withDeclaredAccess } from '../lib/storage/access';
import { deliverAll, deliverDue, deliveryStorage, type Outcome } from '../lib/webhooks/deliver';
import type { DueJob } from '../lib/webhooks/job';
import { deliveryMetricsLine } from '../lib/webhooks/metrics';
import { dueLater, sendToQueue } from '../lib/webhooks/sqs-queue';
import { stageUrlRules } from '../lib/webhooks/url';

export const handler = async (event?: SQSEvent): Promise<SQSBatchResponse | { delivered: number }> =>
  withDeclaredAccess(deliveryStorage, async () => {
    const options = { rules: stageUrlRules() };
    if (event?.Records) {
      const failures: SQSBatchResponse['batchItemFailures'] = [];
      const now: Array<{ due: DueJob; messageId: string }> = [];
      await Promise.all(
        event.Records.map(async ({ body, messageId }) => {
          try {
            const { due, later } = dueLater(body);
            if (later) await sendToQueue(process.env['WEBHOOK_QUEUE_URL']!, [due]);
            else now.push({ due, messageId });
          } catch {
            failures.push({ itemIdentifier: messageId });
          }
        }),
      );
      const outcomes = await deliverAll(
        now.map((n) => n.due),
        options,
      );
      outcomes.forEach((outcome, i) => {
        if (outcome instanceof Error) failures.push({ itemIdentifier: now[i]!.messageId });
      });
      report(outcomes);
      return { batchItemFailures: failures };
    }
    // Every job due, taken as it comes due while attempts are under way, until none is left.
    const outcomes = await deliverDue(options);
    report(outcomes);
    const failed = outcomes.find((o) => o instanceof Error);
    if (failed) throw failed;
    return { delivered: outcomes.filter((o) => o === 'delivered').length };
  });

function report(outcomes: Array<Outcome | Error>): void {
  const attempts = outcomes.filter((o) => o !== 'dropped' && !(o instanceof Error)).length;
  if (attempts === 0) return;
  const failed = outcomes.filter((o) => o === 'failed').length;
  console.log(deliveryMetricsLine(attempts, failed));
}
