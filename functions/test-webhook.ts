import { endpoint } from '../lib/http/endpoint';
import { webhookRoutes } from '../lib/webhooks/routes';
import { sendTestEvent } from '../lib/webhooks/webhooks';

export const handler = endpoint(webhookRoutes.testWebhook, ({ caller, params }) =>
  sendTestEvent(caller, params.id),
);
