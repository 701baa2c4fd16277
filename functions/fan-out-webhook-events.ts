/**
 * Background worker (every minute in the stack, every second on the local stage): queues the events
 * derived since each webhook endpoint's position in its account's feed (contract §12).
 */
import { withDeclaredAccess } from '../lib/storage/access';
import { fanOutStorage, queueNewEvents } from '../lib/webhooks/deliver';

export const handler = async (): Promise<{ queued: number }> => {
  const queued = await withDeclaredAccess(fanOutStorage, () => queueNewEvents());
  if (queued > 0)
    console.log(JSON.stringify({ level: 'INFO', message: 'webhook deliveries queued', queued }));
  return { queued };
};
