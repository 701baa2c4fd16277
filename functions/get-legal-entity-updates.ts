import { endpoint } from '../lib/http/endpoint';
import { updateRoutes } from '../lib/updates/routes';
import { getLegalEntityUpdates } from '../lib/updates/updates';

export const handler = endpoint(updateRoutes.getLegalEntityUpdates, ({ params, query, language }) =>
  getLegalEntityUpdates(params.legalEntityId, query, language),
);
