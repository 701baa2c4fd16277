import { endpoint } from '../lib/http/endpoint';
import { webhookRoutes } from '../lib/webhooks/routes';
import { updateOneWebhook } from '../lib/webhooks/webhooks';

export const handler = endpoint(webhookRoutes.updateWebhook, ({ caller, params, body }) =>
  updateOneWebhook(caller, params.id, body),
);
