/**
 * `npm run smoke -- --base-url URL --token TOKEN [--company BE/0403170701] [--write]`: checks a running
 * stage (the local one, or a deployed one after `cdk deploy`) against the published contract. It calls
 * every endpoint of the API through a client typed by the OpenAPI document (openapi-fetch over the types
 * openapi-typescript generates into ./openapi.ts: a breaking schema change breaks this file's
 * typecheck), and every answer is checked against the document's response schemas. Read-only unless
 * --write is given (then it also calls the routes that change data). Exit code 0 when every check passes.
 */
import { writesAny } from '../../lib/storage/access';
import { parseArgs } from 'node:util';
import createClient, { type Middleware } from 'openapi-fetch';
import { routes, type RouteId } from '../../lib/routes';
import { answerProblems, contract, readAnswer, routeOf } from '../support/openapi';
import { companyDataChecks, type Check } from './company-data';
import type { paths } from './openapi';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    token: { type: 'string' },
    company: { type: 'string' },
    write: { type: 'boolean', default: false },
  },
});
const baseUrl = values['base-url']?.replace(/\/+$/, '');
const token = values.token;
if (!baseUrl || !token) {
  console.error('usage: npm run smoke -- --base-url URL --token TOKEN [--company COUNTRY/NUMBER] [--write]');
  process.exit(2);
}

/** Every answer, checked against the document as it arrives; the routes reached, for coverage. */
const reached = new Set<string>();
const contractProblems: string[] = [];
const checkAnswers: Middleware = {
  async onResponse({ request, response }) {
    const url = new URL(request.url);
    const path = `${url.pathname.slice(new URL(baseUrl).pathname.replace(/\/$/, '').length)}${url.search}`;
    const found = routeOf(request.method, path);
    if (found) reached.add(found.routeId);
    for (const problem of answerProblems(request.method, path, await readAnswer(response.clone()))) {
      contractProblems.push(`${request.method} ${path} → ${response.status}: ${problem}`);
    }
    return response;
  },
};

const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
const anonymous = createClient<paths>({ baseUrl });
api.use(checkAnswers);
anonymous.use(checkAnswers);

function expectThat(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

type CompanyRef = { countryCode: 'BE' | 'NL' | 'FR' | string; companyNumber: string };
let company: CompanyRef | undefined = values.company
  ? { countryCode: values.company.split('/')[0]!, companyNumber: values.company.split('/')[1]! }
  : undefined;

/** A company the stage holds: --company, else the first one of the caller's first list. */
async function aCompany(): Promise<CompanyRef> {
  if (company) return company;
  const lists = await api.GET('/v1/lists', { params: { query: { limit: 10 } } });
  for (const list of lists.data?.data ?? []) {
    const page = await api.GET('/v1/lists/{id}/companies', { params: { path: { id: String(list.id) } } });
    const first = page.data?.data[0]?.identifier;
    if (first) return (company = { countryCode: first.country, companyNumber: first.companyNumber });
  }
  throw new Error('no company found in the caller’s lists: pass --company COUNTRY/NUMBER');
}

const checks: Check[] = [
  {
    name: 'health answers without a token',
    run: async () => {
      const { data } = await anonymous.GET('/v1/health');
      expectThat(data?.status === 'ok', `got ${JSON.stringify(data)}`);
    },
  },
  {
    name: 'the OpenAPI document answers without a token',
    run: async () => {
      const { data } = await anonymous.GET('/v1/openapi.json');
      expectThat(data?.openapi === '3.1.0', `openapi is ${String(data?.openapi)}`);
      expectThat(
        Object.keys(data?.paths ?? {}).length === Object.keys(contract.paths).length,
        'paths differ',
      );
    },
  },
  {
    name: 'the reference page answers without a token',
    run: async () => {
      const { data, response } = await anonymous.GET('/v1/docs', { parseAs: 'text' });
      expectThat(response.status === 200 && (data ?? '').includes('<html'), `got ${response.status}`);
    },
  },
  {
    name: 'no token → 401, wrong number → 400',
    run: async () => {
      const unauthorized = await anonymous.GET('/v1/lists', {});
      expectThat(unauthorized.error?.code === 'UNAUTHORIZED', JSON.stringify(unauthorized.error));
      const invalid = await api.GET('/v1/companies/{countryCode}/{companyNumber}/financials', {
        params: { path: { countryCode: 'BE', companyNumber: '0403170702' } },
      });
      expectThat(invalid.error?.code === 'VALIDATION_ERROR', JSON.stringify(invalid.error));
    },
  },
  {
    name: 'the lists, their companies and contacts',
    run: async () => {
      const { data } = await api.GET('/v1/lists', { params: { query: { type: 'OVERVIEW', limit: 5 } } });
      expectThat(data !== undefined, 'no lists page');
      const first = data!.data[0];
      if (!first) return;
      const id = String(first.id);
      const companies = await api.GET('/v1/lists/{id}/companies', {
        params: { path: { id }, query: { type: 'ALL' } },
      });
      expectThat(
        companies.data?.pagination.total === first.amountOfCompanies || first.type === 'SMART',
        'total',
      );
      const contacts = await api.GET('/v1/lists/{id}/contacts', {
        params: { path: { id }, query: { limit: 2 } },
      });
      expectThat(contacts.data !== undefined, `contacts: ${JSON.stringify(contacts.error)}`);
    },
  },
  {
    name: 'a company: financials, relationships, lookalikes, legal entities',
    run: async () => {
      const path = await aCompany();
      const financials = await api.GET('/v1/companies/{countryCode}/{companyNumber}/financials', {
        params: { path, query: { limit: 1 } },
      });
      expectThat(
        financials.data?.identifier.companyNumber === path.companyNumber,
        JSON.stringify(financials.error),
      );
      const relationships = await api.GET('/v1/companies/{countryCode}/{companyNumber}/relationships', {
        params: { path },
      });
      expectThat(Array.isArray(relationships.data?.data.parents), JSON.stringify(relationships.error));
      const lookalikes = await api.GET('/v1/companies/{countryCode}/{companyNumber}/lookalikes', {
        params: { path, query: { limit: 3 } },
      });
      expectThat((lookalikes.data?.data.length ?? 99) <= 3, JSON.stringify(lookalikes.error));
      const entities = await api.GET('/v1/companies/{countryCode}/{companyNumber}/legal-entities', {
        params: { path },
      });
      expectThat(entities.data?.data[0]?.isPrimary !== undefined, JSON.stringify(entities.error));
    },
  },
  ...companyDataChecks(api, aCompany, expectThat),
  {
    name: 'bulk calls answer per item, in request order',
    run: async () => {
      const known = await aCompany();
      const companies = [known, { countryCode: 'BE', companyNumber: '0403170702' }];
      const financials = await api.POST('/v1/companies/financials', { body: { companies, limit: 1 } });
      const second = financials.data?.[1];
      expectThat(
        second !== undefined && 'message' in second && second.message === 'Invalid company number',
        JSON.stringify(financials.data),
      );
      const relationships = await api.POST('/v1/companies/relationships', { body: { companies } });
      expectThat(relationships.data?.length === 2, JSON.stringify(relationships.error));
      const lookalikes = await api.POST('/v1/companies/lookalikes', { body: { companies, limit: 2 } });
      expectThat(lookalikes.data?.length === 2, JSON.stringify(lookalikes.error));
    },
  },
  {
    name: 'bulk updates answer an unknown legal entity per item, in the language asked',
    run: async () => {
      const { data, response } = await api.POST('/v1/legal-entities/updates', {
        body: { legalEntities: [{ legalEntityId: '000000000000' }] },
        headers: { 'Accept-Language': 'fr' },
      });
      if (lacksScope(response, 'updates:read')) return;
      expectThat(response.headers.get('content-language') === 'fr', 'no Content-Language: fr');
      const item = data?.[0];
      expectThat(
        data?.length === 1 &&
          item !== undefined &&
          'message' in item &&
          item.message === 'Legal entity not found',
        JSON.stringify(data),
      );
    },
  },
  {
    name: "the updates of a company's own legal entity",
    run: async () => {
      const path = await aCompany();
      const entities = await api.GET('/v1/companies/{countryCode}/{companyNumber}/legal-entities', {
        params: { path, query: { limit: 1 } },
      });
      const legalEntityId = entities.data?.data[0]?.legalEntityId;
      expectThat(legalEntityId !== undefined, JSON.stringify(entities.error));
      const { data, response } = await api.GET('/v1/legal-entities/{legalEntityId}/updates', {
        params: { path: { legalEntityId: String(legalEntityId) }, query: { limit: 2 } },
      });
      if (lacksScope(response, 'updates:read')) return;
      expectThat((data?.data?.updates.length ?? 99) <= 2, JSON.stringify(data));
    },
  },
];

/** A token without the scope gets 403 FORBIDDEN: the route answered, its content is not checked. */
function lacksScope(response: Response, scope: string): boolean {
  if (response.status !== 403) return false;
  console.log(`skipped (the token lacks ${scope})`);
  return true;
}

/**
 * Lists (§7.6) without changing anything: an unknown list answers 404 to every method, and a smart list
 * with bad filters is refused (nothing created). A token without the lists scopes gets 403 instead.
 */
const NO_LIST = { path: { id: '999999999999' } };
function expectRefused(
  response: Response,
  error: { code?: string } | undefined,
  status: number,
  code: string,
) {
  if (response.status === 403 && error?.code === 'FORBIDDEN') return;
  expectThat(
    response.status === status && error?.code === code,
    `got ${response.status} ${JSON.stringify(error)}`,
  );
}
checks.push(
  {
    name: 'GET, PATCH and DELETE of an unknown list → 404',
    run: async () => {
      const got = await api.GET('/v1/lists/{id}', { params: NO_LIST });
      expectRefused(got.response, got.error, 404, 'NOT_FOUND');
      if (!values.write) return;
      const patched = await api.PATCH('/v1/lists/{id}', { params: NO_LIST, body: { columns: ['country'] } });
      expectRefused(patched.response, patched.error, 404, 'NOT_FOUND');
      const deleted = await api.DELETE('/v1/lists/{id}', { params: NO_LIST });
      expectRefused(deleted.response, deleted.error, 404, 'NOT_FOUND');
      const moved = await api.PATCH('/v1/lists/{id}/companies', {
        params: NO_LIST,
        body: { companies: [{ country: 'BE', companyNumber: '0403170701', state: 'SAVED' }] },
      });
      expectRefused(moved.response, moved.error, 404, 'NOT_FOUND');
    },
  },
  {
    name: 'POST a smart list with bad filters → 400 (nothing created)',
    run: async () => {
      const created = await api.POST('/v1/lists', {
        body: { name: 'smoke', type: 'SMART', filters: { employees: { min: 2, max: 1 } } },
      });
      expectRefused(created.response, created.error, 400, 'VALIDATION_ERROR');
    },
  },
);

if (values.write) {
  checks.push({
    name: 'adding a company to a static list (--write)',
    run: async () => {
      const { data } = await api.GET('/v1/lists', { params: { query: { type: 'STATIC', limit: 1 } } });
      const list = data?.data[0];
      if (!list) throw new Error('the caller has no static list');
      const known = await aCompany();
      const added = await api.PUT('/v1/lists/{id}/companies', {
        params: { path: { id: String(list.id) } },
        body: { companies: [{ country: known.countryCode, companyNumber: known.companyNumber }] },
      });
      expectThat(added.data?.success === true, JSON.stringify(added.data ?? added.error));
    },
  });
}

/**
 * Every route the checks above did not reach (a route added since they were written), called once with
 * the document's example parameters: its answer must still be one the document lists, in its shape.
 */
checks.push({
  name: 'every other route answers as the document says',
  run: async () => {
    const missing = (Object.keys(routes) as RouteId[]).filter((id) => !reached.has(id));
    for (const routeId of missing) {
      const route = routes[routeId];
      if (writesAny(route.storage) && !values.write) continue;
      const operation = contract.paths[route.path][route.method.toLowerCase()];
      const parameters = (operation.parameters ?? []) as Array<{
        name: string;
        in: string;
        example?: string;
      }>;
      const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        encodeURIComponent(parameters.find((p) => p.name === name)?.example ?? '1'),
      );
      const body = operation.requestBody?.content?.['application/json']?.example;
      const response = await fetch(`${baseUrl}${path}`, {
        method: route.method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      reached.add(routeId);
      const problems = answerProblems(route.method, path, await readAnswer(response));
      if (problems.length > 0) throw new Error(`${routeId}: ${problems.join('; ')}`);
    }
  },
});

async function main(): Promise<void> {
  let failed = 0;
  for (const check of checks) {
    const before = contractProblems.length;
    try {
      await check.run();
      if (contractProblems.length > before)
        throw new Error(contractProblems.slice(before).join('\n        '));
      console.log(`ok      ${check.name}`);
    } catch (error) {
      failed++;
      console.log(`FAILED  ${check.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const skipped = (Object.keys(routes) as RouteId[]).filter((id) => !reached.has(id));
  if (skipped.length > 0) console.log(`not called (write routes, add --write): ${skipped.join(', ')}`);
  console.log(`smoke: ${checks.length - failed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

void main();
