import { getCompany as route } from '../lib/companies/routes';
import { getCompanyDetails } from '../lib/companies/details';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(route, ({ params }) => getCompanyDetails(params));
