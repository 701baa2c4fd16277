import document from '../docs/openapi.json';
import { getOpenApi as route } from '../lib/docs/routes';
import { endpoint } from '../lib/http/endpoint';

/** The document `npm run openapi` generated from the route table, bundled with this function. */
export const handler = endpoint(route, async () => document);
