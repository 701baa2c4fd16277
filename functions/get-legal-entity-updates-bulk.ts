import { endpoint } from '../lib/http/endpoint';
import { getLegalEntityUpdatesBulk as route } from '../lib/updates/routes';
import { getUpdatesInBulk } from '../lib/updates/updates';

export const handler = endpoint(route, ({ body, language }) => getUpdatesInBulk(body, language));
