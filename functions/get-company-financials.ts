import { getCompanyFinancials as route } from '../lib/companies/routes';
import { getCompanyFinancials } from '../lib/companies/financials';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(route, ({ params, query }) => getCompanyFinancials(params, query));
