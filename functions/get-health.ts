import { routes } from '../infra/routes';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(routes.getHealth, async () => ({ status: 'ok' as const }));
