/**
 * The operator's audit trail: who created or revoked a token, or changed an account's plan, and when.
 * A record names the token by its id (the first 12 hex characters of its hash), never the token. Records
 * expire by themselves a year after they are written (the table's ttl), one partition per month.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '../storage/batch';
import { dynamodb, send, tableName } from '../storage/client';
import { operatorKeys } from '../storage/operator-keys';

/** How long an audit record is kept. */
export const AUDIT_RETENTION_DAYS = 366;

export type AuditAction = 'token.create' | 'token.revoke' | 'plan.change';

export interface AuditRecord {
  at: string;
  action: AuditAction;
  /** Who did it: the operator's identity as the CLI found it (AWS principal, or the local user). */
  actor: string;
  accountId: string;
  tokenId?: string;
  /** What changed, in a few words (`scopes companies:read`, `standard → large`). */
  detail?: string;
}

export async function recordAudit(record: Omit<AuditRecord, 'at'>, now = new Date()): Promise<AuditRecord> {
  const full: AuditRecord = { at: now.toISOString(), ...record };
  const ttl = Math.floor(now.getTime() / 1000) + AUDIT_RETENTION_DAYS * 86_400;
  await send(() =>
    dynamodb().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...operatorKeys.audit(full.at, randomUUID()), entity: 'Audit', ...full, ttl },
        // A random sort key never meets another record; the condition says so, should it ever.
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
  return full;
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
