/** Who is calling (contract §5): what a token stands for, as the authorizer attaches it to the request. */
import { isScope, type Scope } from './scopes';

export interface Caller {
  accountId: string;
  userEmail: string;
  scopes: Scope[];
}

/** The authorizer context travels as flat strings; scopes are space-separated. */
export interface AuthorizerContext {
  accountId: string;
  userEmail: string;
  scopes: string;
}

export function toAuthorizerContext(caller: Caller): AuthorizerContext {
  return { accountId: caller.accountId, userEmail: caller.userEmail, scopes: caller.scopes.join(' ') };
}

export function callerFrom(context: Record<string, unknown> | null | undefined): Caller | null {
  const accountId = context?.['accountId'];
  const userEmail = context?.['userEmail'];
  const scopes = context?.['scopes'];
  if (typeof accountId !== 'string' || typeof userEmail !== 'string' || typeof scopes !== 'string')
    return null;
  return { accountId, userEmail, scopes: scopes.split(' ').filter(isScope) };
}
