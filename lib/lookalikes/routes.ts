/** The lookalike endpoints (contract §6.3). */
import * as v from 'valibot';
import type { Route } from '../http/route';
import * as partitions from '../storage/partitions';
import {
  bulkLookalikesItemSchema,
  companyLookalikesSchema,
  getCompanyLookalikesBulkRequest,
  getCompanyLookalikesRequest,
} from './schemas';

export const lookalikeRoutes = {
  getCompanyLookalikes: {
    method: 'GET',
    path: '/v1/companies/{countryCode}/{companyNumber}/lookalikes',
    summary: "A company's most similar companies, best first",
    scope: 'companies:read',
    storage: { GetItem: [partitions.company] },
    request: getCompanyLookalikesRequest,
    response: companyLookalikesSchema,
  },
  getCompanyLookalikesBulk: {
    method: 'POST',
    path: '/v1/companies/lookalikes',
    summary: 'The most similar companies of up to 100 companies, one result item per requested company',
    scope: 'companies:read',
    storage: { BatchGetItem: [partitions.company] },
    request: getCompanyLookalikesBulkRequest,
    response: v.array(bulkLookalikesItemSchema),
  },
} as const satisfies Record<string, Route>;
