/**
 * API tokens: random, shown once at creation, stored only as a SHA-256 hash together with the
 * account, the user's e-mail, the scopes, an optional expiry and a revocation time.
 */
import { createHash, randomBytes } from 'node:crypto';
import { getToken, listTokens, putToken, revokeToken, type StoredToken } from './store';
import type { Caller } from '../http/caller';
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

/** Creates a token and returns it in clear: the only time it is ever seen. */
export async function createToken(spec: NewToken, token = `cd_${randomBytes(32).toString('base64url')}`) {
  const hash = hashToken(token);
  const stored: StoredToken = {
    ...spec,
    hash,
    tokenId: hash.slice(0, 12),
    createdAt: new Date().toISOString(),
    revokedAt: null,
  };
  await putToken(stored);
  return { token, info: withoutHash(stored) };
}

export async function listTokenInfo(): Promise<TokenInfo[]> {
  return (await listTokens()).map(withoutHash);
}

/** Revokes by token id (as listed) or by the token itself; false when no such token exists. */
export async function revoke(tokenIdOrToken: string): Promise<boolean> {
  const all = await listTokens();
  const hash = hashToken(tokenIdOrToken);
  const match = all.find((t) => t.tokenId === tokenIdOrToken || t.hash === hash);
  if (!match) return false;
  await revokeToken(match.hash, new Date().toISOString());
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
