import { endpoint } from '../lib/http/endpoint';
import { getWebhooks as route } from '../lib/webhooks/routes';
import { listWebhooks } from '../lib/webhooks/webhooks';

export const handler = endpoint(route, ({ caller }) => listWebhooks(caller));
