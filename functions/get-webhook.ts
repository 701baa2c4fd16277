import { endpoint } from '../lib/http/endpoint';
import { getWebhook as route } from '../lib/webhooks/routes';
import { getOneWebhook } from '../lib/webhooks/webhooks';

export const handler = endpoint(route, ({ caller, params }) => getOneWebhook(caller, params.id));
