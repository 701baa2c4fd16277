/**
 * `GET /v1/usage` (contract §13): the account's plan and how much of today's quota it used. The plan
 * is the account's tier (store.ts); today's count is the gateway's own — API Gateway's usage plan on
 * AWS (api-gateway-meter.ts), the local gateway's limiter on the local stage — so the answer agrees
 * with what the gateway enforces.
 */
import { usageConfig } from '../config';
import type { Caller } from '../tokens/caller';
import { localLimiter } from './limiter';
import { PLAN_TIERS } from '../plans/plans';
import type { Usage } from './routes';
import type { UsageMeter } from './meter';
import { getAccountPlan } from './store';

const localMeter: UsageMeter = {
  requestsToday: (accountId, _plan, now) => Promise.resolve(localLimiter.requestsToday(accountId, now)),
};

/** On a deployed stage API Gateway counts (USAGE_METER); on the local stage, the local gateway. */
async function meter(): Promise<UsageMeter> {
  if (!usageConfig.fromApiGateway()) return localMeter;
  return (await import('./api-gateway-meter')).apiGatewayMeter;
}

export async function getUsage(caller: Caller, now = new Date()): Promise<Usage> {
  const plan = await getAccountPlan(caller.accountId);
  const figures = PLAN_TIERS[plan.tier];
  const requests = await (await meter()).requestsToday(caller.accountId, plan, now);
  return {
    plan: { rate: figures.rate, burst: figures.burst, dailyQuota: figures.dailyQuota },
    today: { requests, remaining: Math.max(0, figures.dailyQuota - requests) },
  };
}
