import { endpoint } from '../lib/http/endpoint';
import { updateRoutes } from '../lib/updates/routes';
import { getUpdatesInBulk } from '../lib/updates/updates';

export const handler = endpoint(updateRoutes.getLegalEntityUpdatesBulk, ({ body, language }) =>
  getUpdatesInBulk(body, language),
);
