import { endpoint } from '../lib/http/endpoint';
import { getListCompanies } from '../lib/lists/lists';
import { getListCompanies as route } from '../lib/lists/routes';

export const handler = endpoint(route, ({ caller, params, query }) =>
  getListCompanies(caller, params.id, query),
);
