/**
 * Storage faults injected in the real protocol path: a TCP proxy (test/support/fault-proxy.ts) between
 * the SDK and DynamoDB Local delays, drops or throttles requests. For a read, a bulk read, a write and
 * the authorizer: the caller gets 503 UNAVAILABLE with Retry-After, never a 500, never a partial write,
 * and the answer comes from the storage client's own budget, well inside the function timeout.
 */
import { loadDemoLists } from '../../infra/local/demo-lists';
import {
  rebuildClient,
  REQUEST_PATH_TIMEOUTS,
  storageBudgetMs,
  TIMEOUT_VARIABLES,
} from '../../lib/storage/client';
import { createToken } from '../../lib/tokens/tokens';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { expectError, financialsPath, useApi, type Api, type Exchange } from './http';

/** The local gateway's function timeout (as deployed: infra/function.ts). */
const FUNCTION_TIMEOUT_MS = 10_000;
/** Longer than one attempt's request timeout (REQUEST_PATH_TIMEOUTS): every attempt times out. */
const DELAY_MS = 2_500;

let proxy: FaultProxy;
beforeAll(async () => {
  // Before anything builds the storage client: every call of this file goes through the proxy.
  proxy = await startFaultProxy(process.env['DYNAMODB_ENDPOINT']!);
  process.env['DYNAMODB_ENDPOINT'] = proxy.endpoint;
});
// Only request paths here: the background list clean-up would meet the faults too, and log them. The
// authorizer's answer is kept for the whole file (the stage keeps it 4 s): the faults meet the handlers.
const api: Api = useApi({ runWorkers: false, authorizerCacheTtlMs: 60 * 60_000 });
afterAll(() => proxy.close());
afterEach(() => proxy.set('pass'));

let requestLines: Array<{ status: number; route: string; durationMs: number; dynamodb: { calls: number } }>;
let errorLines: string[];
beforeEach(() => {
  requestLines = [];
  errorLines = [];
  jest.spyOn(console, 'log').mockImplementation((line: unknown) => {
    try {
      const parsed = JSON.parse(String(line)) as { message?: string };
      if (parsed.message === 'request') requestLines.push(parsed as (typeof requestLines)[number]);
    } catch {
      // Not a log line of ours.
    }
  });
  jest.spyOn(console, 'error').mockImplementation((line: unknown) => void errorLines.push(String(line)));
});
afterEach(() => jest.restoreAllMocks());

beforeAll(async () => {
  expect(await loadDemoLists(api.records)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  // The data loaded with the patient timeouts (a busy machine must not fail the load); from here on the
  // timeouts the stack gives the deployed route functions and the authorizer.
  process.env[TIMEOUT_VARIABLES.connectionMs] = String(REQUEST_PATH_TIMEOUTS.connectionMs);
  process.env[TIMEOUT_VARIABLES.requestMs] = String(REQUEST_PATH_TIMEOUTS.requestMs);
  rebuildClient();
  // The gateway caches alice's authorizer answer, as API Gateway does: the faults below meet the handlers.
  expect((await api.get(financialsPath(api.records[0]!.country, api.records[0]!.companyNumber))).status).toBe(
    200,
  );
});

/** 503 UNAVAILABLE in the contract's shape, Retry-After 2–5 s, answered by the handler within its budget. */
function expectUnavailable(response: Exchange): void {
  expectError(response, 503, 'UNAVAILABLE', 'Service unavailable, retry later');
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(2);
  expect(retryAfter).toBeLessThanOrEqual(5);
  const line = requestLines.at(-1)!;
  expect(line.status).toBe(503);
  // The storage client gave up (not Lambda's clock): within its budget, inside the function timeout.
  expect(storageBudgetMs(REQUEST_PATH_TIMEOUTS)).toBeLessThan(FUNCTION_TIMEOUT_MS);
  expect(line.durationMs).toBeLessThan(FUNCTION_TIMEOUT_MS);
}

const company = (i: number) => api.records[i]!;
const readPath = () => financialsPath(company(0).country, company(0).companyNumber);

describe.each([
  ['throttled (ProvisionedThroughputExceededException)', 'throttle'],
  ['timing out (no answer within the request timeout)', 'delay'],
  ['dropping connections', 'drop'],
] as const)('storage %s', (_, mode) => {
  beforeEach(() => proxy.set(mode, { delayMs: DELAY_MS }));

  it('a single read answers 503 with Retry-After, after the client retried', async () => {
    expectUnavailable(await api.get(readPath()));
    expect(requestLines.at(-1)!.dynamodb.calls).toBe(3);
  });

  it('a bulk read of 100 companies answers 503 as a whole, no half-filled 200', async () => {
    const companies = Array.from({ length: 100 }, (_, i) => ({
      country: company(i % 90).country,
      companyNumber: company(i % 90).companyNumber,
    }));
    expectUnavailable(await api.post('/v1/companies/financials', { companies }));
  });

  it('a write answers 503 and writes nothing; the same call later adds the companies once', async () => {
    proxy.set('pass');
    const before = (await api.get('/v1/lists/2/companies?limit=500')).body;
    // Companies no list 2 holds yet (the demo fills lists from the first records).
    const first = { throttle: 60, delay: 70, drop: 80 }[mode];
    const entries = [first, first + 1, first + 2].map((i) => ({
      country: company(i).country,
      companyNumber: company(i).companyNumber,
    }));
    // Everything the PUT reads passes; its one transaction is the call that fails.
    proxy.set(mode, { delayMs: DELAY_MS, operation: 'TransactWriteItems' });
    const key = `fault-${mode}`;
    const put = () =>
      api.send('PUT', '/v1/lists/2/companies', {
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify({ companies: entries }),
      });
    expectUnavailable(await put());

    proxy.set('pass');
    const after = (await api.get('/v1/lists/2/companies?limit=500')).body;
    expect(after).toEqual(before);
    const retried = await put();
    expect(retried.status).toBe(200);
    const added = Number(/added (\d+) compan/.exec(retried.body.message)?.[1]);
    expect(added).toBe(3);
    const final = (await api.get('/v1/lists/2/companies?limit=500')).body;
    expect(final.pagination.total).toBe(before.pagination.total + added);
    // A list's counters stay equal to its members (overview vs. pages).
    const list = (await api.get('/v1/lists?limit=500')).body.data.find((l: { id: number }) => l.id === 2);
    expect(list.amountOfCompanies).toBe(final.pagination.total);
  });

  it('the authorizer fails closed: 503, logged once without a stack, not cached', async () => {
    proxy.set('pass');
    const { token } = await createToken({
      accountId: 'acme',
      userEmail: `fault-${mode}@acme.example`,
      scopes: ['companies:read'],
      expiresAt: null,
    });
    proxy.set(mode, { delayMs: DELAY_MS });
    errorLines = [];
    const refused = await api.get(readPath(), { token });
    expectError(refused, 503, 'UNAVAILABLE', 'Service unavailable, retry later');
    expect(refused.headers.get('retry-after')).toBe('3');
    expect(requestLines).toEqual([]); // no handler ran
    expect(errorLines).toHaveLength(1);
    const logged = JSON.parse(errorLines[0]!) as Record<string, unknown>;
    expect(logged).toMatchObject({ level: 'ERROR', message: 'authorizer failure' });
    expect(errorLines[0]).not.toMatch(/\bat\s|stack/i);
    expect(errorLines[0]).not.toContain(token);

    proxy.set('pass');
    expect((await api.get(readPath(), { token })).status).toBe(200);
  });
});

describe('short storage trouble', () => {
  it('is absorbed by the retries: one throttled answer, then a 200', async () => {
    proxy.set('throttle', { times: 1 });
    const response = await api.get(readPath());
    expect(response.status).toBe(200);
    expect(proxy.faulted).toBeGreaterThan(0);
    expect(requestLines.at(-1)!.dynamodb.calls).toBe(2);
  });
});

describe('a transaction meeting another one on the same list', () => {
  const createList = async (name: string) => {
    const created = await api.post('/v1/lists', { name, type: 'STATIC' });
    expect(created.status).toBe(201);
    return (created.body as { id: number }).id;
  };

  it('a rename reads the list again and tries again: 200, renamed once', async () => {
    const id = await createList('Conflict rename');
    const faultedBefore = proxy.faulted;
    proxy.set('conflict', { operation: 'TransactWriteItems', times: 1 });
    const renamed = await api.send('PATCH', `/v1/lists/${id}`, {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Conflict renamed' }),
    });
    expect(proxy.faulted - faultedBefore).toBe(1);
    expect(renamed.status).toBe(200);
    expect((await api.get(`/v1/lists/${id}`)).body).toMatchObject({ name: 'Conflict renamed' });
  });

  it('a DELETE tries again: 204 and the list is gone; one that keeps meeting conflicts answers 503', async () => {
    const id = await createList('Conflict delete');
    proxy.set('conflict', { operation: 'TransactWriteItems', times: 1 });
    expect((await api.send('DELETE', `/v1/lists/${id}`)).status).toBe(204);
    expect((await api.get(`/v1/lists/${id}`)).status).toBe(404);

    const kept = await createList('Conflict kept');
    proxy.set('conflict', { operation: 'TransactWriteItems' });
    expectUnavailable(await api.send('DELETE', `/v1/lists/${kept}`));
    proxy.set('pass');
    expect((await api.get(`/v1/lists/${kept}`)).status).toBe(200);
  });
});

describe('unreachable storage', () => {
  it('answers 503 when nothing listens where DynamoDB should be', async () => {
    await proxy.close();
    expectUnavailable(await api.get(readPath()));
  });
});

afterAll(() => {
  // Not one answer of this file was a 500.
  expect(api.exchanges.filter((e) => e.status >= 500 && e.status !== 503)).toEqual([]);
});
