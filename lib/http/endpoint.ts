/**
 * The one middleware stack every handler runs in:
 *   normalise headers and event → check the route's scope → body (size, media type, UTF-8, JSON by
 *   @middy/http-json-body-parser, nesting depth: lib/http/json-body.ts; on every POST, PUT and PATCH that
 *   sends one, also where the route reads none) → validate params, query and body against the route's
 *   schemas, together (one 400 names every offending field) → run the use case → serialise,
 * with the error responder registered last so it sees every error first.
 * A request that failed (4xx, 5xx) or took SLOW_REQUEST_MS or more logs one line (route, status,
 * duration, DynamoDB round trips) and nothing secret; of the others, a sample (REQUEST_LOG_SAMPLE_RATE:
 * every one by default, 1 in 100 where the stack sets it). The gateway's access log has every request
 * with its route, status, latency and caller, so a line for each 200 would repeat it at a cost that is
 * a large share of a warm single GET's own CPU (docs/benchmarks.md).
 *
 * Names in the request (headers, query and path parameters) are the caller's: they are copied into
 * objects without a prototype, so `?__proto__=1` or `?toString=x` is just another unknown name.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as v from 'valibot';
import { config } from '../config';
import { withRequestMetrics, type RequestMetrics } from '../metrics';
import { touchesTable, withDeclaredAccess } from '../storage/access';
import { callerFrom, type Caller } from '../tokens/caller';
import { ANY_SCOPE } from '../tokens/scopes';
import {
  asApiError,
  ForbiddenError,
  isExpected,
  toErrorBody,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
} from './errors';
import { jsonBody } from './json-body';
import { parseAcceptLanguage, type Language } from './language';
import { endpointFeatures, type EndpointFeatures } from './features';
import { RawJson } from './raw-json';
import { checksBody, type Route } from './route';
import { validateParts } from './validation';

/**
 * The endpoint's parts a bundle carries (lib/http/features.ts): esbuild defines each as its route uses
 * it, so a part the route does not use is dropped from the bundle; undefined outside a bundle, where
 * every part is there. Each is read where it is used, so esbuild can fold it there.
 */
declare const ENDPOINT_JSON_BODY: boolean | undefined;
declare const ENDPOINT_VALIDATION: boolean | undefined;
declare const ENDPOINT_SCOPE: boolean | undefined;
declare const ENDPOINT_STORAGE: boolean | undefined;
declare const ENDPOINT_LANGUAGE: boolean | undefined;
/**
 * `true` in every function bundle (infra/bundling.ts): IAM refuses what the route's storage declaration
 * does not allow, so nothing reads the declaration in force (lib/storage/client.ts drops its check).
 */
declare const IAM_ENFORCES_STORAGE_ACCESS: true | undefined;

/** A request that takes this long is logged whatever its status (a warm one takes milliseconds). */
export const SLOW_REQUEST_MS = 1000;

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

export interface Request<R extends Route> {
  params: Output<R['request'] extends { params: infer S } ? S : undefined>;
  query: Output<R['request'] extends { query: infer S } ? S : undefined>;
  body: Output<R['request'] extends { body: infer S } ? S : undefined>;
  /** Null only on public routes. */
  caller: R['scope'] extends null ? null : Caller;
  /** The caller's language (contract §4); only on routes whose answer is `translated`. */
  language: R['translated'] extends true ? Language : undefined;
  requestId: string;
  /** The `Idempotency-Key` header, checked (contract §7.5); only on routes that declare `idempotent`. */
  idempotencyKey: R['idempotent'] extends true ? string | null : undefined;
}

/** An answer with headers of its own (`Location`), for a use case that needs more than a body. */
export class Answer<B> {
  constructor(
    readonly body: B,
    readonly headers: Record<string, string>,
  ) {}
}

export const answer = <B>(body: B, headers: Record<string, string>) => new Answer(body, headers);

type Body<R extends Route> = Output<R['response']>;

export type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export function endpoint<R extends Route>(
  route: R,
  /** The body, or the body already serialised (RawJson, for stored JSON sent as it is), or an Answer with headers. */
  run: (request: Request<R>) => Promise<Body<R> | RawJson<Body<R>> | Answer<Body<R>>>,
): Handler {
  const name = `${route.method} ${route.path}`;
  requireBundled(name, endpointFeatures(route));
  // Each step is attached with middy's own `before` and `onError`: a function whose route has no body,
  // scope or validation runs no step it does not need, and loads none of `use`'s unpacking.
  const stack = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>({
    // Answer a clean, retryable 503 just before Lambda would cut the request off.
    timeoutEarlyResponse: () => {
      throw new UnavailableError();
    },
  }).before(({ event }) => void normalizeEvent(event));
  if (typeof ENDPOINT_SCOPE === 'undefined' || ENDPOINT_SCOPE)
    stack.before(({ event }) => void requireScope(route, event));
  // A POST, PUT or PATCH with a body meets the contract's rules for bodies (§1: size, JSON media type,
  // valid JSON) whether or not its route reads one; a route without a body schema then ignores what it
  // was sent. A body on GET or DELETE is ignored whatever its type, size or content.
  if ((typeof ENDPOINT_JSON_BODY === 'undefined' || ENDPOINT_JSON_BODY) && checksBody(route)) {
    stack.use(jsonBody());
    if (!route.request.body) stack.before(ignoreBody);
  } else stack.before(ignoreBody);
  stack
    .onError((request) => void (request.response = errorResponse(request.error, request.event)))
    .handler(async (event) => {
      const [params, query, body] =
        typeof ENDPOINT_VALIDATION === 'undefined' || ENDPOINT_VALIDATION
          ? validateParts([
              [route.request.params, decodePathParameters(event.pathParameters), 'params'],
              [route.request.query, event.queryStringParameters, 'query'],
              [route.request.body, event.body, 'body'],
            ])
          : [];
      const request = {
        params,
        query,
        body,
        caller:
          typeof ENDPOINT_SCOPE === 'undefined' || ENDPOINT_SCOPE
            ? callerFrom(event.requestContext.authorizer)
            : null,
        language:
          (typeof ENDPOINT_LANGUAGE === 'undefined' || ENDPOINT_LANGUAGE) && route.translated
            ? parseAcceptLanguage(event.headers['accept-language'])
            : undefined,
        requestId: requestIdOf(event),
        idempotencyKey: route.idempotent ? idempotencyKeyOf(event) : undefined,
      } as Request<R>;
      const result = await run(request);
      const answered = result instanceof Answer ? result.body : result;
      const headers: Record<string, string> = result instanceof Answer ? { ...result.headers } : {};
      if (request.language) headers['Content-Language'] = request.language;
      const status = route.status ?? 200;
      // 204, and a route whose answer has no body (202 accepted: what was accepted is all it says).
      if (status === 204 || route.response === undefined)
        return noContent(status, request.requestId, headers);
      if (route.mediaType) return text(status, String(answered), route.mediaType, request.requestId, headers);
      return json(status, answered, request.requestId, headers);
    });

  const answer = async (event: APIGatewayProxyEvent, context: Context, metrics: RequestMetrics) => {
    const started = performance.now();
    // The declaration is put in force only where the in-process check reads it (not in a bundle: IAM checks).
    const response = await ((typeof ENDPOINT_STORAGE === 'undefined' || ENDPOINT_STORAGE) &&
    typeof IAM_ENFORCES_STORAGE_ACCESS === 'undefined'
      ? withDeclaredAccess(route.storage, () => stack(event, context))
      : stack(event, context));
    const durationMs = performance.now() - started;
    if (
      response.statusCode >= 400 ||
      durationMs >= SLOW_REQUEST_MS ||
      Math.random() < config.requestLogSampleRate()
    )
      logRequest(name, event, response, durationMs, metrics);
    return response;
  };
  // A route that never touches the table has no DynamoDB calls to count, and skips the tracking (its
  // first use adds to a cold start). The define is read in each condition, not through a local: esbuild
  // folds a define where it is written, never a variable holding it, and only a folded condition drops
  // the request scopes (lib/request-scope.ts) from a bundle that does not use them.
  return (typeof ENDPOINT_STORAGE === 'undefined' || ENDPOINT_STORAGE) && touchesTable(route.storage)
    ? (event, context) => withRequestMetrics((metrics) => answer(event, context, metrics))
    : (event, context) => answer(event, context, { dynamodbCalls: 0, dynamodbMs: 0 });
}

/**
 * The request's log line. Who called (never the token or its hash): the account, and the token id the
 * authorizer returned as principalId. Its own function, so a request that is not logged never compiles it.
 */
function logRequest(
  route: string,
  event: APIGatewayProxyEvent,
  response: APIGatewayProxyResult,
  durationMs: number,
  metrics: RequestMetrics,
): void {
  const authorizer = event.requestContext?.authorizer;
  const principalId = authorizer?.['principalId'];
  console.log(
    JSON.stringify({
      level: response.statusCode >= 500 ? 'ERROR' : 'INFO',
      message: 'request',
      requestId: requestIdOf(event),
      route,
      // Absent keys are left out by JSON.stringify: the line has them only when known.
      accountId:
        typeof ENDPOINT_SCOPE === 'undefined' || ENDPOINT_SCOPE
          ? callerFrom(authorizer)?.accountId
          : undefined,
      tokenId: typeof principalId === 'string' ? principalId : undefined,
      status: response.statusCode,
      durationMs: round(durationMs),
      dynamodb: { calls: metrics.dynamodbCalls, ms: round(metrics.dynamodbMs) },
    }),
  );
}

/**
 * Fails when the function loads if its bundle left out a part its route uses (the bundle's defines
 * disagree with the route table): a route is never answered without its body rules, validation or scope.
 */
function requireBundled(name: string, uses: EndpointFeatures): void {
  const bundled: EndpointFeatures = {
    jsonBody: typeof ENDPOINT_JSON_BODY === 'undefined' || ENDPOINT_JSON_BODY,
    validation: typeof ENDPOINT_VALIDATION === 'undefined' || ENDPOINT_VALIDATION,
    scope: typeof ENDPOINT_SCOPE === 'undefined' || ENDPOINT_SCOPE,
    storage: typeof ENDPOINT_STORAGE === 'undefined' || ENDPOINT_STORAGE,
    language: typeof ENDPOINT_LANGUAGE === 'undefined' || ENDPOINT_LANGUAGE,
  };
  const missing = (Object.keys(uses) as Array<keyof EndpointFeatures>).filter((f) => uses[f] && !bundled[f]);
  if (missing.length > 0)
    throw new Error(`${name} uses ${missing.join(', ')}, left out of its bundle (infra/bundling.ts)`);
}

function requireScope(route: Route, event: APIGatewayProxyEvent): void {
  if (route.scope === null) return;
  const caller = callerFrom(event.requestContext.authorizer);
  if (!caller) throw new UnauthorizedError();
  if (route.scope !== ANY_SCOPE && !caller.scopes.includes(route.scope))
    throw new ForbiddenError(route.scope);
}

/**
 * Header names lower-cased (they are case-insensitive; the last of two spellings wins, as with
 * API Gateway's single-value map), and every caller-named map the endpoint reads copied into an object
 * without a prototype: a name like `__proto__` or `constructor` is then an ordinary key, never Object's
 * own. The multi-value maps are read by nothing (handlers get `Request`, never the event): not copied.
 */
function normalizeEvent(event: APIGatewayProxyEvent): void {
  event.headers = ownEntries(event.headers, true);
  event.queryStringParameters = ownEntries(event.queryStringParameters, false);
  event.pathParameters = ownEntries(event.pathParameters, false);
}

function ownEntries<T>(source: Record<string, T> | null | undefined, lowerCase: boolean): Record<string, T> {
  const copy = Object.create(null) as Record<string, T>;
  if (source) {
    for (const name of Object.keys(source)) copy[lowerCase ? name.toLowerCase() : name] = source[name]!;
  }
  return copy;
}

/** Leaves out of the request a body its route does not read. */
function ignoreBody({ event }: middy.Request<APIGatewayProxyEvent>): void {
  (event as { body: unknown }).body = undefined;
}

function errorResponse(error: unknown, event: APIGatewayProxyEvent): APIGatewayProxyResult {
  const apiError = asApiError(error);
  if (!isExpected(error)) {
    // The name and message only: no stack, no request data, nothing from the caller's token.
    const { name, message } = error instanceof Error ? error : { name: 'Unknown', message: String(error) };
    console.error(JSON.stringify({ level: 'ERROR', message: 'unhandled error', error: { name, message } }));
  }
  const requestId = requestIdOf(event);
  return json(apiError.status, toErrorBody(apiError, requestId), requestId, apiError.headers);
}

/**
 * The gateway compresses an answer of this many bytes or more (gzip or deflate, as the caller's
 * Accept-Encoding allows; infra/stack.ts, and the local gateway the same): a bulk answer of 100
 * companies is JSON of many kilobytes, which compresses well.
 */
export const MIN_COMPRESSION_BYTES = 1024;

/**
 * On every answer: JSON, and never stored by a cache on the way (answers depend on the caller's token and
 * change with every import; RFC 9111 `no-store`). The gateway's own answers carry the same (infra/stack.ts).
 */
export const ANSWER_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
} as const;

export function json(
  status: number,
  body: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { ...ANSWER_HEADERS, 'x-request-id': requestId, ...headers },
    body: body instanceof RawJson ? body.text : JSON.stringify(body),
  };
}

/** A body that is not JSON (route.mediaType), sent as the handler gave it, never stored either. */
function text(
  status: number,
  body: string,
  mediaType: string,
  requestId: string,
  headers: Record<string, string>,
): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: {
      'Content-Type': mediaType,
      'Cache-Control': ANSWER_HEADERS['Cache-Control'],
      'x-request-id': requestId,
      ...headers,
    },
    body,
  };
}

function noContent(
  status: number,
  requestId: string,
  headers: Record<string, string>,
): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { 'Cache-Control': ANSWER_HEADERS['Cache-Control'], 'x-request-id': requestId, ...headers },
    body: '',
  };
}

/** Contract §7.5: 1..255 visible ASCII characters; absent is null (the request is simply not idempotent). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

function idempotencyKeyOf(event: APIGatewayProxyEvent): string | null {
  const key = event.headers['idempotency-key'];
  if (key === undefined) return null;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw ValidationError.field(
      'Idempotency-Key must be 1 to 255 visible ASCII characters',
      'Idempotency-Key',
      'must be 1 to 255 visible ASCII characters',
    );
  }
  return key;
}

function requestIdOf(event: APIGatewayProxyEvent): string {
  return event.requestContext?.requestId ?? 'unknown';
}

/** API Gateway REST APIs hand path parameters over still percent-encoded. */
function decodePathParameters(params: APIGatewayProxyEvent['pathParameters']): Record<string, string> {
  const decoded = Object.create(null) as Record<string, string>;
  if (!params) return decoded;
  for (const key of Object.keys(params)) {
    const value = params[key];
    if (value === undefined) continue;
    try {
      decoded[key] = decodeURIComponent(value);
    } catch {
      decoded[key] = value;
    }
  }
  return decoded;
}

const round = (ms: number) => Math.round(ms * 100) / 100;
