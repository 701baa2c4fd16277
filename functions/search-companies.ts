import { endpoint } from '../lib/http/endpoint';
import { searchCompanies as route } from '../lib/search/routes';
import { searchCompanies } from '../lib/search/search';

export const handler = endpoint(route, ({ query }) => searchCompanies(query));
