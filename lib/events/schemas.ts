/**
 * Event schemas (contract §12): the feed's request and answer, and the event itself (the feed's items
 * and a webhook delivery's body), in the contract's key order.
 */
import * as v from 'valibot';
import { identifierSchema } from '../companies/schemas';
import { integerQuery } from '../http/schemas';
import { updateSchema } from '../updates/schemas';

/** §12: `limit` 1..500, default 100. */
export const EVENTS_PAGE = { min: 1, max: 500, default: 100 } as const;

export const getEventsRequest = {
  query: /* @__PURE__ */ v.object({
    after: /* @__PURE__ */ v.optional(
      /* @__PURE__ */ v.pipe(
        /* @__PURE__ */ v.string('must be a cursor this endpoint gave'),
        /* @__PURE__ */ v.maxLength(200, 'must be a cursor this endpoint gave'),
      ),
    ),
    limit: /* @__PURE__ */ integerQuery(EVENTS_PAGE),
  }),
};

export const companyUpdateEventSchema = /* @__PURE__ */ v.object({
  id: /* @__PURE__ */ v.string(),
  type: /* @__PURE__ */ v.literal('company.update'),
  createdAt: /* @__PURE__ */ v.string(),
  data: /* @__PURE__ */ v.object({
    company: identifierSchema,
    legalEntityId: /* @__PURE__ */ v.string(),
    lists: /* @__PURE__ */ v.array(/* @__PURE__ */ v.number()),
    update: updateSchema,
  }),
});

export const testEventSchema = /* @__PURE__ */ v.object({
  id: /* @__PURE__ */ v.string(),
  type: /* @__PURE__ */ v.literal('webhook.test'),
  createdAt: /* @__PURE__ */ v.string(),
  data: /* @__PURE__ */ v.object({}),
});

export const eventSchema = /* @__PURE__ */ v.union([companyUpdateEventSchema, testEventSchema]);

export const eventsPageSchema = /* @__PURE__ */ v.object({
  data: /* @__PURE__ */ v.array(companyUpdateEventSchema),
  next: /* @__PURE__ */ v.string(),
});
