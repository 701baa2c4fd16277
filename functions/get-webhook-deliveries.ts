import { endpoint } from '../lib/http/endpoint';
import { webhookRoutes } from '../lib/webhooks/routes';
import { getWebhookDeliveries } from '../lib/webhooks/webhooks';

export const handler = endpoint(webhookRoutes.getWebhookDeliveries, ({ caller, params, query }) =>
  getWebhookDeliveries(caller, params.id, query),
);
