import { endpoint } from '../lib/http/endpoint';
import { searchRoutes } from '../lib/search/routes';
import { searchCompanies } from '../lib/search/search';

export const handler = endpoint(searchRoutes.searchCompanies, ({ query }) => searchCompanies(query));
