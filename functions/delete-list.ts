import { endpoint } from '../lib/http/endpoint';
import { deleteOneList } from '../lib/lists/manage';
import { deleteList as route } from '../lib/lists/routes';

export const handler = endpoint(route, async ({ caller, params }) => {
  await deleteOneList(caller, params.id);
  return undefined;
});
