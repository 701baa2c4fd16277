/**
 * The TOKEN authorizer as API Gateway runs it: once per Authorization header, its answer reused until the
 * cache's time to live runs out; its failures become the gateway's 401 or 503.
 */
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { GATEWAY_RETRY_AFTER_SECONDS, UnauthorizedError, UnavailableError } from '../../lib/http/errors';
import { authorizer } from '../../lib/routes';
import { UNAUTHORIZED } from '../../lib/tokens/authorize';
import { loadHandler } from './proxy-event';

type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

/** The authorizer's answer for a header, from the cache while it is fresh. */
export function cachedAuthorizer(
  cacheTtlMs: number,
): (header: string, methodArn: string) => Promise<APIGatewayAuthorizerResult> {
  const authorizerCache = new Map<string, { result: APIGatewayAuthorizerResult; expires: number }>();
  let authorize: Promise<AuthorizerHandler> | undefined;
  return async (header, methodArn) => {
    const cached = authorizerCache.get(header);
    if (cached && cached.expires > Date.now()) return cached.result;
    authorize ??= loadHandler<AuthorizerHandler>(authorizer.entry);
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
  };
}
