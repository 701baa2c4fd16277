/** The legal entity endpoints (contract §6.4). */
import type { Route } from '../http/route';
import * as partitions from '../storage/partitions';
import { companyLegalEntitiesSchema, getCompanyLegalEntitiesRequest } from './schemas';

export const getCompanyLegalEntities = {
  method: 'GET',
  path: '/v1/companies/{countryCode}/{companyNumber}/legal-entities',
  summary: "A company's own legal entity, then the entities it controls (more than 50 %, directly)",
  scope: 'companies:read',
  storage: { GetItem: [partitions.company] },
  request: getCompanyLegalEntitiesRequest,
  response: companyLegalEntitiesSchema,
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const legalEntityRoutes = { getCompanyLegalEntities } as const satisfies Record<string, Route>;
