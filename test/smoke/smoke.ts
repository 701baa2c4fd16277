/**
 * `npm run smoke -- --base-url URL --token TOKEN [--company BE/0403170701]`: checks a running stage
 * (the local one, or a deployed one after `cdk deploy`) answers as the contract says. Read-only: it
 * changes no data. Exit code 0 when every check passes.
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
  {
    name: 'bulk updates answer an unknown legal entity per item, in the language asked',
    run: async () => {
      const answer = await request('/v1/legal-entities/updates', {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json', 'Accept-Language': 'fr' },
        body: JSON.stringify({ legalEntities: [{ legalEntityId: '000000000000' }] }),
      });
      if (lacksScope(answer, 'updates:read')) return;
      expectThat(answer.status === 200, `got ${answer.status} ${JSON.stringify(answer.body)}`);
      expectThat(answer.headers.get('content-language') === 'fr', 'no Content-Language: fr');
      const items = answer.body as unknown as Array<Record<string, unknown>>;
      expectThat(
        items.length === 1 && items[0]?.['message'] === 'Legal entity not found' && items[0]['data'] === null,
        JSON.stringify(items),
      );
    },
  },
  {
    name: 'updates of a malformed legal entity id → 404',
    run: async () => {
      const answer = await request('/v1/legal-entities/not-an-id/updates', { headers: auth });
      if (lacksScope(answer, 'updates:read')) return;
      expectThat(answer.status === 404 && answer.body['code'] === 'NOT_FOUND', `got ${answer.status}`);
    },
  },
];

/** A token without the scope gets 403 FORBIDDEN: the route answered, its content is not checked. */
function lacksScope(answer: Awaited<ReturnType<typeof request>>, scope: string): boolean {
  if (answer.status !== 403 || answer.body['code'] !== 'FORBIDDEN') return false;
  skipped.push(`the token lacks ${scope}`);
  return true;
}
const skipped: string[] = [];

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
  checks.push({
    name: `updates of ${values.company}'s own legal entity`,
    run: async () => {
      const entities = await request(`/v1/companies/${values.company}/legal-entities?limit=1`, {
        headers: auth,
      });
      expectThat(entities.status === 200, `legal entities: got ${entities.status}`);
      const [own] = entities.body['data'] as Array<{ legalEntityId: string }>;
      const answer = await request(`/v1/legal-entities/${own!.legalEntityId}/updates?limit=2`, {
        headers: auth,
      });
      if (lacksScope(answer, 'updates:read')) return;
      expectThat(answer.status === 200, `got ${answer.status} ${JSON.stringify(answer.body)}`);
      const identifier = answer.body['identifier'] as { legalEntityId?: string } | undefined;
      expectThat(identifier?.legalEntityId === own!.legalEntityId, JSON.stringify(answer.body));
      expectThat(answer.headers.get('content-language') === 'en', 'no Content-Language: en');
    },
  });
}

async function main(): Promise<void> {
  let failed = 0;
  for (const check of checks) {
    try {
      skipped.length = 0;
      await check.run();
      console.log(
        `${skipped.length > 0 ? 'skipped' : 'ok     '} ${check.name}${skipped.length > 0 ? ` (${skipped.join(', ')})` : ''}`,
      );
    } catch (error) {
      failed++;
      console.log(`FAILED  ${check.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  console.log(`smoke: ${checks.length - failed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

void main();
