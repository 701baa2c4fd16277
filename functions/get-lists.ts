import { endpoint } from '../lib/http/endpoint';
import { getLists } from '../lib/lists/lists';
import { getLists as route } from '../lib/lists/routes';

export const handler = endpoint(route, ({ caller, query }) => getLists(caller, query));
