/**
 * What the local gateway hands a function: the handler module that gets deployed, the REST proxy event
 * (version 1.0) AWS sends for a matched route, and a Lambda context with the deployed timeout.
 */
import { isUtf8 } from 'node:buffer';
import path from 'node:path';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { handlerEntry, type Route } from '../../lib/http/route';
import { namedByCaller, type RequestHeaders } from './requests';

const ROOT = path.join(__dirname, '..', '..');
const FUNCTION_TIMEOUT_MS = 10_000;

/** The `handler` export of an entry (functions/…, relative to the project root), loaded once per caller. */
export const loadHandler = <T>(entry: string): Promise<T> =>
  import(path.join(ROOT, entry)).then((module: { handler: T }) => module.handler);

export interface CompiledRoute {
  route: Route;
  /** The handler file (functions/…), named after the route id. */
  entry: string;
  pattern: RegExp;
  names: string[];
}

export function compile(routeId: string, route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\\?\{(\w+)\\?\}/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
  return { route, entry: handlerEntry(routeId), pattern: new RegExp(`^${source}/?$`), names };
}

export function proxyEvent(
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

export function lambdaContext(requestId: string, entry: string): Context {
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
