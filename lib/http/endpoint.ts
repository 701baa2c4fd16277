/**
 * The one middleware stack every handler runs in:
 *   normalise headers and event → check the route's scope → body (size, media type, JSON) →
 *   validate params, query and body against the route's schemas → run the use case → serialise,
 * with the error responder registered last so it sees every error first.
 * Each request logs one line (route, status, duration, DynamoDB round trips) and nothing secret.
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as v from 'valibot';
import type { RequestSchemas, Route } from '../../infra/routes';
import { withRequestMetrics } from '../metrics';
import { callerFrom, type Caller } from './caller';
import {
  ApiError,
  asApiError,
  ForbiddenError,
  InvalidJsonError,
  PayloadTooLargeError,
  toErrorBody,
  UnauthorizedError,
  UnavailableError,
  UnsupportedMediaTypeError,
} from './errors';
import { parseAcceptLanguage, type Language } from './language';
import { validate } from './validation';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Contract §1: `application/json`, parameters allowed; anything else (even `+json` types) is 415. */
const JSON_MEDIA_TYPE = /^application\/json\s*(?:;.*)?$/i;

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

export interface Request<R extends Route> {
  params: Output<R['request'] extends { params: infer S } ? S : undefined>;
  query: Output<R['request'] extends { query: infer S } ? S : undefined>;
  body: Output<R['request'] extends { body: infer S } ? S : undefined>;
  /** Null only on public routes. */
  caller: R['scope'] extends null ? null : Caller;
  language: Language;
  requestId: string;
}

export type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export function endpoint<R extends Route>(
  route: R,
  run: (request: Request<R>) => Promise<Output<R['response']>>,
): Handler {
  const name = `${route.method} ${route.path}`;
  const stack = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>({
    // Answer a clean, retryable 503 just before Lambda would cut the request off.
    timeoutEarlyResponse: () => {
      throw new UnavailableError();
    },
  })
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer())
    .use({ before: ({ event }) => void requireScope(route, event) })
    .use(route.request.body ? [jsonBody()] : [])
    .use({ onError: (request) => void (request.response = errorResponse(request.error, request.event)) })
    .handler(async (event) => {
      const request = {
        params: parse(route.request, 'params', decodePathParameters(event.pathParameters)),
        query: parse(route.request, 'query', event.queryStringParameters),
        body: parse(route.request, 'body', event.body),
        caller: callerFrom(event.requestContext.authorizer),
        language: parseAcceptLanguage(event.headers['accept-language']),
        requestId: requestIdOf(event),
      } as Request<R>;
      return json(200, await run(request), request.requestId);
    });

  return (event, context) =>
    withRequestMetrics(async (metrics) => {
      const started = performance.now();
      const response = await stack(event, context);
      console.log(
        JSON.stringify({
          level: response.statusCode >= 500 ? 'ERROR' : 'INFO',
          message: 'request',
          requestId: requestIdOf(event),
          route: name,
          status: response.statusCode,
          durationMs: round(performance.now() - started),
          dynamodb: { calls: metrics.dynamodbCalls, ms: round(metrics.dynamodbMs) },
        }),
      );
      return response;
    });
}

function parse(schemas: RequestSchemas, part: keyof RequestSchemas, input: unknown): unknown {
  const schema = schemas[part];
  return schema ? validate(schema, input ?? (part === 'body' ? undefined : {}), part) : undefined;
}

function requireScope(route: Route, event: APIGatewayProxyEvent): void {
  if (route.scope === null) return;
  const caller = callerFrom(event.requestContext.authorizer);
  if (!caller) throw new UnauthorizedError();
  if (!caller.scopes.includes(route.scope)) throw new ForbiddenError(route.scope);
}

/** 413 and 415 are decided here; what is left for middy's parser to reject is malformed JSON. */
function jsonBody(): middy.MiddlewareObj<APIGatewayProxyEvent> {
  const parser = httpJsonBodyParser();
  return {
    before: async (request) => {
      const { body, isBase64Encoded, headers } = request.event;
      if (body === null || body === undefined || body === '') {
        (request.event as { body: unknown }).body = undefined;
        return;
      }
      if (Buffer.byteLength(body, isBase64Encoded ? 'base64' : 'utf8') > MAX_BODY_BYTES) {
        throw new PayloadTooLargeError();
      }
      if (!JSON_MEDIA_TYPE.test(headers['content-type'] ?? '')) throw new UnsupportedMediaTypeError();
      // Checked above, case-insensitively as RFC 9110 wants; middy's own check is case-sensitive.
      headers['content-type'] = 'application/json';
      try {
        await parser.before?.(request);
      } catch {
        throw new InvalidJsonError();
      }
    },
  };
}

function errorResponse(error: unknown, event: APIGatewayProxyEvent): APIGatewayProxyResult {
  const apiError = asApiError(error);
  if (!(error instanceof ApiError)) {
    // The name and message only: no stack, no request data, nothing from the caller's token.
    const { name, message } = error instanceof Error ? error : { name: 'Unknown', message: String(error) };
    console.error(JSON.stringify({ level: 'ERROR', message: 'unhandled error', error: { name, message } }));
  }
  const requestId = requestIdOf(event);
  return json(apiError.status, toErrorBody(apiError, requestId), requestId, apiError.headers);
}

export function json(
  status: number,
  body: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'x-request-id': requestId, ...headers },
    body: JSON.stringify(body),
  };
}

function requestIdOf(event: APIGatewayProxyEvent): string {
  return event.requestContext?.requestId ?? 'unknown';
}

/** API Gateway REST APIs hand path parameters over still percent-encoded. */
function decodePathParameters(params: APIGatewayProxyEvent['pathParameters']): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [key, value] of Object.entries(params ?? {})) {
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
