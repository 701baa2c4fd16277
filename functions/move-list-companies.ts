import { endpoint } from '../lib/http/endpoint';
import { moveListCompanies } from '../lib/lists/manage';
import { listRoutes } from '../lib/lists/routes';

export const handler = endpoint(listRoutes.moveListCompanies, ({ caller, params, body }) =>
  moveListCompanies(caller, params.id, body.companies),
);
