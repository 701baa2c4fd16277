import { companyRoutes } from '../lib/companies/routes';
import { getDetailsInBulk } from '../lib/companies/details';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(companyRoutes.getCompanyBulk, ({ body }) => getDetailsInBulk(body));
