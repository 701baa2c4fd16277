/** (ext) Matching what a customer knows about companies to ours, with a confidence (contract §6.5). */
import * as v from 'valibot';
import type { Route } from '../http/route';
import * as partitions from '../storage/partitions';
import { matchCompaniesRequest, matchItemSchema } from './schemas';

export const matchCompanies = {
  method: 'POST',
  path: '/v1/companies/match',
  summary: 'Up to 5 candidate companies per entry (number, VAT, website, name, place), with a confidence',
  scope: 'companies:read',
  storage: {
    BatchGetItem: [partitions.company, partitions.matchIndex],
    Query: [partitions.searchWords],
  },
  request: matchCompaniesRequest,
  response: /* @__PURE__ */ v.array(matchItemSchema),
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const matchingRoutes = { matchCompanies } as const satisfies Record<string, Route>;
