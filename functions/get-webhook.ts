import { endpoint } from '../lib/http/endpoint';
import { webhookRoutes } from '../lib/webhooks/routes';
import { getOneWebhook } from '../lib/webhooks/webhooks';

export const handler = endpoint(webhookRoutes.getWebhook, ({ caller, params }) =>
  getOneWebhook(caller, params.id),
);
