import { endpoint } from '../lib/http/endpoint';
import { matchCompanies } from '../lib/matching/match';
import { matchingRoutes } from '../lib/matching/routes';

export const handler = endpoint(matchingRoutes.matchCompanies, ({ body }) => matchCompanies(body.companies));
