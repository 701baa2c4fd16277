import { routes } from '../infra/routes';
import { endpoint } from '../lib/http/endpoint';
import { getCompanyFinancials } from '../lib/companies/financials';

export const handler = endpoint(routes.getCompanyFinancials, ({ params, query }) =>
  getCompanyFinancials(params, query),
);
