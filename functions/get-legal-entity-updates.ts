import { endpoint } from '../lib/http/endpoint';
import { getLegalEntityUpdates as route } from '../lib/updates/routes';
import { getLegalEntityUpdates } from '../lib/updates/updates';

export const handler = endpoint(route, ({ params, query, language }) =>
  getLegalEntityUpdates(params.legalEntityId, query, language),
);
