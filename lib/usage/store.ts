/** Where an account's plan sits in the table (key pattern in lib/storage/keys.ts). */
import { getItem } from '../storage/batch';
import { tableName } from '../storage/client';
import { sendTransaction, type TransactItems } from '../storage/transactions';
import { operatorKeys } from '../storage/operator-keys';
import { DEFAULT_TIER, isPlanTier, type PlanTier } from '../plans/plans';

export interface AccountPlan {
  tier: PlanTier;
  /** On a deployed stage: the id of the account's API Gateway key (GET /v1/usage reads its usage)… */
  apiKeyId: string | null;
  /** …and of the usage plan it is filed under (its tier's). */
  usagePlanId: string | null;
  /** When the operator last set it; null for an account still on the default. */
  changedAt: string | null;
}

/** The account's plan; an account nobody put on a tier is on the default one. */
export async function getAccountPlan(accountId: string): Promise<AccountPlan> {
  const item = await getItem(tableName(), operatorKeys.accountPlan(accountId));
  const tier = typeof item?.['tier'] === 'string' && isPlanTier(item['tier']) ? item['tier'] : DEFAULT_TIER;
  return {
    tier,
    apiKeyId: typeof item?.['apiKeyId'] === 'string' ? item['apiKeyId'] : null,
    usagePlanId: typeof item?.['usagePlanId'] === 'string' ? item['usagePlanId'] : null,
    changedAt: typeof item?.['changedAt'] === 'string' ? item['changedAt'] : null,
  };
}

/** Stores the account's plan; with `audit` (lib/audit/audit.ts `auditWrite`), in one transaction with it. */
export async function putAccountPlan(
  accountId: string,
  plan: AccountPlan,
  audit?: TransactItems[number],
): Promise<void> {
  await sendTransaction([
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...operatorKeys.accountPlan(accountId),
          entity: 'AccountPlan',
          accountId,
          tier: plan.tier,
          ...(plan.apiKeyId ? { apiKeyId: plan.apiKeyId } : {}),
          ...(plan.usagePlanId ? { usagePlanId: plan.usagePlanId } : {}),
          ...(plan.changedAt ? { changedAt: plan.changedAt } : {}),
        },
      },
    },
    ...(audit ? [audit] : []),
  ]);
}
