/**
 * Webhook endpoint schemas (contract §12): the requests of the endpoints and their answers, in the
 * contract's key order. URL rules beyond "a string" (scheme, length, where it resolves) are the use
 * case's (lib/webhooks/url.ts): they need a resolver.
 */
import * as v from 'valibot';
import { jsonObject, paginationQuery, paginationSchema, textOfAtMost } from '../http/schemas';

const MAX_DESCRIPTION = 500;

/** An endpoint id in a path: any short string (a malformed one is simply unknown: 404). */
const webhookPath = /* @__PURE__ */ v.object({
  id: /* @__PURE__ */ v.pipe(/* @__PURE__ */ v.string(), /* @__PURE__ */ v.maxLength(200)),
});

/** A string or null (no description). valibot's nullable() takes a default, not a message: none here. */
const DESCRIPTION_TOO_LONG = `must be at most ${MAX_DESCRIPTION} characters`;
const description = /* @__PURE__ */ v.nullable(
  /* @__PURE__ */ textOfAtMost(MAX_DESCRIPTION, DESCRIPTION_TOO_LONG, 'must be a string or null'),
);
const url = /* @__PURE__ */ v.string('must be a string');

export const createWebhookRequest = {
  body: /* @__PURE__ */ jsonObject({ url, description: /* @__PURE__ */ v.optional(description) }),
};

export const getWebhookRequest = { params: webhookPath };

export const getWebhooksRequest = {};

export const updateWebhookRequest = {
  params: webhookPath,
  body: /* @__PURE__ */ jsonObject({
    enabled: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.boolean('must be true or false')),
    description: /* @__PURE__ */ v.optional(description),
    url: /* @__PURE__ */ v.optional(url),
  }),
};

export const getWebhookDeliveriesRequest = {
  params: webhookPath,
  query: /* @__PURE__ */ v.object(paginationQuery),
};

/** An endpoint as answered, with `more` entries after its own (the secret, once, on creation). */
const webhookWith = <const E extends v.ObjectEntries>(more: E) =>
  v.object({
    id: v.string(),
    url: v.string(),
    description: v.nullable(v.string()),
    enabled: v.boolean(),
    createdAt: v.string(),
    ...more,
  });

export const webhookSchema = /* @__PURE__ */ webhookWith({});
export type WebhookAnswer = v.InferOutput<typeof webhookSchema>;

export const createdWebhookSchema = /* @__PURE__ */ webhookWith({ secret: /* @__PURE__ */ v.string() });

export const webhooksSchema = /* @__PURE__ */ v.object({ data: /* @__PURE__ */ v.array(webhookSchema) });

export const secretSchema = /* @__PURE__ */ v.object({ secret: /* @__PURE__ */ v.string() });

export const DELIVERY_STATUSES = ['delivered', 'failed', 'pending'] as const;

export const deliverySchema = /* @__PURE__ */ v.object({
  eventId: /* @__PURE__ */ v.string(),
  attempt: /* @__PURE__ */ v.number(),
  at: /* @__PURE__ */ v.string(),
  status: /* @__PURE__ */ v.picklist(DELIVERY_STATUSES),
  responseStatus: /* @__PURE__ */ v.nullable(/* @__PURE__ */ v.number()),
  durationMs: /* @__PURE__ */ v.nullable(/* @__PURE__ */ v.number()),
  nextAttemptAt: /* @__PURE__ */ v.nullable(/* @__PURE__ */ v.string()),
});
export type DeliveryAnswer = v.InferOutput<typeof deliverySchema>;

export const deliveriesPageSchema = /* @__PURE__ */ v.object({
  data: /* @__PURE__ */ v.array(deliverySchema),
  pagination: paginationSchema,
});
