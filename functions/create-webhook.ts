import { endpoint } from '../lib/http/endpoint';
import { createWebhook as route } from '../lib/webhooks/routes';
import { createWebhook } from '../lib/webhooks/webhooks';

export const handler = endpoint(route, ({ caller, body }) => createWebhook(caller, body));
