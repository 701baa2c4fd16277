/** Real API Gateway REST proxy events (version 1.0) for calling handlers directly. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { toAuthorizerContext, type Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';

export const ALICE: Caller = { accountId: 'acme', userEmail: 'alice@acme.example', scopes: [...SCOPES] };

export interface EventSpec {
  method?: string;
  resource?: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  /** Null = no authorizer context (a public route). */
  caller?: Caller | null;
}

export function proxyEvent(spec: EventSpec): APIGatewayProxyEvent {
  const requestId = randomUUID();
  const body =
    spec.body === undefined ? null : typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
  const ownsContentType = Object.keys(spec.headers ?? {}).some(
    (name) => name.toLowerCase() === 'content-type',
  );
  const headers = {
    ...(body !== null && !ownsContentType ? { 'Content-Type': 'application/json' } : {}),
    ...spec.headers,
  };
  const caller = spec.caller === undefined ? ALICE : spec.caller;
  return {
    resource: spec.resource ?? '/',
    path: spec.resource ?? '/',
    httpMethod: spec.method ?? (body === null ? 'GET' : 'POST'),
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: spec.query ?? null,
    multiValueQueryStringParameters: spec.query
      ? Object.fromEntries(Object.entries(spec.query).map(([k, v]) => [k, [v]]))
      : null,
    pathParameters: spec.pathParameters ?? null,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      authorizer: caller ? { ...toAuthorizerContext(caller), principalId: 'test' } : null,
      stage: 'test',
      httpMethod: spec.method ?? 'GET',
      path: spec.resource ?? '/',
      resourcePath: spec.resource ?? '/',
      accountId: '000000000000',
      apiId: 'test',
      protocol: 'HTTP/1.1',
      requestTimeEpoch: Date.now(),
      resourceId: 'test',
      identity: { sourceIp: '127.0.0.1' } as APIGatewayProxyEvent['requestContext']['identity'],
    },
  };
}

export const lambdaContext = {
  getRemainingTimeInMillis: () => 10_000,
  awsRequestId: 'test',
} as unknown as Context;

/** Parsed answer of a handler call. */
export async function call(
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>,
  spec: EventSpec,
): Promise<{
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
  raw: string;
  requestId: string;
}> {
  const event = proxyEvent(spec);
  const result = await handler(event, lambdaContext);
  return {
    status: result.statusCode,
    headers: result.headers ?? {},
    raw: result.body,
    body: (result.body ? JSON.parse(result.body) : null) as unknown,
    requestId: event.requestContext.requestId,
  };
}
