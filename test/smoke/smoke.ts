/**
 * `npm run smoke -- --base-url URL --token TOKEN [--company BE/0403170701]`: checks a running stage
 * (the local one, or a deployed one after `cdk deploy`) answers as the contract says. Read-only: it
 * changes no data (the list checks use an unknown list id and bodies the API must refuse). Exit code 0 when every check passes.
 */
import { parseArgs } from 'node:util';

interface Check {
  name: string;
  run: () => Promise<void>;
}

const { values } = parseArgs({
  options: { 'base-url': { type: 'string' }, token: { type: 'string' }, company: { type: 'string' } },
});
const baseUrl = values['base-url']?.replace(/\/+$/, '');
const token = values.token;
if (!baseUrl || !token) {
  console.error('usage: npm run smoke -- --base-url URL --token TOKEN [--company COUNTRY/NUMBER]');
  process.exit(2);
}
const auth = { Authorization: `Bearer ${token}` };

async function request(path: string, init: RequestInit = {}) {
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${init.method ?? 'GET'} ${path}: body is not JSON: ${text.slice(0, 120)}`);
  }
  return { status: response.status, headers: response.headers, body: body as Record<string, unknown> };
}

function expectThat(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

async function expectError(path: string, init: RequestInit, status: number, code: string): Promise<void> {
  const answer = await request(path, init);
  expectThat(
    answer.status === status,
    `expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`,
  );
  expectThat(answer.body['code'] === code, `expected code ${code}, got ${String(answer.body['code'])}`);
  expectThat(typeof answer.body['requestId'] === 'string', 'error body has no requestId');
  expectThat(answer.headers.get('x-request-id') !== null, 'no x-request-id header');
}

const checks: Check[] = [
  {
    name: 'health answers without a token',
    run: async () => {
      const answer = await request('/v1/health');
      expectThat(answer.status === 200 && answer.body['status'] === 'ok', `got ${answer.status}`);
    },
  },
  {
    name: 'no token → 401',
    run: () => expectError('/v1/companies/BE/0403170701/financials', {}, 401, 'UNAUTHORIZED'),
  },
  {
    name: 'unknown route → 404',
    run: () => expectError('/v1/no-such-route', { headers: auth }, 404, 'NOT_FOUND'),
  },
  {
    name: 'wrong method → 405',
    run: () =>
      expectError('/v1/companies/financials', { method: 'DELETE', headers: auth }, 405, 'METHOD_NOT_ALLOWED'),
  },
  {
    name: 'invalid company number → 400',
    run: () =>
      expectError('/v1/companies/BE/0403170702/financials', { headers: auth }, 400, 'VALIDATION_ERROR'),
  },
  {
    name: 'bulk financials answers per item',
    run: async () => {
      const answer = await request('/v1/companies/financials', {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ companies: [{ countryCode: 'BE', companyNumber: '0403170702' }] }),
      });
      expectThat(answer.status === 200, `got ${answer.status} ${JSON.stringify(answer.body)}`);
      const items = answer.body as unknown as Array<Record<string, unknown>>;
      expectThat(
        items.length === 1 && items[0]?.['message'] === 'Invalid company number',
        JSON.stringify(items),
      );
    },
  },
];

/**
 * Lists (§7.6) without changing anything: an unknown list id, and bodies the API must refuse. A token
 * without the lists scopes gets 403 instead, which the check also accepts.
 */
const NO_LIST = '/v1/lists/999999999999';
async function expectListError(path: string, init: RequestInit, status: number, code: string) {
  const answer = await request(path, { ...init, headers: { ...auth, ...(init.headers ?? {}) } });
  if (answer.status === 403 && answer.body['code'] === 'FORBIDDEN') return;
  await expectError(path, { ...init, headers: { ...auth, ...(init.headers ?? {}) } }, status, code);
}
const jsonBody = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});
checks.push(
  { name: 'GET an unknown list → 404', run: () => expectListError(NO_LIST, {}, 404, 'NOT_FOUND') },
  {
    name: 'PATCH an unknown list → 404',
    run: () => expectListError(NO_LIST, jsonBody('PATCH', { columns: ['country'] }), 404, 'NOT_FOUND'),
  },
  {
    name: 'DELETE an unknown list → 404',
    run: () => expectListError(NO_LIST, { method: 'DELETE' }, 404, 'NOT_FOUND'),
  },
  {
    name: 'PATCH the companies of an unknown list → 404',
    run: () =>
      expectListError(
        `${NO_LIST}/companies`,
        jsonBody('PATCH', { companies: [{ country: 'BE', companyNumber: '0403170701', state: 'SAVED' }] }),
        404,
        'NOT_FOUND',
      ),
  },
  {
    name: 'POST a smart list with bad filters → 400 (nothing created)',
    run: () =>
      expectListError(
        '/v1/lists',
        jsonBody('POST', { name: 'smoke', type: 'SMART', filters: { employees: { min: 2, max: 1 } } }),
        400,
        'VALIDATION_ERROR',
      ),
  },
);

if (values.company) {
  checks.push({
    name: `financials of ${values.company}`,
    run: async () => {
      const answer = await request(`/v1/companies/${values.company}/financials?limit=1`, { headers: auth });
      expectThat(answer.status === 200, `got ${answer.status} ${JSON.stringify(answer.body)}`);
      expectThat(
        JSON.stringify(Object.keys(answer.body)) === '["identifier","data","pagination"]',
        `keys ${Object.keys(answer.body).join(',')}`,
      );
    },
  });
}

async function main(): Promise<void> {
  let failed = 0;
  for (const check of checks) {
    try {
      await check.run();
      console.log(`ok      ${check.name}`);
    } catch (error) {
      failed++;
      console.log(`FAILED  ${check.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  console.log(`smoke: ${checks.length - failed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

void main();
