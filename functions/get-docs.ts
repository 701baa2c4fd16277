import page from '../docs/reference.json';
import { DOCS_CONTENT_SECURITY_POLICY, getDocs as route } from '../lib/docs/routes';
import { answer, endpoint } from '../lib/http/endpoint';

/** The reference page `npm run openapi` rendered with Redoc (scripts inlined: no CDN), bundled with this function. */
export const handler = endpoint(route, async () =>
  answer(page, { 'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY }),
);
