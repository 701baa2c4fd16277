import { endpoint } from '../lib/http/endpoint';
import { updateWebhook as route } from '../lib/webhooks/routes';
import { updateOneWebhook } from '../lib/webhooks/webhooks';

export const handler = endpoint(route, ({ caller, params, body }) =>
  updateOneWebhook(caller, params.id, body),
);
