import { companyRoutes } from '../lib/companies/routes';
import { getFinancialsInBulk } from '../lib/companies/financials';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(companyRoutes.getCompanyFinancialsBulk, ({ body }) =>
  getFinancialsInBulk(body),
);
