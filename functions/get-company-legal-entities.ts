import { endpoint } from '../lib/http/endpoint';
import { getCompanyLegalEntities } from '../lib/legal-entities/legal-entities';
import { getCompanyLegalEntities as route } from '../lib/legal-entities/routes';

export const handler = endpoint(route, ({ params, query }) => getCompanyLegalEntities(params, query));
