/**
 * The success examples of the OpenAPI document are real answers: each route called over HTTP on the
 * demo data (the local gateway, the real handlers), cut to two entries per array and with the
 * moments of list activity written as one fixed time. They are kept in docs/examples.json, which
 * `npm run openapi` puts into the document; this test fails when the routes answer otherwise.
 *
 *   UPDATE_EXAMPLES=1 npx jest test/e2e/openapi-examples.test.ts --selectProjects storage
 *   npm run openapi
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadDemoLists } from '../../infra/local/demo-lists';
import { EXAMPLES_FILE } from '../../infra/openapi/build';
import type { Route } from '../../lib/http/route';
import { routes, type RouteId } from '../../lib/routes';
import { legalEntityIdsOf } from '../fuzz/requests';
import { useApi, type Exchange } from './http';

const api = useApi();
const ROOT = path.join(__dirname, '..', '..');

/** Every array cut to its first two entries (an example, not the data), recursively. */
function cut(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 2).map(cut);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, cut(member)]));
  }
  // A list's createdAt, updatedAt and matchedSince are the moment the demo ran: one fixed moment instead.
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value)) {
    return value >= '2026-11-22' ? '2026-11-21T09:30:00.000Z' : value;
  }
  return value;
}

/**
 * Webhook ids, secrets, test event ids and feed cursors are random or name the moment: fixed ones instead
 * (in the shapes the API gives them).
 */
function fixedTokens(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fixedTokens);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, fixedTokens(member)]));
  }
  if (typeof value !== 'string') return value;
  if (/^wh_[0-9a-f]{20}$/.test(value)) return 'wh_4f1c2a9e8b7d6c5a4b3e';
  if (/^whsec_/.test(value)) return 'whsec_MfKQ9r8GKYqoNv3UFbzCJ0SuyuDLiwNcKjaE2a8oEbM=';
  if (/^evt_[0-9a-f]{24}$/.test(value)) return 'evt_9b2e4c6a8d0f1e3a5c7b9d1f';
  if (/^ZTEu[A-Za-z0-9_-]+$/.test(value)) return 'ZTEuMC4xNzY0MDAwMDAwMDAwLjAxMjM0NTY3ODlhYmNkZWY';
  return value;
}

it('docs/examples.json holds what every JSON route answers on the demo data', async () => {
  const listIds = await loadDemoLists(api.records);
  expect(listIds).toEqual([1, 2, 3, 4, 5, 6, 7]);
  const [first, second] = api.records.filter((r) => r.country === 'BE');
  const company = `/v1/companies/${first!.country}/${first!.companyNumber}`;
  const companies = [first!, second!].map((r) => ({
    countryCode: r.country,
    companyNumber: r.companyNumber,
  }));
  const [entity] = legalEntityIdsOf([first!]);
  const json = (method: string, url: string, body: unknown) =>
    api.send(method, url, { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  // One call per route that answers JSON (the documents answer themselves; DELETE answers nothing).
  const calls: Partial<Record<RouteId, () => Promise<Exchange>>> = {
    getHealth: () => api.get('/v1/health'),
    getCompanyFinancials: () => api.get(`${company}/financials?limit=2`),
    getCompanyLegalEntities: () => api.get(`${company}/legal-entities`),
    getCompanyLookalikes: () => api.get(`${company}/lookalikes?limit=2`),
    getCompanyRelationships: () => api.get(`${company}/relationships`),
    getCompanyFinancialsBulk: () => json('POST', '/v1/companies/financials', { companies, limit: 2 }),
    getCompanyLookalikesBulk: () => json('POST', '/v1/companies/lookalikes', { companies, limit: 2 }),
    getCompanyRelationshipsBulk: () => json('POST', '/v1/companies/relationships', { companies }),
    getLegalEntityUpdates: () => api.get(`/v1/legal-entities/${entity}/updates?limit=2`),
    getLegalEntityUpdatesBulk: () =>
      json('POST', '/v1/legal-entities/updates', { legalEntities: [{ legalEntityId: entity }], limit: 2 }),
    getLists: () => api.get('/v1/lists?limit=2'),
    getList: () => api.get('/v1/lists/4'),
    getListCompanies: () => api.get('/v1/lists/4/companies?limit=2'),
    getListContacts: () => api.get('/v1/lists/1/contacts?limit=2'),
    addListCompanies: () => json('PUT', '/v1/lists/2/companies', { companies: [{ VAT: first!.vatNumber }] }),
    moveListCompanies: () =>
      json('PATCH', '/v1/lists/2/companies', {
        companies: [{ country: first!.country, companyNumber: first!.companyNumber, state: 'ARCHIVED' }],
      }),
    createList: () =>
      json('POST', '/v1/lists', {
        name: 'Software in Belgium',
        type: 'SMART',
        filters: { countries: ['BE'], activities: ['62'] },
      }),
    updateList: () => json('PATCH', '/v1/lists/1', { name: 'Prospects Q1', columns: ['country', 'place'] }),
    getEvents: () => api.get('/v1/events?limit=2'),
    createWebhook: () =>
      json('POST', '/v1/webhooks', { url: 'http://127.0.0.1:4000/hook', description: 'CRM' }),
    getWebhooks: () => api.get('/v1/webhooks'),
    getWebhook: () => api.get(`/v1/webhooks/${webhookId()}`),
    updateWebhook: () => json('PATCH', `/v1/webhooks/${webhookId()}`, { description: 'CRM sync' }),
    rotateWebhookSecret: () => json('POST', `/v1/webhooks/${webhookId()}/rotate-secret`, {}),
    testWebhook: () => json('POST', `/v1/webhooks/${webhookId()}/test`, {}),
    getWebhookDeliveries: () => api.get(`/v1/webhooks/${webhookId()}/deliveries?limit=2`),
  };
  // The webhook endpoint the createWebhook call made, for the calls on it.
  let webhook = '';
  const webhookId = () => webhook;
  const answers: Record<string, unknown> = {};
  for (const [routeId, call] of Object.entries(calls)) {
    const answer = await call();
    if (routeId === 'createWebhook') webhook = (answer.body as { id: string }).id;
    expect({ routeId, status: answer.status }).toEqual({
      routeId,
      status: (routes[routeId as RouteId] as Route).status ?? 200,
    });
    // The overview's order (latest change first) depends on the milliseconds between the demo's writes: by id.
    const body =
      routeId === 'getLists'
        ? {
            ...answer.body,
            data: [...answer.body.data].sort((a: { id: number }, b: { id: number }) => a.id - b.id),
          }
        : answer.body;
    answers[routeId] = cut(fixedTokens(body));
  }
  const jsonRoutes = (Object.entries(routes) as Array<[string, Route]>)
    .filter(([, route]) => route.response && !route.mediaType && route.path !== '/v1/openapi.json')
    .map(([id]) => id);
  expect(Object.keys(answers).sort()).toEqual(jsonRoutes.sort());

  const text = `${JSON.stringify(answers, null, 2)}\n`;
  const file = path.join(ROOT, EXAMPLES_FILE);
  if (process.env['UPDATE_EXAMPLES']) writeFileSync(file, text);
  expect(readFileSync(file, 'utf8')).toBe(text);
});
