/** The update endpoints (contract §8.1). Titles are in the caller's language: answers carry Content-Language. */
import * as v from 'valibot';
import type { Route } from '../http/route';
import * as partitions from '../storage/partitions';
import {
  bulkUpdatesItemSchema,
  getLegalEntityUpdatesBulkRequest,
  getLegalEntityUpdatesRequest,
  legalEntityUpdatesSchema,
} from './schemas';

/*
 * Each route is its own export, so a function's bundle keeps only its route. A schema built here is
 * marked `@__PURE__` so esbuild can drop it with an unused route: esbuild does not apply valibot's
 * `@__NO_SIDE_EFFECTS__` to calls from another module (evanw/esbuild#4369).
 */
export const getLegalEntityUpdates = {
  method: 'GET',
  path: '/v1/legal-entities/{legalEntityId}/updates',
  summary: "A legal entity's updates, newest first",
  scope: 'updates:read',
  storage: { GetItem: [partitions.legalEntity], BatchGetItem: [partitions.company] },
  request: getLegalEntityUpdatesRequest,
  response: legalEntityUpdatesSchema,
  translated: true,
} as const satisfies Route;

export const getLegalEntityUpdatesBulk = {
  method: 'POST',
  path: '/v1/legal-entities/updates',
  summary: 'The updates of up to 100 legal entities, one result item per requested entity',
  scope: 'updates:read',
  storage: { BatchGetItem: [partitions.legalEntity, partitions.company] },
  request: getLegalEntityUpdatesBulkRequest,
  response: /* @__PURE__ */ v.array(bulkUpdatesItemSchema),
  translated: true,
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const updateRoutes = { getLegalEntityUpdates, getLegalEntityUpdatesBulk } as const satisfies Record<
  string,
  Route
>;
