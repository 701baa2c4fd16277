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

export const updateRoutes = {
  getLegalEntityUpdates: {
    method: 'GET',
    path: '/v1/legal-entities/{legalEntityId}/updates',
    summary: "A legal entity's updates, newest first",
    scope: 'updates:read',
    storage: { GetItem: [partitions.legalEntity], BatchGetItem: [partitions.company] },
    request: getLegalEntityUpdatesRequest,
    response: legalEntityUpdatesSchema,
    translated: true,
  },
  getLegalEntityUpdatesBulk: {
    method: 'POST',
    path: '/v1/legal-entities/updates',
    summary: 'The updates of up to 100 legal entities, one result item per requested entity',
    scope: 'updates:read',
    storage: { BatchGetItem: [partitions.legalEntity, partitions.company] },
    request: getLegalEntityUpdatesBulkRequest,
    response: v.array(bulkUpdatesItemSchema),
    translated: true,
  },
} as const satisfies Record<string, Route>;
