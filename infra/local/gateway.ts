/**
 * The local gateway: serves the route table over HTTP the way API Gateway does. It matches the
 * route (unknown path → 404, known path with another method → 405), applies the authorizer's
 * header pattern, runs the TOKEN authorizer with a per-token cache, counts the request against its
 * account's plan (429 over it), builds the same REST proxy event (version 1.0) AWS sends, and calls
 * the very handler module that gets deployed.
 *
 * Hostile input gets a 4xx in the contract's error shape, never a 5xx: names in the request
 * (`?__proto__=1`) land in objects without a prototype; a target that does not parse, a doubled
 * Authorization header and whatever Node's own HTTP parser refuses (an over-long URL, a malformed
 * request line) are client errors. A body over the gateway's limit is refused at once and the rest
 * of it read and dropped, so the connection stays usable. Body bytes reach the handler unchanged:
 * as text when they are valid UTF-8, base64-encoded otherwise. Only storage trouble is a 503.
 *
 * Here the server and the way of a request; the request's reading in requests.ts, the event and context
 * in proxy-event.ts, the authorizer's cache in authorizer-cache.ts, the accounts' plans in plan-gate.ts,
 * the answers in answers.ts.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ANSWER_HEADERS } from '../../lib/http/endpoint';
import { MethodNotAllowedError, RouteNotFoundError, UnauthorizedError } from '../../lib/http/errors';
import { isolateRequestScopes } from '../../lib/request-scope';
import { authorizer, routes } from '../../lib/routes';
import { bearerToken } from '../../lib/tokens/token-format';
import { compressed, errorResult, flatHeaders } from './answers';
import { cachedAuthorizer } from './authorizer-cache';
import { planGate } from './plan-gate';
import { compile, lambdaContext, loadHandler, proxyEvent } from './proxy-event';
import { answerClientError, readBody, requestHeaders, requestTarget } from './requests';
import { runScheduledWorkers } from './scheduled-workers';

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface GatewayOptions {
  /** How long an authorizer answer is reused for the same Authorization header (as the stage: `authorizer.cacheTtlSeconds`). */
  authorizerCacheTtlMs?: number;
  /**
   * Whether each account's plan is enforced (contract §13: rate, burst, daily quota; 429 THROTTLED over
   * it), as API Gateway's usage plans do on AWS. Default true; when false, requests are still counted.
   */
  fairUse?: boolean;
  /**
   * Whether the workers that declare `localEveryMs` (the list clean-up) run in this process that often,
   * as the stack's schedules run their Lambdas (a deleted list's companies are gone a moment after the
   * 204). Default true.
   */
  runWorkers?: boolean;
}

export function createGateway(options: GatewayOptions = {}): http.Server {
  // Requests, the scheduled workers and (in tests) fixtures overlap in this one process: each run keeps
  // its storage declaration and metrics to itself, never seen by code running beside it.
  isolateRequestScopes();
  const cacheTtlMs = options.authorizerCacheTtlMs ?? authorizer.cacheTtlSeconds * 1000;
  const compiled = Object.entries(routes).map(([routeId, route]) => compile(routeId, route));
  const handlers = new Map<string, Promise<ProxyHandler>>();
  const runAuthorizer = cachedAuthorizer(cacheTtlMs);
  const admit = planGate(options.fairUse !== false);

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
      // As API Gateway: the usage plan of the key the authorizer named is checked before any function runs.
      await admit(String(result.context?.['accountId']));
    }

    const body = await readBody(req);
    const event = proxyEvent(match, method, url, headers, body, authorizerContext, requestId);
    let handler = handlers.get(match.entry);
    if (!handler) handlers.set(match.entry, (handler = loadHandler<ProxyHandler>(match.entry)));
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

  if (options.runWorkers !== false) runScheduledWorkers(server);
  return server;
}
