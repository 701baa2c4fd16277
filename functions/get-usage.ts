import { endpoint } from '../lib/http/endpoint';
import { getUsage as route } from '../lib/usage/routes';
import { getUsage } from '../lib/usage/usage';

export const handler = endpoint(route, ({ caller }) => getUsage(caller));
