import { getCompanyContacts as route } from '../lib/companies/routes';
import { getCompanyContacts } from '../lib/companies/details';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(route, ({ params, query }) => getCompanyContacts(params, query));
