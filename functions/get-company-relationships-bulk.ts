import { companyRoutes } from '../lib/companies/routes';
import { getRelationshipsInBulk } from '../lib/companies/relationships';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(companyRoutes.getCompanyRelationshipsBulk, ({ body }) =>
  getRelationshipsInBulk(body),
);
