import { getCompanyBulk as route } from '../lib/companies/routes';
import { getDetailsInBulk } from '../lib/companies/details';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(route, ({ body }) => getDetailsInBulk(body));
