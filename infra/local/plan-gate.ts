/**
 * The local stage's usage plans (contract §13): after the authorizer, a request counts against its
 * account's plan, as API Gateway counts it against the usage plan of the account's key on AWS; over the
 * rate, the burst or the day's quota it is refused with 429 THROTTLED and Retry-After. The account's tier
 * is read from the table and kept a few seconds, so an operator's change applies within that.
 */
import { ThrottledError } from '../../lib/http/errors';
import { localLimiter } from '../../lib/usage/limiter';
import { PLAN_TIERS, type PlanTier } from '../../lib/plans/plans';
import { getAccountPlan } from '../../lib/usage/store';

/** How long an account's tier is reused before it is read again. */
const PLAN_CACHE_MS = 5_000;

/**
 * The gate, enforcing each account's plan; with `enforce` false it only counts (`GET /v1/usage` stays
 * true), for tests that send more side by side than any plan lets through.
 */
export function planGate(enforce: boolean): (accountId: string) => Promise<void> {
  const tiers = new Map<string, { tier: PlanTier; expires: number }>();
  return async (accountId) => {
    if (!enforce) {
      localLimiter.count(accountId);
      return;
    }
    let cached = tiers.get(accountId);
    if (!cached || cached.expires <= Date.now()) {
      const { tier } = await getAccountPlan(accountId);
      cached = { tier, expires: Date.now() + PLAN_CACHE_MS };
      tiers.set(accountId, cached);
    }
    const admission = localLimiter.admit(accountId, PLAN_TIERS[cached.tier]);
    if (!admission.allowed) throw new ThrottledError(admission.retryAfterSeconds);
  };
}
