import { companyRoutes } from '../lib/companies/routes';
import { getCompanyRelationships } from '../lib/companies/relationships';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(companyRoutes.getCompanyRelationships, ({ params }) =>
  getCompanyRelationships(params),
);
