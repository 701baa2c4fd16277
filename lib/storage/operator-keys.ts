/**
 * The keys of what the operator and the fair-use gate keep (account plans, audit records), apart from
 * lib/storage/keys.ts so the functions that never touch them do not bundle them.
 */
import type { Partition } from './access';
import type { Key } from './keys';

export const operatorKeys = {
  accountPlan: (accountId: string): Key => ({ pk: `PLAN#${accountId}`, sk: 'PLAN' }),
  /** The partition of a month's audit records (`2026-11`). */
  auditMonth: (month: string): string => `AUDIT#${month}`,
  /** `at`: ISO time; `id`: random, so two records of one millisecond never overwrite each other. */
  audit: (at: string, id: string): Key => ({ pk: `AUDIT#${at.slice(0, 7)}`, sk: `${at}#${id}` }),
};

/** The partitions of `operatorKeys`, as lib/storage/partitions.ts names the others. */
export const operatorPartitions = {
  accountPlan: { pattern: operatorKeys.accountPlan('*').pk },
  audit: { pattern: operatorKeys.auditMonth('*') },
} as const satisfies Record<string, Partition>;
