import { endpoint } from '../lib/http/endpoint';
import { createOneList } from '../lib/lists/manage';
import { createList as route } from '../lib/lists/routes';

export const handler = endpoint(route, ({ caller, body }) => createOneList(caller, body));
