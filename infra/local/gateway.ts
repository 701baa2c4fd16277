/**
 * The local gateway: serves the route table over HTTP the way API Gateway does. It matches the
 * route (unknown path → 404, known path with another method → 405), applies the authorizer's
 * header pattern, runs the TOKEN authorizer with a per-token cache, builds the same REST proxy
 * event (version 1.0) AWS sends, and calls the very handler module that gets deployed.
 *
 * Hostile input gets a 4xx in the contract's error shape, never a 5xx: names in the request
 * (`?__proto__=1`) land in objects without a prototype; a target that does not parse, a doubled
 * Authorization header and whatever Node's own HTTP parser refuses (an over-long URL, a malformed
 * request line) are client errors. A body over the gateway's limit is refused at once and the rest
 * of it read and dropped, so the connection stays usable. Body bytes reach the handler unchanged:
 * as text when they are valid UTF-8, base64-encoded otherwise. Only storage trouble is a 503.
 */
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import Negotiator from 'negotiator';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { handlerEntry, type Route } from '../../lib/http/route';
import { authorizer, routes, workers } from '../../lib/routes';
import {
  ApiError,
  asApiError,
  MethodNotAllowedError,
  RouteNotFoundError,
  PayloadTooLargeError,
  toErrorBody,
  UnauthorizedError,
  UnavailableError,
  GATEWAY_RETRY_AFTER_SECONDS,
  ValidationError,
} from '../../lib/http/errors';
import { ANSWER_HEADERS, json, MIN_COMPRESSION_BYTES } from '../../lib/http/endpoint';
import { UNAUTHORIZED } from '../../lib/tokens/authorize';
import { bearerToken } from '../../lib/tokens/token-format';

const ROOT = path.join(__dirname, '..', '..');
/** API Gateway's own payload limit; the handlers enforce the contract's 1 MiB below it. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** After refusing a body, up to this much more of it is read and dropped; beyond that the connection is closed. */
const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
/** How long a connection whose request could not be parsed stays open for the client to read the answer. */
const LINGER_MS = 2000;
const FUNCTION_TIMEOUT_MS = 10_000;

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

interface CompiledRoute {
  route: Route;
  /** The handler file (functions/…), named after the route id. */
  entry: string;
  pattern: RegExp;
  names: string[];
}

/**
 * A request the gateway cannot make sense of (a target that does not parse, headers over the limit, a
 * body cut off): 400 (or 408, 431) VALIDATION_ERROR, with the part of the request at fault as the detail.
 */
function badRequest(message: string, part: 'request' | 'headers' | 'body', status: 400 | 408 | 431 = 400) {
  return new ValidationError(message, [{ path: part, message }], status);
}

export interface GatewayOptions {
  /** How long an authorizer answer is reused for the same Authorization header (API Gateway: 300 s). */
  authorizerCacheTtlMs?: number;
  /**
   * Whether the workers that declare `localEveryMs` (the list clean-up) run in this process that often,
   * as the stack's schedules run their Lambdas (a deleted list's companies are gone a moment after the
   * 204). Default true.
   */
  runWorkers?: boolean;
}

export function createGateway(options: GatewayOptions = {}): http.Server {
  const cacheTtlMs = options.authorizerCacheTtlMs ?? authorizer.cacheTtlSeconds * 1000;
  const compiled = Object.entries(routes).map(([routeId, route]) => compile(routeId, route));
  const handlers = new Map<string, Promise<ProxyHandler>>();
  const authorizerCache = new Map<string, { result: APIGatewayAuthorizerResult; expires: number }>();
  let authorize: Promise<AuthorizerHandler> | undefined;

  const load = <T>(entry: string): Promise<T> =>
    import(path.join(ROOT, entry)).then((module: { handler: T }) => module.handler);

  async function runAuthorizer(header: string, methodArn: string): Promise<APIGatewayAuthorizerResult> {
    const cached = authorizerCache.get(header);
    if (cached && cached.expires > Date.now()) return cached.result;
    authorize ??= load<AuthorizerHandler>(authorizer.entry);
    let result: APIGatewayAuthorizerResult;
    try {
      result = await (await authorize)({ type: 'TOKEN', authorizationToken: header, methodArn });
    } catch (error) {
      // API Gateway: the error "Unauthorized" means 401; any other failure is AUTHORIZER_FAILURE.
      throw error instanceof Error && error.message === UNAUTHORIZED
        ? new UnauthorizedError()
        : new UnavailableError(GATEWAY_RETRY_AFTER_SECONDS);
    }
    authorizerCache.set(header, { result, expires: Date.now() + cacheTtlMs });
    return result;
  }

  async function handle(req: http.IncomingMessage, requestId: string): Promise<APIGatewayProxyResult> {
    const url = requestTarget(req.url ?? '/');
    const method = (req.method ?? 'GET').toUpperCase();
    const matches = compiled.filter((c) => c.pattern.test(url.pathname));
    if (matches.length === 0) throw new RouteNotFoundError();
    const match = matches.find((c) => c.route.method === method);
    if (!match) throw new MethodNotAllowedError(matches.map((c) => c.route.method));

    const headers = requestHeaders(req);
    let authorizerContext: Record<string, unknown> | null = null;
    if (match.route.scope !== null) {
      // Header names are case-insensitive. Two Authorization headers are refused: which one would
      // count is a guess (Node keeps the first; API Gateway joins them, which fails the pattern).
      const values = headers.values('authorization');
      const header = values.length === 1 ? values[0] : undefined;
      if (header === undefined || bearerToken(header) === null) throw new UnauthorizedError();
      const methodArn = `arn:aws:execute-api:local:000000000000:local/local/${method}${url.pathname}`;
      const result = await runAuthorizer(header, methodArn);
      authorizerContext = { ...result.context, principalId: result.principalId };
    }

    const body = await readBody(req);
    const event = proxyEvent(match, method, url, headers, body, authorizerContext, requestId);
    let handler = handlers.get(match.entry);
    if (!handler) handlers.set(match.entry, (handler = load<ProxyHandler>(match.entry)));
    return (await handler)(event, lambdaContext(requestId, match.entry));
  }

  const server = http.createServer((req, res) => {
    const requestId = randomUUID();
    handle(req, requestId)
      .catch((error: unknown) => errorResult(error, requestId))
      .then((response) => {
        if (res.headersSent || res.destroyed) return;
        const { body, encoding } = compressed(req, response);
        // As the deployed gateway: no answer may be cached on the way, whoever produced it.
        res.writeHead(response.statusCode, {
          'Cache-Control': ANSWER_HEADERS['Cache-Control'],
          'x-request-id': requestId,
          ...flatHeaders(response),
          ...(encoding ? { 'Content-Encoding': encoding } : {}),
        });
        res.end(body);
      })
      .catch(() => res.destroy());
  });
  server.on('clientError', answerClientError);

  // Those workers, each one run at a time; a failed run is logged (name and message) and retried next tick.
  for (const worker of Object.values(workers)) {
    if (options.runWorkers === false || !('localEveryMs' in worker)) continue;
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      load<() => Promise<unknown>>(worker.entry)
        .then((run) => run())
        .catch((error: unknown) => {
          const { name, message } = error instanceof Error ? error : new Error(String(error));
          console.error(
            JSON.stringify({ level: 'ERROR', message: 'scheduled worker failed', error: { name, message } }),
          );
        })
        .finally(() => (running = false));
    }, worker.localEveryMs);
    timer.unref();
    server.on('close', () => clearInterval(timer));
  }
  return server;
}

/** Any failure as a contract error answer: ApiErrors as they are, storage trouble 503, anything else 500. */
function errorResult(error: unknown, requestId: string): APIGatewayProxyResult {
  if (!(error instanceof ApiError)) {
    // Name and message only: no stack trace in a log line, even locally.
    const { name, message } = error instanceof Error ? error : { name: 'Unknown', message: String(error) };
    console.error(
      JSON.stringify({ level: 'ERROR', message: 'local gateway failure', error: { name, message } }),
    );
  }
  const apiError = asApiError(error);
  return json(apiError.status, toErrorBody(apiError, requestId), requestId, apiError.headers);
}

/**
 * What Node's HTTP parser refuses before there is a request (a request line or headers over
 * 16 KiB, a malformed request line or header, a timeout) gets the contract's error shape too,
 * written straight to the socket, which is then closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A connection the client closed, or one with an answer under way, cannot take another answer.
  const busy = (socket as Duplex & { _httpMessage?: unknown })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || busy) {
    socket.destroy();
    return;
  }
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? badRequest(
          `Request line and headers must be at most ${http.maxHeaderSize / 1024} KiB in total`,
          'headers',
          431,
        )
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? badRequest('Request not received in time', 'request', 408)
        : badRequest('Malformed HTTP request', 'request');
  const requestId = randomUUID();
  const response = json(apiError.status, toErrorBody(apiError, requestId), requestId, apiError.headers);
  const head = [
    `HTTP/1.1 ${apiError.status} ${http.STATUS_CODES[apiError.status] ?? 'Bad Request'}`,
    ...Object.entries(flatHeaders(response)).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(response.body)}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${response.body}`);
  // Closed for good once the client has had time to read the answer (or has closed its side).
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * The request target (RFC 9112 §3.2): a path (`//x` stays a path, it names no host) or an absolute
 * http(s) URL, which is routed by its path. Anything else, or a URL that does not parse, is a 400.
 */
function requestTarget(target: string): URL {
  try {
    if (target.startsWith('/')) return new URL(`http://localhost${target}`);
    const url = new URL(target);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // Not a URL: answered below.
  }
  throw badRequest('Malformed request target', 'request');
}

function compile(routeId: string, route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\\?\{(\w+)\\?\}/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
  return { route, entry: handlerEntry(routeId), pattern: new RegExp(`^${source}/?$`), names };
}

/** A map keyed by names the caller chose: no prototype, so `__proto__` or `toString` is just a key. */
const namedByCaller = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

function proxyEvent(
  { route, pattern, names }: CompiledRoute,
  method: string,
  url: URL,
  headers: RequestHeaders,
  body: Buffer | null,
  authorizerContext: Record<string, unknown> | null,
  requestId: string,
): APIGatewayProxyEvent {
  const values = pattern.exec(url.pathname)!.slice(1);
  // Path parameters stay percent-encoded (as REST APIs deliver them); query values are decoded.
  let pathParameters: Record<string, string> | null = null;
  if (names.length) {
    pathParameters = namedByCaller<string>();
    names.forEach((name, i) => (pathParameters![name] = values[i]!));
  }
  // As API Gateway: the single-value map holds the last value of a repeated name.
  const query = namedByCaller<string>();
  const multiQuery = namedByCaller<string[]>();
  for (const [key, value] of url.searchParams) {
    query[key] = value;
    (multiQuery[key] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  // The bytes as received: text when they are UTF-8, base64 otherwise, so that nothing is re-encoded
  // (the handler counts the size and judges the encoding). Sent on every method, as API Gateway
  // does; the handlers ignore a GET or DELETE body.
  const text = body !== null && isUtf8(body);
  return {
    resource: route.path,
    path: url.pathname,
    httpMethod: method,
    headers: headers.single,
    multiValueHeaders: headers.multi,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters,
    stageVariables: null,
    body: body === null ? null : body.toString(text ? 'utf8' : 'base64'),
    isBase64Encoded: body !== null && !text,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: authorizerContext,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      identity: localIdentity(),
      path: `/local${url.pathname}`,
      stage: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: route.path,
    },
  };
}

function localIdentity(): APIGatewayProxyEvent['requestContext']['identity'] {
  return {
    accessKey: null,
    accountId: null,
    apiKey: null,
    apiKeyId: null,
    caller: null,
    clientCert: null,
    cognitoAuthenticationProvider: null,
    cognitoAuthenticationType: null,
    cognitoIdentityId: null,
    cognitoIdentityPoolId: null,
    principalOrgId: null,
    sourceIp: '127.0.0.1',
    user: null,
    userAgent: null,
    userArn: null,
  };
}

function lambdaContext(requestId: string, entry: string): Context {
  const deadline = Date.now() + FUNCTION_TIMEOUT_MS;
  const name = path.basename(entry, '.ts');
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

interface RequestHeaders {
  /** Name as sent → last value (API Gateway's `headers`). */
  single: Record<string, string>;
  /** Name as sent → every value (API Gateway's `multiValueHeaders`). */
  multi: Record<string, string[]>;
  /** Every value of a header, whatever the letter case of its name. */
  values(name: string): string[];
}

function requestHeaders(req: http.IncomingMessage): RequestHeaders {
  const single = namedByCaller<string>();
  const multi = namedByCaller<string[]>();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    single[raw[i]!] = raw[i + 1]!;
    (multi[raw[i]!] ??= []).push(raw[i + 1]!);
  }
  const values = (name: string) =>
    raw.flatMap((value, i) => (i % 2 === 1 && raw[i - 1]!.toLowerCase() === name ? [value] : []));
  return { single, multi, values };
}

/**
 * The body bytes, or null when there are none. Over the gateway's limit (declared or counted) it is
 * a 413 at once; the rest of the body is still read and dropped, so that the connection can carry
 * the next request without waiting (up to DISCARD_MAX_BYTES more: then the connection is closed).
 */
function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const refuse = () => {
      refused = true;
      chunks.length = 0;
      reject(new PayloadTooLargeError());
    };
    if (Number(req.headers['content-length']) > GATEWAY_MAX_BODY_BYTES) refuse();
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refused) {
        if (size > GATEWAY_MAX_BODY_BYTES + DISCARD_MAX_BYTES) req.socket.destroy();
      } else if (size > GATEWAY_MAX_BODY_BYTES) {
        refuse();
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', () => resolve(size === 0 ? null : Buffer.concat(chunks)));
    // The client went away mid-body: nobody is left to read the answer, but the request ends here.
    const incomplete = () => reject(badRequest('Request body incomplete', 'body'));
    req.on('error', incomplete);
    req.on('close', () => {
      if (!req.complete) incomplete();
    });
  });
}

/**
 * As the stage compresses (infra/stack.ts `minCompressionSize`): an answer of MIN_COMPRESSION_BYTES or
 * more, in gzip or deflate when the request's Accept-Encoding takes one (q-values honoured, gzip first).
 */
function compressed(
  req: http.IncomingMessage,
  response: APIGatewayProxyResult,
): { body: string | Buffer; encoding?: 'gzip' | 'deflate' } {
  const text = response.body ?? '';
  const raw = () => (response.isBase64Encoded ? Buffer.from(text, 'base64') : text);
  const encoding = new Negotiator(req).encoding(['gzip', 'deflate', 'identity']);
  if (encoding !== 'gzip' && encoding !== 'deflate') return { body: raw() };
  // Keyed by the answer's text itself: the same string on every call, hashed once by the engine.
  const cached = compressedCache[encoding].get(text);
  if (cached) return { body: cached, encoding };
  const bytes = Buffer.from(text, response.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length < MIN_COMPRESSION_BYTES) return { body: bytes };
  const body = encoding === 'gzip' ? gzipSync(bytes) : deflateSync(bytes);
  if (bytes.length >= CACHED_FROM_BYTES) {
    const cache = compressedCache[encoding];
    if (cache.size >= CACHED_ANSWERS) cache.delete(cache.keys().next().value!);
    cache.set(text, body);
  }
  return { body, encoding };
}

/**
 * The reference page (2.6 MB) and the OpenAPI document are the same text on every call, and gzip takes
 * ~40 ms of the page: large answers keep their compressed bytes, the last few of them.
 */
const CACHED_FROM_BYTES = 64 * 1024;
const CACHED_ANSWERS = 4;
const compressedCache = { gzip: new Map<string, Buffer>(), deflate: new Map<string, Buffer>() };

function flatHeaders(response: APIGatewayProxyResult): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(response.headers ?? {})) headers[key] = String(value);
  return headers;
}
