/**
 * Delivery attempts waiting for their time (contract §12). On AWS they wait in the stage's SQS queue
 * (WEBHOOK_QUEUE_URL; lib/webhooks/sqs-queue.ts); everywhere else in the table, spread over a few
 * partitions keyed by the time they are due, where the local stage's poller finds them
 * (`takeDueDeliveries`). A job carries the event's body, so an attempt needs no read of the feed.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { batchPut, queryAll } from '../storage/batch';
import { dynamodb, isConditionFailed, send, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { DELIVERY_DUE_SHARDS } from '../storage/keys';
import { webhookConfig } from '../config';

import type { DeliveryJob, DueJob } from './job';
import { sendToQueue } from './sqs-queue';

/** Queues jobs for their time: the stage's SQS queue, else the table. */
export async function enqueueDeliveries(jobs: DueJob[]): Promise<void> {
  if (jobs.length === 0) return;
  const queueUrl = webhookConfig.queueUrl();
  if (queueUrl) {
    return sendToQueue(queueUrl, jobs);
  }
  await batchPut(
    tableName(),
    jobs.map(({ job, dueMs }) => ({
      ...keys.deliveryDue(dueMs, job.accountId, job.webhookId, job.eventId),
      entity: 'DeliveryDue',
      ...job,
      dueMs,
    })),
  );
}

/**
 * Takes up to `limit` jobs due by `nowMs` from the table, each by a conditional delete, so two pollers
 * never take the same job (the one whose delete found nothing leaves it).
 */
export async function takeDueDeliveries(nowMs: number, limit = 100): Promise<DueJob[]> {
  const shards = Array.from({ length: DELIVERY_DUE_SHARDS }, (_, shard) => keys.deliveriesDue(shard));
  const found = (
    await Promise.all(
      shards.map((pk) =>
        queryAll(
          {
            TableName: tableName(),
            KeyConditionExpression: 'pk = :pk AND sk <= :due',
            ExpressionAttributeValues: { ':pk': pk, ':due': `${String(nowMs).padStart(15, '0')}#~` },
            ConsistentRead: true,
          },
          { limit },
        ),
      ),
    )
  ).flat();
  const taken: DueJob[] = [];
  await Promise.all(
    found.map(async (item) => {
      try {
        await send(() =>
          dynamodb().send(
            new DeleteCommand({
              TableName: tableName(),
              Key: { pk: item['pk'], sk: item['sk'] },
              ConditionExpression: 'attribute_exists(pk)',
            }),
          ),
        );
      } catch (error) {
        if (isConditionFailed(error)) return;
        throw error;
      }
      taken.push({
        dueMs: Number(item['dueMs']),
        job: {
          accountId: String(item['accountId']),
          webhookId: String(item['webhookId']),
          eventId: String(item['eventId']),
          attempt: Number(item['attempt']),
          body: String(item['body']),
          ...(item['test'] === true ? { test: true as const } : {}),
          ...(item['logged'] ? { logged: item['logged'] as NonNullable<DeliveryJob['logged']> } : {}),
        },
      });
    }),
  );
  return taken;
}
