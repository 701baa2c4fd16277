import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authorizerStorage, authorizeToken } from '../lib/tokens/authorize';
import { withDeclaredAccess } from '../lib/storage/access';

/**
 * TOKEN authorizer. Its policy allows the whole API because API Gateway caches it per token and
 * reuses it on every route; each handler checks its own route's scope.
 */
export const handler = (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> =>
  withDeclaredAccess(authorizerStorage, () => authorizeToken(event.authorizationToken, event.methodArn));
