/**
 * Stands in for `@middy/util` in the function bundles (infra/bundling.ts aliases the one to the other).
 * @middy/http-json-body-parser imports only `createError` from it, and the real module carries the text
 * of every HTTP status besides: 1.7 KB of the 2.9 KB the parser added to every function, which put
 * createList over the 250 KB bundle budget. The error has what middy's HttpError gives a reader
 * (message, cause, status, statusCode, expose); lib/http/json-body.ts maps the parser's errors by their
 * message and cause, which are the parser's own. What runs unbundled (tests, the local stage) uses
 * the real module; a middy package that needs more of it fails the bundle build, not a request.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly statusCode: number;
  readonly expose: boolean;

  constructor(code: number, message: string, options: { cause?: unknown; expose?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.status = this.statusCode = code;
    this.expose = options.expose ?? code < 500;
  }
}

export const createError = (code: number, message: string, properties: { cause?: unknown } = {}) =>
  new HttpError(code, message, properties);
