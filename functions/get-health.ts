import { healthRoutes } from '../lib/health/routes';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(healthRoutes.getHealth, async () => ({ status: 'ok' as const }));
