import { companyRoutes } from '../lib/companies/routes';
import { getCompanyContacts } from '../lib/companies/details';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(companyRoutes.getCompanyContacts, ({ params, query }) =>
  getCompanyContacts(params, query),
);
