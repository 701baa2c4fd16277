import { endpoint } from '../lib/http/endpoint';
import { getWebhookDeliveries as route } from '../lib/webhooks/routes';
import { getWebhookDeliveries } from '../lib/webhooks/webhooks';

export const handler = endpoint(route, ({ caller, params, query }) =>
  getWebhookDeliveries(caller, params.id, query),
);
