/**
 * End to end over HTTP: health, authentication and scopes (contract §1, §2.1, §5), routing (404/405),
 * request ids on every answer, and what no answer ever contains.
 */
import { randomBytes } from 'node:crypto';
import { createToken, revoke } from '../../lib/tokens/tokens';
import {
  belgianNumber,
  expectError,
  expectOk,
  financialsPath,
  identifierOf,
  rawRequest,
  TOKENS,
  useApi,
} from './http';

const api = useApi();

const tokens = { expired: '', revoked: '', fresh: '' };

beforeAll(async () => {
  const spec = { accountId: 'acme', userEmail: 'erin@acme.example', scopes: ['companies:read' as const] };
  tokens.expired = (await createToken({ ...spec, expiresAt: '2020-01-01T00:00:00.000Z' })).token;
  tokens.fresh = (
    await createToken({ ...spec, expiresAt: new Date(Date.now() + 86_400_000).toISOString() })
  ).token;
  // Revoked before its first use: the gateway caches authorizer answers per token for 300 s.
  tokens.revoked = (await createToken({ ...spec, expiresAt: null })).token;
  expect(await revoke(tokens.revoked)).toBe(true);
});

const company = () => api.records.find((r) => r.country === 'BE')!;
const companyPath = () => financialsPath('BE', company().companyNumber);
const bulkBody = () => ({
  companies: [{ countryCode: 'BE', companyNumber: company().companyNumber }],
});

/** A well-formed token that was never issued: `cd_` + 43 base64url characters. */
const neverIssued = `cd_${randomBytes(32).toString('base64url')}`;

describe('health', () => {
  test('answers GET /v1/health without a token with {"status":"ok"}', async () => {
    const response = await api.get('/v1/health', { token: null });

    expectOk(response);
    expect(response.body).toEqual({ status: 'ok' });
    expect(Object.keys(response.body)).toEqual(['status']);
  });
});

describe('authentication', () => {
  test('answers 401 Unauthorized without an Authorization header', async () => {
    const response = await api.get(companyPath(), { token: null });

    expectError(response, 401, 'UNAUTHORIZED', 'Unauthorized');
  });

  test('answers 401 on the bulk endpoint without an Authorization header', async () => {
    const response = await api.post('/v1/companies/financials', bulkBody(), { token: null });

    expectError(response, 401, 'UNAUTHORIZED', 'Unauthorized');
  });

  test.each([
    ['a bearer value that fails the header pattern', 'Bearer garbage!!'],
    ['Basic credentials', 'Basic abc'],
    ['a bare token without scheme', TOKENS.alice],
    ['an empty bearer', 'Bearer '],
    ['a too short token', 'Bearer abc'],
  ])('answers 401 Unauthorized for %s', async (_case, authorization) => {
    const response = await api.get(companyPath(), { authorization });

    expectError(response, 401, 'UNAUTHORIZED', 'Unauthorized');
  });

  test.each([
    ['lower case', 'bearer'],
    ['upper case', 'BEARER'],
    ['mixed case', 'bEaReR'],
  ])('takes the scheme in %s (RFC 9110: scheme names are case-insensitive)', async (_case, scheme) => {
    const response = await api.get(companyPath(), { authorization: `${scheme} ${TOKENS.alice}` });

    expectOk(response);
  });

  test('answers 401 for a well-formed token that was never issued', async () => {
    const response = await api.get(companyPath(), { token: neverIssued });

    expectError(response, 401, 'UNAUTHORIZED', 'Unauthorized');
  });

  test('answers 401 for an expired token', async () => {
    const response = await api.get(companyPath(), { token: tokens.expired });

    expectError(response, 401, 'UNAUTHORIZED', 'Unauthorized');
  });

  test('answers 401 for a revoked token', async () => {
    const response = await api.get(companyPath(), { token: tokens.revoked });

    expectError(response, 401, 'UNAUTHORIZED', 'Unauthorized');
  });

  test('answers 401 again for the same rejected token (cached or not)', async () => {
    const first = await api.get(companyPath(), { token: tokens.revoked });
    const second = await api.post('/v1/companies/financials', bulkBody(), { token: tokens.revoked });

    expectError(first, 401, 'UNAUTHORIZED', 'Unauthorized');
    expectError(second, 401, 'UNAUTHORIZED', 'Unauthorized');
  });

  test('answers 403 FORBIDDEN for a valid token without companies:read', async () => {
    const single = await api.get(companyPath(), { token: TOKENS.dave });
    const bulk = await api.post('/v1/companies/financials', bulkBody(), { token: TOKENS.dave });

    expectError(single, 403, 'FORBIDDEN');
    expectError(bulk, 403, 'FORBIDDEN');
  });

  test.each([
    ['alice (every scope)', TOKENS.alice],
    ['bob (companies:read only)', TOKENS.bob],
    ['carol (other account)', TOKENS.carol],
  ])('answers 200 for the demo token of %s', async (_case, token) => {
    const response = await api.get(companyPath(), { token });

    expectOk(response);
    expect(response.body.identifier).toEqual(identifierOf(company()));
  });

  test.each(['Authorization', 'authorization', 'AUTHORIZATION'])(
    'accepts the header name %s (HTTP header names are case-insensitive)',
    async (name) => {
      const response = await rawRequest(api.baseUrl(), 'GET', companyPath(), {
        [name]: `Bearer ${TOKENS.alice}`,
      });

      expectOk(response);
      expect(response.body.identifier).toEqual(identifierOf(company()));
    },
  );

  test('answers 200 for a created token that has not expired yet', async () => {
    const single = await api.get(companyPath(), { token: tokens.fresh });
    const bulk = await api.post('/v1/companies/financials', bulkBody(), { token: tokens.fresh });

    expectOk(single);
    expectOk(bulk);
    expect(bulk.body).toHaveLength(1);
  });
});

describe('routing', () => {
  test('answers 404 NOT_FOUND for an unknown path', async () => {
    const response = await api.get('/v1/nothing-here');

    expectError(response, 404, 'NOT_FOUND');
  });

  test.each([
    '/',
    '/v2/health',
    // `/v1/companies` and `/v1/companies/{countryCode}/{companyNumber}` are routes (contract §6.5).
    '/v1/companies/BE',
    '/v1/companies/BE/0403170701/x',
    '/v1/companies/BE/0403170701/financials/x',
  ])('answers 404 NOT_FOUND for %s', async (path) => {
    const response = await api.get(path, { token: null });

    expectError(response, 404, 'NOT_FOUND');
  });

  test('answers 405 METHOD_NOT_ALLOWED with Allow: POST for DELETE /v1/companies/financials', async () => {
    const response = await api.send('DELETE', '/v1/companies/financials');

    expectError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('POST');
  });

  test('answers 405 METHOD_NOT_ALLOWED with Allow: POST for GET /v1/companies/financials', async () => {
    const response = await api.get('/v1/companies/financials');

    expectError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('POST');
  });

  test('answers 405 with Allow: GET for POST on a GET route', async () => {
    const response = await api.post(companyPath(), bulkBody());
    const health = await api.post('/v1/health', {}, { token: null });

    expectError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('GET');
    expectError(health, 405, 'METHOD_NOT_ALLOWED');
    expect(health.headers.get('allow')).toBe('GET');
  });
});

describe('every answer', () => {
  /** One request of each kind the API answers so far: successes and every error the core can produce. */
  async function battery() {
    const known = company().companyNumber;
    const bulk = '/v1/companies/financials';
    return [
      await api.get('/v1/health', { token: null }),
      await api.get(companyPath()),
      await api.post(bulk, bulkBody()),
      await api.post(bulk, {
        companies: [
          { countryCode: 'XX', companyNumber: 'x' },
          { countryCode: 'BE', companyNumber: '1' },
        ],
      }),
      await api.get(financialsPath('BE', known, '?limit=0')),
      await api.get(financialsPath('BE', known, '?offset=abc')),
      await api.get(financialsPath('BE', '0403170702')),
      await api.get(financialsPath('XX', known)),
      await api.get(financialsPath('BE', belgianNumber('09999999'))),
      await api.post(bulk, { companies: [] }),
      await api.post(bulk, '{"companies":'),
      await api.send('POST', bulk, { headers: { 'Content-Type': 'text/plain' }, body: '{}' }),
      await api.post(bulk, JSON.stringify({ companies: [], padding: 'x'.repeat(1024 * 1024) })),
      await api.get(companyPath(), { token: null }),
      await api.get(companyPath(), { authorization: 'Bearer garbage!!' }),
      await api.get(companyPath(), { token: neverIssued }),
      await api.get(companyPath(), { token: tokens.expired }),
      await api.get(companyPath(), { token: tokens.revoked }),
      await api.get(companyPath(), { token: TOKENS.dave }),
      await api.get('/v1/unknown'),
      await api.send('DELETE', bulk),
    ];
  }

  test('carries a unique x-request-id header, repeated as requestId in error bodies', async () => {
    const responses = await battery();

    const ids = responses.map((r) => r.headers.get('x-request-id'));
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(responses.length);
    for (const response of responses.filter((r) => r.status >= 400)) {
      expect(response.body.requestId).toBe(response.headers.get('x-request-id'));
    }
    expect(responses.map((r) => r.status)).toEqual([
      200, 200, 200, 200, 400, 400, 400, 400, 404, 400, 400, 415, 413, 401, 401, 401, 401, 401, 403, 404, 405,
    ]);
  });

  test('is never cached on the way (Cache-Control: no-store), as the deployed gateway answers', async () => {
    await battery();
    // Every answer this file has received: handlers', the gateway's 401/404/405/413, the authorizer's.
    for (const { headers } of api.exchanges) expect(headers.get('cache-control')).toBe('no-store');
  });

  test('a 401 names the scheme it wants (WWW-Authenticate: Bearer), from the gateway or a handler', async () => {
    const responses = await battery();
    const unauthorized = responses.filter((r) => r.status === 401);
    expect(unauthorized).toHaveLength(5);
    for (const response of unauthorized) expect(response.headers.get('www-authenticate')).toBe('Bearer');
    for (const response of responses.filter((r) => r.status !== 401)) {
      expect(response.headers.get('www-authenticate')).toBeNull();
    }
  });

  test('is JSON and never contains a stack trace, an exception name, the table name or a token', async () => {
    await battery();
    const secrets = [
      api.tableName(),
      ...Object.values(TOKENS),
      tokens.expired,
      tokens.revoked,
      tokens.fresh,
      neverIssued,
    ];

    // Every answer this file has received, the battery's and all earlier tests'.
    for (const { raw, headers } of api.exchanges) {
      expect(headers.get('content-type')).toMatch(/^application\/json/);
      expect(() => JSON.parse(raw)).not.toThrow();
      expect(raw).not.toMatch(/stack/i);
      expect(raw).not.toContain('Exception');
      // A stack frame ("    at fn (file.ts:1:2)"); plain English such as "at most" is not one.
      expect(raw).not.toMatch(/\bat [^\s"]+ \(|\bat [^\s"]*:\d+:\d+/);
      for (const secret of secrets) expect(raw).not.toContain(secret);
    }
  });
});
