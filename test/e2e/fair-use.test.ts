/**
 * End to end over HTTP on the local stage with fair use on (contract §13): each account is held to its
 * own plan (429 THROTTLED with Retry-After, in the contract's error shape) while another account keeps
 * being served; `GET /v1/usage` reports the plan and exactly the requests let through; an operator's
 * plan change shows; a revoked token stops working once the gateway's cached answer is gone.
 */
import { authorizer } from '../../lib/routes';
import { createToken, revoke } from '../../lib/tokens/tokens';
import { setAccountPlan } from '../../lib/usage/accounts';
import { PLAN_TIERS } from '../../lib/plans/plans';
import { expectError, expectOk, TOKENS, useApi, type Exchange } from './http';

const api = useApi({ fairUse: true });

/** A token of an account of its own (on the default plan, nobody else counting against it). */
async function tokenOfNewAccount(accountId: string): Promise<string> {
  const spec = { accountId, userEmail: `ops@${accountId}.example`, scopes: ['companies:read' as const] };
  return (await createToken({ ...spec, expiresAt: null })).token;
}

const usage = (token: string) => api.get('/v1/usage', { token });

it('throttles one account over its plan while another account keeps getting 200', async () => {
  const initech = await tokenOfNewAccount('initech');
  // The first call runs the authorizer; the flood then meets its cached answer, as on AWS.
  expectOk(await usage(initech));

  // Far more side by side than the standard plan's burst of 50 (refilled at 25 a second), and acme's
  // requests in between. The flood asks for a company number that fails its check (400 at once, no
  // storage), so the gateway meets the requests faster than the plan refills even on a busy machine.
  const flood = Array.from({ length: 400 }, () =>
    api.get('/v1/companies/BE/123/financials', { token: initech }),
  );
  const acme = Array.from({ length: 10 }, () => usage(TOKENS.alice));
  const [initechAnswers, acmeAnswers] = await Promise.all([Promise.all(flood), Promise.all(acme)]);

  const throttled = initechAnswers.filter((a) => a.status === 429);
  expect(throttled.length).toBeGreaterThan(0);
  for (const answer of throttled) {
    expectError(answer, 429, 'THROTTLED', 'Too many requests');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }
  expect(initechAnswers.every((a) => a.status === 400 || a.status === 429)).toBe(true);
  expect(acmeAnswers.map((a) => a.status)).toEqual(acmeAnswers.map(() => 200));

  // The count is the requests let through: the first call, the flood's 200s, and this one.
  const served = 1 + initechAnswers.filter((a) => a.status === 400).length;
  const after = await usageUntilServed(initech);
  const { dailyQuota, rate, burst } = PLAN_TIERS.standard;
  expect(after.body).toEqual({
    plan: { rate, burst, dailyQuota },
    today: { requests: served + after.attempts, remaining: dailyQuota - served - after.attempts },
  });
});

it("shows the operator's plan change at once in GET /v1/usage", async () => {
  const umbrella = await tokenOfNewAccount('umbrella');
  await setAccountPlan('umbrella', 'large', 'test-operator', null);
  const answer = await usage(umbrella);
  expectOk(answer);
  const { rate, burst, dailyQuota } = PLAN_TIERS.large;
  expect(answer.body).toEqual({
    plan: { rate, burst, dailyQuota },
    today: { requests: 1, remaining: dailyQuota - 1 },
  });
});

it('answers GET /v1/usage to any valid token, whatever its scopes, and 401 without one', async () => {
  expectOk(await usage(TOKENS.dave));
  expectError(await api.get('/v1/usage', { token: null }), 401, 'UNAUTHORIZED', 'Unauthorized');
});

it('stops a revoked token once the gateway has let go of its cached answer', async () => {
  const hooli = await tokenOfNewAccount('hooli');
  expectOk(await usage(hooli));
  expect(await revoke(hooli, 'test-operator')).toBe(true);
  // The gateway may answer from its cached authorizer answer until that runs out (4 s, under the 5 s of §13).
  await new Promise((resolve) => setTimeout(resolve, authorizer.cacheTtlSeconds * 1000 + 100));
  expectError(await usage(hooli), 401, 'UNAUTHORIZED', 'Unauthorized');
});

/**
 * `GET /v1/usage` of a throttled account, retried until it is let through (the bucket refills in a
 * fraction of a second): the answer and how many calls it took, each one that got through counted.
 */
async function usageUntilServed(token: string): Promise<Exchange & { attempts: number }> {
  for (let attempts = 1; ; attempts++) {
    const answer = await usage(token);
    if (answer.status === 200) return { ...answer, attempts };
    expect(answer.status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
