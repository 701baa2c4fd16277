import { endpoint } from '../lib/http/endpoint';
import { getListContacts } from '../lib/lists/lists';
import { getListContacts as route } from '../lib/lists/routes';

export const handler = endpoint(route, ({ caller, params, query }) =>
  getListContacts(caller, params.id, query),
);
