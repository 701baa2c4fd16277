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
  query: v.object({
    after: v.optional(
      v.pipe(
        v.string('must be a cursor this endpoint gave'),
        v.maxLength(200, 'must be a cursor this endpoint gave'),
      ),
    ),
    limit: integerQuery(EVENTS_PAGE.min, EVENTS_PAGE.max, EVENTS_PAGE.default),
  }),
};

export const companyUpdateEventSchema = v.object({
  id: v.string(),
  type: v.literal('company.update'),
  createdAt: v.string(),
  data: v.object({
    company: identifierSchema,
    legalEntityId: v.string(),
    lists: v.array(v.number()),
    update: updateSchema,
  }),
});

export const testEventSchema = v.object({
  id: v.string(),
  type: v.literal('webhook.test'),
  createdAt: v.string(),
  data: v.object({}),
});

export const eventSchema = v.union([companyUpdateEventSchema, testEventSchema]);

export const eventsPageSchema = v.object({
  data: v.array(companyUpdateEventSchema),
  next: v.string(),
});
