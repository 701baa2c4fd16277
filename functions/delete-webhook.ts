import { endpoint } from '../lib/http/endpoint';
import { webhookRoutes } from '../lib/webhooks/routes';
import { deleteOneWebhook } from '../lib/webhooks/webhooks';

export const handler = endpoint(webhookRoutes.deleteWebhook, async ({ caller, params }) => {
  await deleteOneWebhook(caller, params.id);
  return undefined;
});
