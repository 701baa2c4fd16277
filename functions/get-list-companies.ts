import { endpoint } from '../lib/http/endpoint';
import { getListCompanies } from '../lib/lists/lists';
import { listRoutes } from '../lib/lists/routes';

export const handler = endpoint(listRoutes.getListCompanies, ({ caller, params, query }) =>
  getListCompanies(caller, params.id, query),
);
