import { getHealth as route } from '../lib/health/routes';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(route, async () => ({ status: 'ok' as const }));
