import { endpoint } from '../lib/http/endpoint';
import { deleteWebhook as route } from '../lib/webhooks/routes';
import { deleteOneWebhook } from '../lib/webhooks/webhooks';

export const handler = endpoint(route, async ({ caller, params }) => {
  await deleteOneWebhook(caller, params.id);
  return undefined;
});
