import document from '../docs/openapi.json';
import { DOCS_CACHE_CONTROL, docsRoutes } from '../lib/docs/routes';
import { answer, endpoint } from '../lib/http/endpoint';

/** The document `npm run openapi` generated from the route table, bundled with this function. */
export const handler = endpoint(docsRoutes.getOpenApi, async () =>
  answer(document, { 'Cache-Control': DOCS_CACHE_CONTROL }),
);
