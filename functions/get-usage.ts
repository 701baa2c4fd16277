import { endpoint } from '../lib/http/endpoint';
import { usageRoutes } from '../lib/usage/routes';
import { getUsage } from '../lib/usage/usage';

export const handler = endpoint(usageRoutes.getUsage, ({ caller }) => getUsage(caller));
