import { endpoint } from '../lib/http/endpoint';
import { deleteOneList } from '../lib/lists/manage';
import { listRoutes } from '../lib/lists/routes';

export const handler = endpoint(listRoutes.deleteList, async ({ caller, params }) => {
  await deleteOneList(caller, params.id);
  return undefined;
});
