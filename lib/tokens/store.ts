/** Where tokens sit in the table (key patterns in lib/storage/keys.ts). Only hashes are stored. */
import { auditWrite, type AuditRecord } from '../audit/audit';
import { getItem, queryAll } from '../storage/batch';
import { tableName } from '../storage/client';
import { sendTransaction } from '../storage/transactions';
import * as keys from '../storage/keys';
import { tokenIndex } from '../storage/keys';
import type { Scope } from './scopes';

export interface StoredToken {
  /** Public handle for listing and revoking: the first 12 hex characters of the hash. */
  tokenId: string;
  hash: string;
  accountId: string;
  userEmail: string;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/**
 * A strongly consistent read: a revoke that has returned is seen by the very next check (contract §13:
 * a revoked token stops working within 5 seconds, and the gateways' caches use up most of those).
 */
export async function getToken(hash: string): Promise<StoredToken | null> {
  const item = await getItem(tableName(), keys.token(hash), { consistent: true });
  return item ? toToken(item) : null;
}

/** An audit record to write with a change (lib/audit/audit.ts): absent for tokens no operator made. */
export type TokenAudit = Omit<AuditRecord, 'at'>;

/** Stores a new token, with its audit record in the same transaction; refuses to overwrite one with the same hash. */
export async function putToken(token: StoredToken, audit?: TokenAudit): Promise<void> {
  await sendTransaction([
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.token(token.hash),
          entity: 'Token',
          ...keys.tokenListing(token.createdAt, token.tokenId),
          ...token,
          // Absent rather than NULL, so `if_not_exists(revokedAt, …)` works in revokeToken.
          expiresAt: token.expiresAt ?? undefined,
          revokedAt: token.revokedAt ?? undefined,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...(audit ? [auditWrite(audit, new Date(token.createdAt))] : []),
  ]);
}

export async function listTokens(): Promise<StoredToken[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: tokenIndex.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': tokenIndex.partitionKey },
    ExpressionAttributeValues: { ':pk': tokenIndex.partitionValue },
  });
  return items.map(toToken);
}

/**
 * Marks a token revoked (idempotent: a second revoke keeps the first time), with its audit record in the
 * same transaction.
 */
export async function revokeToken(hash: string, at: string, audit?: TokenAudit): Promise<void> {
  await sendTransaction([
    {
      Update: {
        TableName: tableName(),
        Key: keys.token(hash),
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      },
    },
    ...(audit ? [auditWrite(audit, new Date(at))] : []),
  ]);
}

function toToken(item: Record<string, unknown>): StoredToken {
  return {
    tokenId: item['tokenId'] as string,
    hash: item['hash'] as string,
    accountId: item['accountId'] as string,
    userEmail: item['userEmail'] as string,
    scopes: (item['scopes'] as Scope[] | undefined) ?? [],
    createdAt: item['createdAt'] as string,
    expiresAt: (item['expiresAt'] as string | null | undefined) ?? null,
    revokedAt: (item['revokedAt'] as string | null | undefined) ?? null,
  };
}
