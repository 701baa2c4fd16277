/**
 * Webhook endpoint schemas (contract §12): the requests of the endpoints and their answers, in the
 * contract's key order. URL rules beyond "a string" (scheme, length, where it resolves) are the use
 * case's (lib/webhooks/url.ts): they need a resolver.
 */
import * as v from 'valibot';
import { jsonObject, paginationQuery, paginationSchema, textOfAtMost } from '../http/schemas';

const MAX_DESCRIPTION = 500;

/** An endpoint id in a path: any short string (a malformed one is simply unknown: 404). */
const webhookPath = v.object({ id: v.pipe(v.string(), v.maxLength(200)) });

/** A string or null (no description). valibot's nullable() takes a default, not a message: none here. */
const description = v.nullable(
  textOfAtMost(MAX_DESCRIPTION, `must be at most ${MAX_DESCRIPTION} characters`, 'must be a string or null'),
);
const url = v.string('must be a string');

export const createWebhookRequest = {
  body: jsonObject({ url, description: v.optional(description) }),
};

export const getWebhookRequest = { params: webhookPath };

export const getWebhooksRequest = {};

export const updateWebhookRequest = {
  params: webhookPath,
  body: jsonObject({
    enabled: v.optional(v.boolean('must be true or false')),
    description: v.optional(description),
    url: v.optional(url),
  }),
};

export const getWebhookDeliveriesRequest = { params: webhookPath, query: v.object(paginationQuery) };

export const webhookSchema = v.object({
  id: v.string(),
  url: v.string(),
  description: v.nullable(v.string()),
  enabled: v.boolean(),
  createdAt: v.string(),
});
export type WebhookAnswer = v.InferOutput<typeof webhookSchema>;

export const createdWebhookSchema = v.object({ ...webhookSchema.entries, secret: v.string() });

export const webhooksSchema = v.object({ data: v.array(webhookSchema) });

export const secretSchema = v.object({ secret: v.string() });

export const DELIVERY_STATUSES = ['delivered', 'failed', 'pending'] as const;

export const deliverySchema = v.object({
  eventId: v.string(),
  attempt: v.number(),
  at: v.string(),
  status: v.picklist(DELIVERY_STATUSES),
  responseStatus: v.nullable(v.number()),
  durationMs: v.nullable(v.number()),
  nextAttemptAt: v.nullable(v.string()),
});
export type DeliveryAnswer = v.InferOutput<typeof deliverySchema>;

export const deliveriesPageSchema = v.object({
  data: v.array(deliverySchema),
  pagination: paginationSchema,
});
