import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authorizeToken } from '../lib/tokens/authorize';

/**
 * TOKEN authorizer. Its policy allows the whole API because API Gateway caches it per token and
 * reuses it on every route; each handler checks its own route's scope.
 */
export const handler = (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> =>
  authorizeToken(event.authorizationToken, event.methodArn);
