import { endpoint } from '../lib/http/endpoint';
import { getCompanyLookalikes } from '../lib/lookalikes/lookalikes';
import { getCompanyLookalikes as route } from '../lib/lookalikes/routes';

export const handler = endpoint(route, ({ params, query }) => getCompanyLookalikes(params, query));
