import { endpoint } from '../lib/http/endpoint';
import { webhookRoutes } from '../lib/webhooks/routes';
import { rotateSecret } from '../lib/webhooks/webhooks';

export const handler = endpoint(webhookRoutes.rotateWebhookSecret, ({ caller, params }) =>
  rotateSecret(caller, params.id),
);
