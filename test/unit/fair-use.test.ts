/**
 * The plan figures as the local gateway enforces them (contract §13): a token bucket per account (burst,
 * then the steady rate), a daily quota that starts again at UTC midnight, Retry-After in whole seconds;
 * the accounts' API key values; and how long a new token may live.
 */
import { PlanLimiter } from '../../lib/usage/limiter';
import { PLAN_TIERS, secondsUntilNextUtcDay, usageKeyOf } from '../../lib/plans/plans';
import { InvalidExpiryError, MAX_TOKEN_DAYS, tokenExpiry } from '../../lib/tokens/tokens';

const at = (iso: string) => new Date(iso);
const plan = { rate: 2, burst: 3, dailyQuota: 5 };

it('lets the burst through at once, then the steady rate, and says how long to wait', () => {
  const limiter = new PlanLimiter();
  const t0 = at('2026-11-25T10:00:00.000Z');
  expect([1, 2, 3].map(() => limiter.admit('a', plan, t0).allowed)).toEqual([true, true, true]);
  expect(limiter.admit('a', plan, t0)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  // Half a second at 2 a second refills one.
  expect(limiter.admit('a', plan, at('2026-11-25T10:00:00.500Z')).allowed).toBe(true);
  expect(limiter.admit('a', plan, at('2026-11-25T10:00:00.500Z')).allowed).toBe(false);
  expect(limiter.requestsToday('a', t0)).toBe(4);
});

it('counts each account on its own', () => {
  const limiter = new PlanLimiter();
  const t0 = at('2026-11-25T10:00:00.000Z');
  for (let i = 0; i < 3; i++) limiter.admit('a', plan, t0);
  expect(limiter.admit('a', plan, t0).allowed).toBe(false);
  expect(limiter.admit('b', plan, t0).allowed).toBe(true);
  expect(limiter.requestsToday('b', t0)).toBe(1);
});

it('refuses over the daily quota until the next UTC day, and counts that day afresh', () => {
  const limiter = new PlanLimiter();
  const late = at('2026-11-25T23:59:00.000Z');
  for (let s = 0; s < 5; s++)
    expect(limiter.admit('a', plan, new Date(late.getTime() + s * 1000)).allowed).toBe(true);
  const refused = limiter.admit('a', plan, at('2026-11-25T23:59:30.000Z'));
  expect(refused).toEqual({ allowed: false, retryAfterSeconds: 30 });
  expect(limiter.admit('a', plan, at('2026-11-26T00:00:01.000Z')).allowed).toBe(true);
  expect(limiter.requestsToday('a', at('2026-11-26T00:00:01.000Z'))).toBe(1);
});

it('counts without judging for a gateway that enforces no plan, a new day afresh', () => {
  const limiter = new PlanLimiter();
  const t0 = at('2026-11-25T10:00:00.000Z');
  for (let i = 0; i < 10; i++) limiter.count('a', t0);
  expect(limiter.requestsToday('a', t0)).toBe(10);
  limiter.count('a', at('2026-11-26T00:00:00.000Z'));
  expect(limiter.requestsToday('a', at('2026-11-26T00:00:00.000Z'))).toBe(1);
});

it('waits whole seconds to the next UTC midnight', () => {
  expect(secondsUntilNextUtcDay(at('2026-11-25T23:59:59.500Z'))).toBe(1);
  expect(secondsUntilNextUtcDay(at('2026-11-25T00:00:00.000Z'))).toBe(86_400);
});

it('holds the contract defaults in the standard tier', () => {
  expect(PLAN_TIERS.standard).toEqual({ rate: 25, burst: 50, dailyQuota: 100_000 });
});

it("derives an account's API key value per stage, differently for every account and stage", () => {
  const values = new Set([
    usageKeyOf('t1', 'acme'),
    usageKeyOf('t1', 'globex'),
    usageKeyOf('t2', 'acme'),
    usageKeyOf('t1', 'acme'),
  ]);
  expect(values.size).toBe(3);
  // API Gateway takes key values of 20 to 128 characters.
  expect(usageKeyOf('t1', 'acme')).toMatch(/^[0-9a-f]{64}$/);
});

it("refuses deployed stages' tokens that never expire or outlive a year; the local stage's may", () => {
  const now = at('2026-11-25T00:00:00.000Z');
  expect(tokenExpiry(undefined, true, now)).toBe('2027-02-23T00:00:00.000Z');
  expect(tokenExpiry(MAX_TOKEN_DAYS, true, now)).toBe('2027-11-25T00:00:00.000Z');
  expect(() => tokenExpiry(null, true, now)).toThrow(InvalidExpiryError);
  expect(() => tokenExpiry(MAX_TOKEN_DAYS + 1, true, now)).toThrow(InvalidExpiryError);
  expect(() => tokenExpiry(1.5, false, now)).toThrow(InvalidExpiryError);
  expect(tokenExpiry(undefined, false, now)).toBeNull();
  expect(tokenExpiry(null, false, now)).toBeNull();
});
