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

/*
 * Each route is its own export, so a function's bundle keeps only its route. A schema built here is
 * marked `@__PURE__` so esbuild can drop it with an unused route: esbuild does not apply valibot's
 * `@__NO_SIDE_EFFECTS__` to calls from another module (evanw/esbuild#4369).
 */
export const getCompanyLookalikes = {
  method: 'GET',
  path: '/v1/companies/{countryCode}/{companyNumber}/lookalikes',
  summary: "A company's most similar companies, best first",
  scope: 'companies:read',
  storage: { GetItem: [partitions.company] },
  request: getCompanyLookalikesRequest,
  response: companyLookalikesSchema,
} as const satisfies Route;

export const getCompanyLookalikesBulk = {
  method: 'POST',
  path: '/v1/companies/lookalikes',
  summary: 'The most similar companies of up to 100 companies, one result item per requested company',
  scope: 'companies:read',
  storage: { BatchGetItem: [partitions.company] },
  request: getCompanyLookalikesBulkRequest,
  response: /* @__PURE__ */ v.array(bulkLookalikesItemSchema),
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const lookalikeRoutes = { getCompanyLookalikes, getCompanyLookalikesBulk } as const satisfies Record<
  string,
  Route
>;
