import { endpoint } from '../lib/http/endpoint';
import { addCompaniesOnce } from '../lib/lists/add-companies';
import { listRoutes } from '../lib/lists/routes';

export const handler = endpoint(listRoutes.addListCompanies, ({ caller, params, body, idempotencyKey }) =>
  addCompaniesOnce(caller, params.id, body.companies, idempotencyKey),
);
