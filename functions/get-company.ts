import { companyRoutes } from '../lib/companies/routes';
import { getCompanyDetails } from '../lib/companies/details';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(companyRoutes.getCompany, ({ params }) => getCompanyDetails(params));
