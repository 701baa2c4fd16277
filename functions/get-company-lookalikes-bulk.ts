import { endpoint } from '../lib/http/endpoint';
import { getLookalikesInBulk } from '../lib/lookalikes/lookalikes';
import { getCompanyLookalikesBulk as route } from '../lib/lookalikes/routes';

export const handler = endpoint(route, ({ body }) => getLookalikesInBulk(body));
