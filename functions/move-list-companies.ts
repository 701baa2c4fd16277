import { endpoint } from '../lib/http/endpoint';
import { moveListCompanies } from '../lib/lists/manage';
import { moveListCompanies as route } from '../lib/lists/routes';

export const handler = endpoint(route, ({ caller, params, body }) =>
  moveListCompanies(caller, params.id, body.companies),
);
