import { endpoint } from '../lib/http/endpoint';
import { createOneList } from '../lib/lists/manage';
import { listRoutes } from '../lib/lists/routes';

export const handler = endpoint(listRoutes.createList, ({ caller, body }) => createOneList(caller, body));
