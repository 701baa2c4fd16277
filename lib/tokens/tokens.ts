/**
 * API tokens: random, shown once at creation, stored only as a SHA-256 hash together with the
 * account, the user's e-mail, the scopes, an optional expiry and a revocation time.
 */
import { createHash, randomBytes } from 'node:crypto';
import { getToken, listTokens, putToken, revokeToken, type StoredToken } from './store';
import type { Caller } from './caller';
import type { Scope } from './scopes';

export type TokenInfo = Omit<StoredToken, 'hash'>;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface NewToken {
  accountId: string;
  userEmail: string;
  scopes: Scope[];
  expiresAt: string | null;
}

/**
 * An account id as keys hold it (`ACCOUNT#<account>#LIST#7`): letters, digits, `-`, `_` and `.`, up to
 * 64. A `#` would let one account's keys pass for another's (account `a#LIST#7` would own list 7 of `a`).
 */
export const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why a token cannot be created: the account id would not make safe keys. */
export class InvalidAccountIdError extends Error {
  override readonly name = 'InvalidAccountIdError';
  constructor(accountId: string) {
    super(`account id ${JSON.stringify(accountId)}: use 1 to 64 letters, digits, '-', '_' or '.' (no '#')`);
  }
}

/** A deployed stage's tokens live at most this long (a leaked token cannot outlive a year). */
export const MAX_TOKEN_DAYS = 365;
/** A deployed stage's tokens expire after this many days unless told otherwise. */
export const DEPLOYED_TOKEN_DAYS = 90;

/** Why a token cannot be created with this expiry. */
export class InvalidExpiryError extends Error {
  override readonly name = 'InvalidExpiryError';
}

/**
 * When a new token expires: `days` from now, or never (`null`). A deployed stage refuses tokens that never
 * expire or live longer than MAX_TOKEN_DAYS, and gives DEPLOYED_TOKEN_DAYS when nothing is said; the local
 * stage's tokens never expire unless told.
 */
export function tokenExpiry(
  days: number | null | undefined,
  deployed: boolean,
  now = new Date(),
): string | null {
  if (days === undefined) days = deployed ? DEPLOYED_TOKEN_DAYS : null;
  if (days === null) {
    if (deployed)
      throw new InvalidExpiryError(`a deployed stage's tokens expire within ${MAX_TOKEN_DAYS} days`);
    return null;
  }
  if (!Number.isInteger(days) || days <= 0)
    throw new InvalidExpiryError('expiry takes a whole number of days');
  if (deployed && days > MAX_TOKEN_DAYS)
    throw new InvalidExpiryError(`a deployed stage's tokens expire within ${MAX_TOKEN_DAYS} days`);
  return new Date(now.getTime() + days * 86_400_000).toISOString();
}

/**
 * Creates a token and returns it in clear: the only time it is ever seen. With an `actor` (the identity
 * of the operator creating it), an audit record names who, when and the token's id, written with it.
 */
export async function createToken(
  spec: NewToken,
  token = `cd_${randomBytes(32).toString('base64url')}`,
  actor?: string,
) {
  if (!ACCOUNT_ID.test(spec.accountId)) throw new InvalidAccountIdError(spec.accountId);
  const hash = hashToken(token);
  const stored: StoredToken = {
    ...spec,
    hash,
    tokenId: hash.slice(0, 12),
    createdAt: new Date().toISOString(),
    revokedAt: null,
  };
  await putToken(
    stored,
    actor === undefined
      ? undefined
      : {
          action: 'token.create',
          actor,
          accountId: stored.accountId,
          tokenId: stored.tokenId,
          detail: `${stored.userEmail}: ${stored.scopes.join(' ')}; expires ${stored.expiresAt ?? 'never'}`,
        },
  );
  return { token, info: withoutHash(stored) };
}

export async function listTokenInfo(): Promise<TokenInfo[]> {
  return (await listTokens()).map(withoutHash);
}

/**
 * Revokes by token id (as listed) or by the token itself; false when no such token exists. With an
 * `actor` (the identity of the operator revoking it), an audit record names who, when and the token's
 * id, written with the revocation. The authorizer
 * reads the token consistently and the gateways keep its answer at most `authorizer.cacheTtlSeconds`
 * (lib/routes.ts), so the token stops working within that.
 */
export async function revoke(tokenIdOrToken: string, actor?: string): Promise<boolean> {
  const all = await listTokens();
  const hash = hashToken(tokenIdOrToken);
  const match = all.find((t) => t.tokenId === tokenIdOrToken || t.hash === hash);
  if (!match) return false;
  await revokeToken(
    match.hash,
    new Date().toISOString(),
    actor === undefined
      ? undefined
      : { action: 'token.revoke', actor, accountId: match.accountId, tokenId: match.tokenId },
  );
  return true;
}

/** The caller a token stands for, or null when it is unknown, revoked or expired. */
export async function callerForToken(
  token: string,
  now = new Date(),
): Promise<(Caller & { tokenId: string }) | null> {
  const stored = await getToken(hashToken(token));
  if (!stored || stored.revokedAt) return null;
  if (stored.expiresAt && stored.expiresAt <= now.toISOString()) return null;
  return {
    accountId: stored.accountId,
    userEmail: stored.userEmail,
    scopes: stored.scopes,
    tokenId: stored.tokenId,
  };
}

function withoutHash({ hash: _hash, ...info }: StoredToken): TokenInfo {
  return info;
}
