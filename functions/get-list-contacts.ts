import { endpoint } from '../lib/http/endpoint';
import { getListContacts } from '../lib/lists/lists';
import { listRoutes } from '../lib/lists/routes';

export const handler = endpoint(listRoutes.getListContacts, ({ caller, params, query }) =>
  getListContacts(caller, params.id, query),
);
