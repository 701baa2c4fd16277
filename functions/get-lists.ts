import { endpoint } from '../lib/http/endpoint';
import { getLists } from '../lib/lists/lists';
import { listRoutes } from '../lib/lists/routes';

export const handler = endpoint(listRoutes.getLists, ({ caller, query }) => getLists(caller, query));
