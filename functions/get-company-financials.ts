import { companyRoutes } from '../lib/companies/routes';
import { getCompanyFinancials } from '../lib/companies/financials';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(companyRoutes.getCompanyFinancials, ({ params, query }) =>
  getCompanyFinancials(params, query),
);
