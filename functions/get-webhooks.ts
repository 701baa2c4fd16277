import { endpoint } from '../lib/http/endpoint';
import { webhookRoutes } from '../lib/webhooks/routes';
import { listWebhooks } from '../lib/webhooks/webhooks';

export const handler = endpoint(webhookRoutes.getWebhooks, ({ caller }) => listWebhooks(caller));
