import { getCompanyRelationships as route } from '../lib/companies/routes';
import { getCompanyRelationships } from '../lib/companies/relationships';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(route, ({ params }) => getCompanyRelationships(params));
