/** (ext) Finding companies (contract §6.5): by name, number or VAT number. */
import type { Route } from '../http/route';
import * as partitions from '../storage/partitions';
import { searchAnswerSchema, searchCompaniesRequest } from './schemas';

export const searchCompanies = {
  method: 'GET',
  path: '/v1/companies',
  summary: 'Companies by name (a prefix of each word is enough), company number or VAT number, best first',
  scope: 'companies:read',
  storage: {
    Query: [partitions.searchWords],
    BatchGetItem: [partitions.company, partitions.matchIndex],
  },
  request: searchCompaniesRequest,
  response: searchAnswerSchema,
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const searchRoutes = { searchCompanies } as const satisfies Record<string, Route>;
