/**
 * The TOKEN authorizer's rule: a well-formed, known, unrevoked, unexpired bearer token gets a policy
 * that allows the whole API (the gateway caches it per token and reuses it on every route; each
 * handler checks its route's scope) and names the account's API key (`usageIdentifierKey`), whose
 * usage plan API Gateway counts the request against (contract §13). Anything else is `Unauthorized`,
 * which API Gateway turns into 401.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { toAuthorizerContext } from './caller';
import type { StorageAccess } from '../storage/access';
import { tableName } from '../storage/client';
import * as partitions from '../storage/partitions';
import { usageKeyOf } from '../plans/plans';
import { bearerToken } from './token-format';
import { callerForToken } from './tokens';

/** The authorizer reads token items by hash, nothing else (its IAM policy is made from this). */
export const authorizerStorage = { GetItem: [partitions.token] } as const satisfies StorageAccess;

/** The exact error text API Gateway maps to 401. */
export const UNAUTHORIZED = 'Unauthorized';

export async function authorizeToken(
  header: string | undefined,
  methodArn: string,
): Promise<APIGatewayAuthorizerResult> {
  const token = bearerToken(header);
  const caller = token
    ? await callerForToken(token).catch((error: unknown) => Promise.reject(failClosed(error)))
    : null;
  console.log(
    JSON.stringify({
      level: 'INFO',
      message: 'authorize',
      allowed: caller !== null,
      tokenId: caller?.tokenId,
    }),
  );
  if (!caller) throw new Error(UNAUTHORIZED);
  return {
    principalId: caller.tokenId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApi(methodArn) }],
    },
    context: { ...toAuthorizerContext(caller) },
    usageIdentifierKey: usageKeyFor(caller.accountId),
  };
}

/** An account's usage key, hashed once per process and account (the authorizer runs on every uncached call). */
const usageKeys = new Map<string, string>();
function usageKeyFor(accountId: string): string {
  let key = usageKeys.get(accountId);
  if (key === undefined) usageKeys.set(accountId, (key = usageKeyOf(tableName(), accountId)));
  return key;
}

/** arn:aws:execute-api:region:account:api/stage/GET/v1/… → arn:aws:execute-api:region:account:api/stage/* */
export function wholeApi(methodArn: string): string {
  const [apiAndStage = '', stage = ''] = methodArn.split('/');
  return `${apiAndStage}/${stage}/*`;
}

/**
 * The token could not be checked (storage throttled, timed out, unreachable): no policy, so nothing is
 * allowed, and API Gateway answers its AUTHORIZER_FAILURE (503 in infra/stack.ts). Logged here once,
 * name and message only; the error handed to the runtime carries no stack either.
 */
function failClosed(error: unknown): Error {
  const { name, message } = error instanceof Error ? error : { name: 'Unknown', message: String(error) };
  console.error(JSON.stringify({ level: 'ERROR', message: 'authorizer failure', error: { name, message } }));
  const failure = new Error('Token could not be checked');
  failure.name = 'AuthorizerFailure';
  delete failure.stack;
  return failure;
}
