import { endpoint } from '../lib/http/endpoint';
import { getCompanyLegalEntities } from '../lib/legal-entities/legal-entities';
import { legalEntityRoutes } from '../lib/legal-entities/routes';

export const handler = endpoint(legalEntityRoutes.getCompanyLegalEntities, ({ params, query }) =>
  getCompanyLegalEntities(params, query),
);
