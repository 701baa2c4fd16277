import { endpoint } from '../lib/http/endpoint';
import { webhookRoutes } from '../lib/webhooks/routes';
import { sendTestEvent } from '../lib/webhooks/webhooks';

export const handler = endpoint(webhookRoutes.testWebhook, async ({ caller, params }) => {
  await sendTestEvent(caller, params.id);
  return undefined;
});
