/**
 * Fair use (contract §13): every account has a plan — a steady rate, a burst and a daily quota of
 * requests — counted per account, never shared between accounts. Plans come in tiers; the operator
 * puts an account on a tier (`npm run account -- plan`). On AWS each tier is an API Gateway usage plan
 * and each account has one API key in it, which the authorizer names for every request
 * (`usageIdentifierKey`); the local gateway enforces the same figures itself (lib/usage/limiter.ts).
 */
import { createHash } from 'node:crypto';

export interface Plan {
  /** Steady requests per second. */
  rate: number;
  /** Requests that may come at once above the steady rate. */
  burst: number;
  /** Requests per UTC day. */
  dailyQuota: number;
}

/** The tiers an operator can put an account on; `standard` holds the contract's defaults. */
export const PLAN_TIERS = {
  standard: { rate: 25, burst: 50, dailyQuota: 100_000 },
  large: { rate: 100, burst: 200, dailyQuota: 1_000_000 },
  bulk: { rate: 250, burst: 500, dailyQuota: 10_000_000 },
} as const satisfies Record<string, Plan>;

export type PlanTier = keyof typeof PLAN_TIERS;
export const DEFAULT_TIER: PlanTier = 'standard';

export function isPlanTier(value: string): value is PlanTier {
  return Object.hasOwn(PLAN_TIERS, value);
}

/**
 * The value of an account's API Gateway key on a stage. API keys here are not credentials — the
 * stage takes them from the authorizer only (API key source AUTHORIZER), never from a caller's
 * header — they only name whose counter a request goes to, so the value is derived from the stage's
 * table and the account (the authorizer needs no extra read). Key values must differ between stages
 * of one AWS account, hence the table.
 */
export function usageKeyOf(tableName: string, accountId: string): string {
  return createHash('sha256').update(`usage-key\n${tableName}\n${accountId}`).digest('hex');
}

/** Seconds from `now` to the next UTC midnight, when a day's quota starts again (at least 1). */
export function secondsUntilNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/** `2026-11-25`: the UTC day a request counts towards. */
export const utcDay = (now: Date): string => now.toISOString().slice(0, 10);
