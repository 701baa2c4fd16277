import document from '../docs/openapi.json';
import { docsRoutes } from '../lib/docs/routes';
import { endpoint } from '../lib/http/endpoint';

/** The document `npm run openapi` generated from the route table, bundled with this function. */
export const handler = endpoint(docsRoutes.getOpenApi, async () => document);
