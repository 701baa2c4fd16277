/** The events feed (contract §12). */
import type { Route } from '../http/route';
import * as partitions from '../storage/partitions';
import { eventsPageSchema, getEventsRequest } from './schemas';

export const getEvents = {
  method: 'GET',
  path: '/v1/events',
  summary: "The account's events (updates of companies in its watched lists), oldest first, after a cursor",
  scope: 'events:read',
  // The account's lists (who sees which, Query), its last event number (GetItem) and its events (Query).
  storage: { GetItem: [partitions.eventLog], Query: [partitions.accountLists, partitions.events] },
  request: getEventsRequest,
  response: eventsPageSchema,
  cursorExpires: true,
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const eventRoutes = { getEvents } as const satisfies Record<string, Route>;
