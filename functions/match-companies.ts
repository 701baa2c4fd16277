import { endpoint } from '../lib/http/endpoint';
import { matchCompanies } from '../lib/matching/match';
import { matchCompanies as route } from '../lib/matching/routes';

export const handler = endpoint(route, ({ body }) => matchCompanies(body.companies));
