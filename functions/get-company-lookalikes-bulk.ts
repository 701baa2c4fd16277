import { endpoint } from '../lib/http/endpoint';
import { getLookalikesInBulk } from '../lib/lookalikes/lookalikes';
import { lookalikeRoutes } from '../lib/lookalikes/routes';

export const handler = endpoint(lookalikeRoutes.getCompanyLookalikesBulk, ({ body }) =>
  getLookalikesInBulk(body),
);
