import { endpoint } from '../lib/http/endpoint';
import { updateOneList } from '../lib/lists/manage';
import { listRoutes } from '../lib/lists/routes';

export const handler = endpoint(listRoutes.updateList, ({ caller, params, body }) =>
  updateOneList(caller, params.id, body),
);
