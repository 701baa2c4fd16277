/** The webhook endpoints (contract §12), scope `webhooks:write`. */
import type { Route } from '../http/route';
import type { StorageAccess } from '../storage/access';
import * as partitions from '../storage/partitions';
import {
  createdWebhookSchema,
  createWebhookRequest,
  deliveriesPageSchema,
  getWebhookDeliveriesRequest,
  getWebhookRequest,
  getWebhooksRequest,
  secretSchema,
  updateWebhookRequest,
  webhookSchema,
  webhooksSchema,
} from './schemas';

/** Reading the caller's endpoint by id. */
const ownEndpoint = { GetItem: [partitions.webhooks] } as const satisfies StorageAccess;

export const createWebhook = {
  method: 'POST',
  path: '/v1/webhooks',
  summary: 'Adds a webhook endpoint (at most 5 per account); its signing secret is shown only here',
  scope: 'webhooks:write',
  // The feed's last number (where deliveries start), then the endpoint, its count and listing in one transaction.
  storage: {
    GetItem: [partitions.eventLog],
    UpdateItem: [partitions.webhooks],
    PutItem: [partitions.webhooks, partitions.webhookListings],
  },
  request: createWebhookRequest,
  status: 201,
  response: createdWebhookSchema,
  conflicts: ['LIMIT_REACHED'],
} as const satisfies Route;

export const getWebhooks = {
  method: 'GET',
  path: '/v1/webhooks',
  summary: "The account's webhook endpoints, oldest first (without their secrets)",
  scope: 'webhooks:write',
  storage: { Query: [partitions.webhooks] },
  request: getWebhooksRequest,
  response: webhooksSchema,
} as const satisfies Route;

export const getWebhook = {
  method: 'GET',
  path: '/v1/webhooks/{id}',
  summary: 'One webhook endpoint (without its secret)',
  scope: 'webhooks:write',
  storage: ownEndpoint,
  request: getWebhookRequest,
  response: webhookSchema,
} as const satisfies Route;

export const updateWebhook = {
  method: 'PATCH',
  path: '/v1/webhooks/{id}',
  summary: "Changes a webhook endpoint's URL, description or whether it is enabled",
  scope: 'webhooks:write',
  storage: { GetItem: [partitions.webhooks, partitions.eventLog], UpdateItem: [partitions.webhooks] },
  request: updateWebhookRequest,
  response: webhookSchema,
} as const satisfies Route;

export const deleteWebhook = {
  method: 'DELETE',
  path: '/v1/webhooks/{id}',
  summary: 'Deletes a webhook endpoint; its pending deliveries are dropped',
  scope: 'webhooks:write',
  storage: {
    GetItem: [partitions.webhooks],
    DeleteItem: [partitions.webhooks, partitions.webhookListings],
    UpdateItem: [partitions.webhooks],
  },
  request: getWebhookRequest,
  status: 204,
} as const satisfies Route;

export const rotateWebhookSecret = {
  method: 'POST',
  path: '/v1/webhooks/{id}/rotate-secret',
  summary: 'A new signing secret, shown only here; the old one keeps signing beside it for 24 hours',
  scope: 'webhooks:write',
  storage: { GetItem: [partitions.webhooks], UpdateItem: [partitions.webhooks] },
  request: getWebhookRequest,
  response: secretSchema,
} as const satisfies Route;

export const testWebhook = {
  method: 'POST',
  path: '/v1/webhooks/{id}/test',
  summary: 'Sends a webhook.test event to the endpoint, attempted once; at most one test a minute',
  scope: 'webhooks:write',
  // The endpoint read, its test slot taken (conditional update), the job queued.
  storage: {
    GetItem: [partitions.webhooks],
    UpdateItem: [partitions.webhooks],
    BatchWriteItem: [partitions.deliveriesDue],
  },
  request: getWebhookRequest,
  // §12: 202 and nothing more; the event's id shows in the deliveries log and the delivery's webhook-id.
  status: 202,
} as const satisfies Route;

export const getWebhookDeliveries = {
  method: 'GET',
  path: '/v1/webhooks/{id}/deliveries',
  summary: "An endpoint's delivery attempts, newest first",
  scope: 'webhooks:write',
  storage: { GetItem: [partitions.webhooks], Query: [partitions.webhookDeliveries] },
  request: getWebhookDeliveriesRequest,
  response: deliveriesPageSchema,
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const webhookRoutes = {
  createWebhook,
  getWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  testWebhook,
  getWebhookDeliveries,
} as const satisfies Record<string, Route>;
