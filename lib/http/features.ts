/**
 * The parts of the shared endpoint (lib/http/endpoint.ts) a route uses, read from its descriptor in the
 * route table: the JSON body (a method that takes one), validation (a route with request schemas), the
 * caller's scope (a route that is not public), the storage tracking (a route that touches the table) and
 * the caller's language from Accept-Language (a route whose answer is translated).
 *
 * A function is bundled with them as esbuild `define`s (infra/bundling.ts `functionDefine`), so esbuild
 * drops from its bundle every part its route does not use, and the code of that part is neither parsed
 * nor compiled when the function starts. Outside a bundle (the tests, the local stage) the identifiers
 * are not defined and every part is there, used as the route says. An endpoint built for a route that
 * needs a part its bundle left out fails when the function loads, never on a request.
 */
import { touchesTable } from '../storage/access';
import { checksBody, type Route } from './route';

export interface EndpointFeatures {
  /** Body rules and JSON parsing (lib/http/json-body.ts, @middy/http-json-body-parser). */
  jsonBody: boolean;
  /** Params, query and body checked against the route's schemas (lib/http/validation.ts). */
  validation: boolean;
  /** The caller's token and scope checked (lib/tokens/caller.ts). */
  scope: boolean;
  /** The route's storage declaration in force and its DynamoDB calls counted (lib/storage/access.ts, lib/metrics.ts). */
  storage: boolean;
  /** Accept-Language read (lib/http/language.ts) and the answer's `Content-Language` set. */
  language: boolean;
}

/** The global each feature is defined as in a bundle (declared in lib/http/endpoint.ts). */
export const FEATURE_GLOBALS = {
  jsonBody: 'ENDPOINT_JSON_BODY',
  validation: 'ENDPOINT_VALIDATION',
  scope: 'ENDPOINT_SCOPE',
  storage: 'ENDPOINT_STORAGE',
  language: 'ENDPOINT_LANGUAGE',
} as const satisfies Record<keyof EndpointFeatures, string>;

export function endpointFeatures(route: Route): EndpointFeatures {
  const { params, query, body } = route.request;
  return {
    jsonBody: checksBody(route),
    validation: Boolean(params ?? query ?? body),
    scope: route.scope !== null,
    storage: touchesTable(route.storage),
    language: route.translated === true,
  };
}

/** The esbuild `define` of a route's function: each feature's global as `true` or `false`. */
export function featureDefine(route: Route): Record<string, string> {
  const features = endpointFeatures(route);
  return Object.fromEntries(
    (Object.keys(FEATURE_GLOBALS) as Array<keyof EndpointFeatures>).map((name) => [
      FEATURE_GLOBALS[name],
      String(features[name]),
    ]),
  );
}
