/**
 * The answers API Gateway gives itself, in the contract's error shape: its refusals and failures (gateway
 * responses) and the 405 of a known path called with another method (a mock integration, no function).
 */
import {
  AuthorizationType,
  MockIntegration,
  PassthroughBehavior,
  ResponseType,
} from 'aws-cdk-lib/aws-apigateway';
import type { IResource, Method, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Validations } from 'aws-cdk-lib';
import { ANSWER_HEADERS } from '../lib/http/endpoint';
import {
  type ApiError,
  ForbiddenError,
  InternalError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  RouteNotFoundError,
  ThrottledError,
  UnauthorizedError,
  UnavailableError,
  GATEWAY_RETRY_AFTER_SECONDS,
  UnsupportedMediaTypeError,
} from '../lib/http/errors';
import type { HttpMethod } from '../lib/http/route';

/**
 * Answers API Gateway produces itself, in the contract's error shape (contract §2.1), so a client sees
 * one error format whichever layer answered. They are the same error classes the handlers throw
 * (lib/http/errors.ts): status, code, message and headers come from there.
 */
/** What a spent daily quota answers on AWS (contract §13: API Gateway answers from a fixed response). */
export const QUOTA_RETRY_AFTER_ON_AWS_SECONDS = 3600;

const gatewayErrors: Array<[ResponseType, ApiError]> = [
  [ResponseType.UNAUTHORIZED, new UnauthorizedError()],
  [ResponseType.ACCESS_DENIED, new ForbiddenError()],
  // A REST API answers an unknown route with MISSING_AUTHENTICATION_TOKEN (403); the contract says 404.
  [ResponseType.MISSING_AUTHENTICATION_TOKEN, new RouteNotFoundError()],
  [ResponseType.RESOURCE_NOT_FOUND, new RouteNotFoundError()],
  [ResponseType.THROTTLED, new ThrottledError()],
  // A spent daily quota starts again at the next UTC midnight; a gateway response is fixed, so on AWS it
  // says a fixed hour (contract §13), where the local stage says the seconds to midnight.
  [ResponseType.QUOTA_EXCEEDED, new ThrottledError(QUOTA_RETRY_AFTER_ON_AWS_SECONDS)],
  // The gateway's own limit is 10 MB; the handlers enforce the contract's 1 MiB below that.
  [ResponseType.REQUEST_TOO_LARGE, new PayloadTooLargeError()],
  [ResponseType.UNSUPPORTED_MEDIA_TYPE, new UnsupportedMediaTypeError()],
  [ResponseType.INTEGRATION_TIMEOUT, new UnavailableError(GATEWAY_RETRY_AFTER_SECONDS)],
  // The function could not be invoked (Lambda throttled it, or the invoke failed): try again shortly.
  [ResponseType.INTEGRATION_FAILURE, new UnavailableError(GATEWAY_RETRY_AFTER_SECONDS)],
  // What the WAF's managed rules refuse (its rate rules answer 429 themselves, infra/waf.ts): sending it
  // again will be refused again, so 403, never 429 (contract §13).
  [ResponseType.WAF_FILTERED, new ForbiddenError()],
  [ResponseType.AUTHORIZER_FAILURE, new UnavailableError(GATEWAY_RETRY_AFTER_SECONDS)],
  [ResponseType.AUTHORIZER_CONFIGURATION_ERROR, new UnavailableError(GATEWAY_RETRY_AFTER_SECONDS)],
  [ResponseType.DEFAULT_5XX, new InternalError()],
];

/**
 * Any other 4xx the gateway produces. Without request validators or API keys, what is left are refusals
 * of the caller's credentials (a SigV4 signature, an expired or invalid key): 403 FORBIDDEN.
 */
const otherClientError = new ForbiddenError();

/** The contract's error body; API Gateway fills in `$context.requestId`. */
function errorBodyTemplate({ message, code }: { message: string; code: string }): string {
  return JSON.stringify({ message, code, requestId: '$context.requestId' });
}

function addErrorResponse(
  api: RestApi,
  type: ResponseType,
  body: { message: string; code: string },
  statusCode?: string,
  headers: Record<string, string> = {},
  /** Headers mapped from the request's context (`context.…`), not literals. */
  mappedHeaders: Record<string, string> = {},
): void {
  api.addGatewayResponse(`${type.responseType}Response`, {
    type,
    ...(statusCode ? { statusCode } : {}),
    templates: { 'application/json': errorBodyTemplate(body) },
    responseHeaders: {
      'x-request-id': 'context.requestId',
      'Cache-Control': `'${ANSWER_HEADERS['Cache-Control']}'`,
      // Static header values are quoted literals in API Gateway mappings.
      ...Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`])),
      ...mappedHeaders,
    },
  });
}

/** Every answer the gateway produces itself, in the contract's error shape. */
export function addGatewayResponses(api: RestApi): void {
  for (const [type, error] of gatewayErrors) {
    addErrorResponse(api, type, error, String(error.status), error.headers);
  }
  addErrorResponse(api, ResponseType.DEFAULT_4XX, otherClientError, String(otherClientError.status));
}

/**
 * Contract §2.1: a known path with another method answers 405. API Gateway prefers an explicit method
 * over ANY, so this mock only answers the methods the path does not have. It reveals nothing, so it
 * needs no token.
 */
export function addMethodNotAllowed(resource: IResource, methods: HttpMethod[]): void {
  const error = new MethodNotAllowedError(methods);
  const method = resource.addMethod(
    'ANY',
    new MockIntegration({
      requestTemplates: { 'application/json': JSON.stringify({ statusCode: error.status }) },
      // A non-JSON body gets the contract's 415 (UNSUPPORTED_MEDIA_TYPE) instead of reaching the mock.
      passthroughBehavior: PassthroughBehavior.NEVER,
      integrationResponses: [
        {
          statusCode: String(error.status),
          responseTemplates: {
            'application/json': errorBodyTemplate(error),
          },
          responseParameters: {
            'method.response.header.Allow': `'${error.headers['Allow']}'`,
            'method.response.header.Content-Type': "'application/json'",
            'method.response.header.Cache-Control': `'${ANSWER_HEADERS['Cache-Control']}'`,
            'method.response.header.x-request-id': 'context.requestId',
          },
        },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      methodResponses: [
        {
          statusCode: String(error.status),
          responseParameters: {
            'method.response.header.Allow': true,
            'method.response.header.Content-Type': true,
            'method.response.header.Cache-Control': true,
            'method.response.header.x-request-id': true,
          },
        },
      ],
    },
  );
  acknowledgePublicMethod(
    method,
    `the 405 answer for ${resource.path} calls no function and returns no data`,
  );
}

export function acknowledgePublicMethod(method: Method, why: string): void {
  Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason: `No authorization: ${why}.` });
}
