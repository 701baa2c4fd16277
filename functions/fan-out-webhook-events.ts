/**
 * Background worker: queues the events derived since each webhook endpoint's position in its account's
 * feed (contract §12).
 *
 * - On AWS, the stage's FIFO fan-out queue invokes it with the accounts an import batch announced
 *   (lib/webhooks/announce.ts): their endpoints' events are queued at once, one account's fan-outs one
 *   at a time. Every minute its schedule sweeps: it announces every account with an endpoint, so an
 *   announcement lost is made good.
 * - On the local stage it runs every 250 ms and sweeps every endpoint itself.
 */
import type { SQSEvent } from 'aws-lambda';
import { webhookConfig } from '../lib/config';
import { withDeclaredAccess } from '../lib/storage/access';
import { announceEvents, announcedAccounts } from '../lib/webhooks/announce';
import { fanOutStorage, queueNewEvents, sweptAccounts } from '../lib/webhooks/deliver';

export const handler = async (event?: SQSEvent): Promise<{ queued: number }> =>
  withDeclaredAccess(fanOutStorage, async () => {
    if (!event?.Records && webhookConfig.fanOutQueueUrl()) {
      const minute = new Date().toISOString().slice(0, 16);
      await announceEvents(await sweptAccounts(), `sweep ${minute}`);
      return { queued: 0 };
    }
    const accounts = event?.Records ? announcedAccounts(event.Records.map((r) => r.body)) : undefined;
    const queued = await queueNewEvents(accounts ? { accounts } : {});
    if (queued > 0)
      console.log(JSON.stringify({ level: 'INFO', message: 'webhook deliveries queued', queued }));
    return { queued };
  });
