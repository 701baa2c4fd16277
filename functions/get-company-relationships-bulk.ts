import { getCompanyRelationshipsBulk as route } from '../lib/companies/routes';
import { getRelationshipsInBulk } from '../lib/companies/relationships';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(route, ({ body }) => getRelationshipsInBulk(body));
