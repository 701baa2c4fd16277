import { endpoint } from '../lib/http/endpoint';
import { updateOneList } from '../lib/lists/manage';
import { updateList as route } from '../lib/lists/routes';

export const handler = endpoint(route, ({ caller, params, body }) => updateOneList(caller, params.id, body));
