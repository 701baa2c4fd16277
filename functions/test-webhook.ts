import { endpoint } from '../lib/http/endpoint';
import { testWebhook as route } from '../lib/webhooks/routes';
import { sendTestEvent } from '../lib/webhooks/webhooks';

export const handler = endpoint(route, async ({ caller, params }) => {
  await sendTestEvent(caller, params.id);
  return undefined;
});
