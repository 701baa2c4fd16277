import { endpoint } from '../lib/http/endpoint';
import { getCompanyLookalikes } from '../lib/lookalikes/lookalikes';
import { lookalikeRoutes } from '../lib/lookalikes/routes';

export const handler = endpoint(lookalikeRoutes.getCompanyLookalikes, ({ params, query }) =>
  getCompanyLookalikes(params, query),
);
