import { endpoint } from '../lib/http/endpoint';
import { getOneList } from '../lib/lists/manage';
import { listRoutes } from '../lib/lists/routes';

export const handler = endpoint(listRoutes.getList, ({ caller, params }) => getOneList(caller, params.id));
