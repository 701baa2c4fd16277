import { routes } from '../infra/routes';
import { endpoint } from '../lib/http/endpoint';
import { getFinancialsInBulk } from '../lib/companies/financials';

export const handler = endpoint(routes.getCompanyFinancialsBulk, ({ body }) => getFinancialsInBulk(body));
