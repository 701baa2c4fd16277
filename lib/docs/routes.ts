/**
 * The published contract (contract §10): the OpenAPI 3.1 document and a reference page rendered from it.
 * Both are generated at build time by `npm run openapi` (docs/) from the route table; the functions
 * only hand the generated files out, so they cost nothing to compute and add nothing to other
 * functions' bundles. Their answers carry the headers every answer does (`no-store`, `x-request-id`):
 * a cache keeping them could serve a stage the document of another deployment.
 */
import * as v from 'valibot';
import type { Route } from '../http/route';

/** What the document promises at its top level (the rest is OpenAPI 3.1's own schema). */
export const openApiDocumentSchema = /* @__PURE__ */ v.looseObject({
  openapi: /* @__PURE__ */ v.string(),
  info: /* @__PURE__ */ v.looseObject({
    title: /* @__PURE__ */ v.string(),
    version: /* @__PURE__ */ v.string(),
  }),
  paths: /* @__PURE__ */ v.record(/* @__PURE__ */ v.string(), /* @__PURE__ */ v.unknown()),
});

/**
 * The reference page runs only what it carries: its inline scripts and styles. Nothing is loaded or
 * sent elsewhere (Redoc's attribution logo on a CDN, any telemetry): the browser refuses it.
 */
export const DOCS_CONTENT_SECURITY_POLICY = /* @__PURE__ */ [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/*
 * Each route is its own export, so a function's bundle keeps only its route. A schema built here is
 * marked `@__PURE__` so esbuild can drop it with an unused route: esbuild does not apply valibot's
 * `@__NO_SIDE_EFFECTS__` to calls from another module (evanw/esbuild#4369).
 */
export const getOpenApi = {
  method: 'GET',
  path: '/v1/openapi.json',
  summary: 'This API as an OpenAPI 3.1 document',
  scope: null,
  storage: {},
  request: {},
  response: openApiDocumentSchema,
} as const satisfies Route;

export const getDocs = {
  method: 'GET',
  path: '/v1/docs',
  summary: 'The API reference: a page for people, rendered from the OpenAPI document',
  scope: null,
  storage: {},
  request: {},
  response: /* @__PURE__ */ v.string(),
  mediaType: 'text/html; charset=utf-8',
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const docsRoutes = { getOpenApi, getDocs } as const satisfies Record<string, Route>;
