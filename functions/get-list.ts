import { endpoint } from '../lib/http/endpoint';
import { getOneList } from '../lib/lists/manage';
import { getList as route } from '../lib/lists/routes';

export const handler = endpoint(route, ({ caller, params }) => getOneList(caller, params.id));
