import { getCompanyFinancialsBulk as route } from '../lib/companies/routes';
import { getFinancialsInBulk } from '../lib/companies/financials';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(route, ({ body }) => getFinancialsInBulk(body));
