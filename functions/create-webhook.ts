import { endpoint } from '../lib/http/endpoint';
import { webhookRoutes } from '../lib/webhooks/routes';
import { createWebhook } from '../lib/webhooks/webhooks';

export const handler = endpoint(webhookRoutes.createWebhook, ({ caller, body }) =>
  createWebhook(caller, body),
);
