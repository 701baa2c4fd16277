/**
 * The operator's side of fair use (contract §13): putting an account on a tier, with an audit record of
 * who changed what. On a deployed stage the account's API key is filed under the tier's usage plan first
 * (`fileKey`, infra/cli/usage-plans.ts), so the plan item never names a tier the gateway does not enforce.
 */
import { auditWrite } from '../audit/audit';
import type { PlanTier } from '../plans/plans';
import { getAccountPlan, putAccountPlan, type AccountPlan } from './store';

/** Files the account's API key under a tier's usage plan (deployed stages only): the key's and the plan's ids. */
export type FileKey = (
  accountId: string,
  tier: PlanTier,
) => Promise<{ apiKeyId: string; usagePlanId: string }>;

export async function setAccountPlan(
  accountId: string,
  tier: PlanTier,
  actor: string,
  fileKey: FileKey | null,
  now = new Date(),
): Promise<{ before: AccountPlan; after: AccountPlan }> {
  const before = await getAccountPlan(accountId);
  const filed = fileKey
    ? await fileKey(accountId, tier)
    : { apiKeyId: before.apiKeyId, usagePlanId: before.usagePlanId };
  const after: AccountPlan = { tier, ...filed, changedAt: now.toISOString() };
  // The plan and its audit record in one transaction.
  await putAccountPlan(
    accountId,
    after,
    auditWrite({ action: 'plan.change', actor, accountId, detail: `${before.tier} → ${tier}` }, now),
  );
  return { before, after };
}

/**
 * Before an account's first token on a deployed stage: its key filed under its tier's plan (the default
 * tier for a new account), or the stage would refuse its requests (no key in any usage plan: 403).
 */
export async function ensureAccountKey(accountId: string, fileKey: FileKey): Promise<void> {
  const plan = await getAccountPlan(accountId);
  if (plan.apiKeyId) return;
  await putAccountPlan(accountId, { ...plan, ...(await fileKey(accountId, plan.tier)) });
}
