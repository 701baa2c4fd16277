import { endpoint } from '../lib/http/endpoint';
import { addCompaniesOnce } from '../lib/lists/add-companies';
import { addListCompanies as route } from '../lib/lists/routes';

export const handler = endpoint(route, ({ caller, params, body, idempotencyKey }) =>
  addCompaniesOnce(caller, params.id, body.companies, idempotencyKey),
);
