/**
 * The operator's audit trail: who created or revoked a token, or changed an account's plan, and when.
 * A record names the token by its id (the first 12 hex characters of its hash), never the token. Records
 * expire by themselves a year after they are written (the table's ttl), one partition per month.
 *
 * A record is written in the same transaction as the change it tells of (`auditWrite` is one action of
 * it): there is no change without its record, nor a record of a change that did not happen. The actor
 * is the identity the operator's credentials resolve to (infra/cli/operator.ts), never a name given.
 */
import { randomUUID } from 'node:crypto';
import { queryAll } from '../storage/batch';
import { tableName } from '../storage/client';
import { operatorKeys } from '../storage/operator-keys';
import type { TransactItems } from '../storage/transactions';

/** How long an audit record is kept. */
export const AUDIT_RETENTION_DAYS = 366;

export type AuditAction = 'token.create' | 'token.revoke' | 'plan.change';

export interface AuditRecord {
  at: string;
  action: AuditAction;
  /**
   * Who did it: the principal the operator's AWS credentials resolve to (an ARN), or on the local stage
   * the OS user marked local (`local:alice`).
   */
  actor: string;
  accountId: string;
  tokenId?: string;
  /** What changed, in a few words (`scopes companies:read`, `standard → large`). */
  detail?: string;
}

/** The action of a transaction that writes the record of a change (the change is its other action). */
export function auditWrite(record: Omit<AuditRecord, 'at'>, now = new Date()): TransactItems[number] {
  const full: AuditRecord = { at: now.toISOString(), ...record };
  const ttl = Math.floor(now.getTime() / 1000) + AUDIT_RETENTION_DAYS * 86_400;
  return {
    Put: {
      TableName: tableName(),
      Item: { ...operatorKeys.audit(full.at, randomUUID()), entity: 'Audit', ...full, ttl },
      // A random sort key never meets another record; the condition says so, should it ever.
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** A month's records (`2026-11`), oldest first. */
export async function auditRecords(month: string): Promise<AuditRecord[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': operatorKeys.auditMonth(month) },
  });
  return items.map((item) => {
    const { at, action, actor, accountId, tokenId, detail } = item as unknown as AuditRecord;
    return {
      at,
      action,
      actor,
      accountId,
      ...(tokenId ? { tokenId } : {}),
      ...(detail ? { detail } : {}),
    };
  });
}
