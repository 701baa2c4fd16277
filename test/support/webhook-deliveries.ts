/**
 * What the webhook tests share: URL rules that let a receiver on 127.0.0.1 be an endpoint, and the
 * local stage's fan-out and delivery run until nothing is left to do.
 */
import { deliverAll, queueNewEvents } from '../../lib/webhooks/deliver';
import { takeDueDeliveries } from '../../lib/webhooks/queue';
import type { UrlRules } from '../../lib/webhooks/url';

/** URL rules that accept a receiver on 127.0.0.1; a host name is resolved only by a test's own stub. */
export const LOCAL_RECEIVERS: UrlRules = {
  allowLocal: true,
  resolve: async () => {
    throw new Error('no name is resolved in this test but through its own stub');
  },
};

/**
 * Runs the fan-out and every delivery job as it comes due, as the local stage's workers do, until
 * `quietRounds` rounds in a row, 50 ms apart, find nothing to queue or deliver (enough of them to
 * outwait the retries a test's schedule makes due); throws the first error a job met.
 */
export async function deliverUntilQuiet(
  quietRounds: number,
  rules: UrlRules = LOCAL_RECEIVERS,
): Promise<void> {
  for (let quiet = 0; quiet < quietRounds;) {
    const queued = await queueNewEvents();
    const due = await takeDueDeliveries(Date.now());
    if (queued === 0 && due.length === 0) {
      quiet++;
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    quiet = 0;
    for (const outcome of await deliverAll(due, { rules })) if (outcome instanceof Error) throw outcome;
  }
}
