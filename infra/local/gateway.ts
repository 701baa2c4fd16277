/**
 * The local gateway: serves the route table over HTTP the way API Gateway does. It matches the
 * route (unknown path → 404, known path with another method → 405), applies the authorizer's
 * header pattern, runs the TOKEN authorizer with a per-token cache, builds the same REST proxy
 * event (version 1.0) AWS sends, and calls the very handler module that gets deployed.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { authorizer, routes, type Route } from '../routes';
import {
  ApiError,
  MethodNotAllowedError,
  RouteNotFoundError,
  PayloadTooLargeError,
  toErrorBody,
  UnauthorizedError,
  UnavailableError,
} from '../../lib/http/errors';
import { json } from '../../lib/http/endpoint';
import { UNAUTHORIZED } from '../../lib/tokens/authorize';
import { bearerToken } from '../../lib/tokens/token-format';

const ROOT = path.join(__dirname, '..', '..');
/** API Gateway's own payload limit; the handlers enforce the contract's 1 MiB below it. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
const FUNCTION_TIMEOUT_MS = 10_000;

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

export interface GatewayOptions {
  /** How long an authorizer answer is reused for the same Authorization header (API Gateway: 300 s). */
  authorizerCacheTtlMs?: number;
}

export function createGateway(options: GatewayOptions = {}): http.Server {
  const cacheTtlMs = options.authorizerCacheTtlMs ?? authorizer.cacheTtlSeconds * 1000;
  const compiled = Object.values(routes).map(compile);
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
        : new UnavailableError();
    }
    authorizerCache.set(header, { result, expires: Date.now() + cacheTtlMs });
    return result;
  }

  async function handle(req: http.IncomingMessage, requestId: string): Promise<APIGatewayProxyResult> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    const matches = compiled.filter((c) => c.pattern.test(url.pathname));
    if (matches.length === 0) throw new RouteNotFoundError();
    const match = matches.find((c) => c.route.method === method);
    if (!match) throw new MethodNotAllowedError(matches.map((c) => c.route.method));

    const headers = singleValueHeaders(req);
    let authorizerContext: Record<string, unknown> | null = null;
    if (match.route.scope !== null) {
      // Header names are case-insensitive: Node has them lower-cased in `req.headers`.
      const header = req.headers['authorization'];
      if (header === undefined || bearerToken(header) === null) throw new UnauthorizedError();
      const methodArn = `arn:aws:execute-api:local:000000000000:local/local/${method}${url.pathname}`;
      const result = await runAuthorizer(header, methodArn);
      authorizerContext = { ...result.context, principalId: result.principalId };
    }

    const body = await readBody(req);
    const event = proxyEvent(match, method, url, headers, body, authorizerContext, requestId);
    let handler = handlers.get(match.route.entry);
    if (!handler) handlers.set(match.route.entry, (handler = load<ProxyHandler>(match.route.entry)));
    return (await handler)(event, lambdaContext(requestId, match.route.entry));
  }

  return http.createServer((req, res) => {
    const requestId = randomUUID();
    handle(req, requestId)
      .catch((error: unknown) => {
        if (!(error instanceof ApiError)) {
          // Name and message only: no stack trace in a log line, even locally.
          const { name, message } =
            error instanceof Error ? error : { name: 'Unknown', message: String(error) };
          console.error(
            JSON.stringify({ level: 'ERROR', message: 'local gateway failure', error: { name, message } }),
          );
        }
        const apiError = error instanceof ApiError ? error : new UnavailableError();
        return json(apiError.status, toErrorBody(apiError, requestId), requestId, apiError.headers);
      })
      .then((response) => {
        res.writeHead(response.statusCode, { 'x-request-id': requestId, ...flatHeaders(response) });
        res.end(response.body);
      });
  });
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\\?\{(\w+)\\?\}/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
  return { route, pattern: new RegExp(`^${source}/?$`), names };
}

function proxyEvent(
  { route, pattern, names }: CompiledRoute,
  method: string,
  url: URL,
  headers: Record<string, string>,
  body: string | null,
  authorizerContext: Record<string, unknown> | null,
  requestId: string,
): APIGatewayProxyEvent {
  const values = pattern.exec(url.pathname)!.slice(1);
  // Path parameters stay percent-encoded (as REST APIs deliver them); query values are decoded.
  const pathParameters = names.length ? Object.fromEntries(names.map((n, i) => [n, values[i]!])) : null;
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) {
    query[key] = value;
    (multiQuery[key] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  return {
    resource: route.path,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters,
    stageVariables: null,
    body,
    isBase64Encoded: false,
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

function singleValueHeaders(req: http.IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers[req.rawHeaders[i]!] = req.rawHeaders[i + 1]!;
  return headers;
}

async function readBody(req: http.IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > GATEWAY_MAX_BODY_BYTES) throw new PayloadTooLargeError();
    chunks.push(chunk);
  }
  return size === 0 ? null : Buffer.concat(chunks).toString('utf8');
}

function flatHeaders(response: APIGatewayProxyResult): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(response.headers ?? {})) headers[key] = String(value);
  return headers;
}
