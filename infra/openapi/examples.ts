/**
 * The examples of the OpenAPI document: for every operation one request and the answer the local stage
 * gave it (docs/examples.json). test/e2e/openapi-examples.test.ts sends the requests to a stage loaded
 * as `npm start` loads it, records the answers (`npm run openapi:examples`) and, on every other run,
 * replays them and fails on any difference; `npm run openapi` puts them into the document.
 *
 * The requests are derived from the route table, so a new operation is covered by regenerating:
 *   - path parameters by name from the demo data (PATH_VALUES), query `limit=2` where the route pages;
 *   - a body from its schema, each property by name (BODY_VALUES), only required ones when no value;
 *   - `Accept-Language: nl-BE` where the answer is translated, `Idempotency-Key` where it is honoured.
 * A route whose parameter or required body property has no value by name fails the derivation, naming
 * it: add a value here by name (not a request by hand). OVERRIDES holds what the derivation would pick
 * less instructively (which list; bodies that show how entries are matched).
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import type { Route } from '../../lib/http/route';
import { jsonSchemaOf } from './schema';

/** One example exchange of docs/examples.json. */
export interface Example {
  request: ExampleRequest;
  status: number;
  /** The answer's JSON body; absent for 204 and for the documents (their answer is this document and its page). */
  response?: unknown;
}

export interface ExampleRequest {
  method: string;
  /** The path with its query string, as sent. */
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface DemoCompany {
  country: string;
  companyNumber: string;
  name: string;
  vatNumber: string | null;
  website: string | null;
}

/** What the examples are made of: demo data every local stage holds (test/fixtures/demo-data). */
export interface DemoFacts {
  /** Two companies of one country (bulk calls ask for both). */
  companies: [DemoCompany, DemoCompany];
  /** A company with more contacts than the example's page of 2 shows (the contacts example). */
  withContacts: DemoCompany;
  /** The legal entity of the first company. */
  legalEntityId: string;
  /** The demo lists' ids (infra/local/demo-lists.ts). */
  lists: { ids: number[] };
}

/** Routes whose answer is not an example (the document itself, its page). */
const DOCUMENT_ROUTES = new Set(['/v1/openapi.json', '/v1/docs']);

export const answersWithExample = (route: Route) =>
  route.response !== undefined && !DOCUMENT_ROUTES.has(route.path);

const IDEMPOTENCY_KEY = 'b7e9c1f2-add-companies-1';

function pathValues(facts: DemoFacts): Record<string, string> {
  const [first] = facts.companies;
  return {
    countryCode: first.country,
    companyNumber: first.companyNumber,
    legalEntityId: facts.legalEntityId,
    id: String(facts.lists.ids[0]),
  };
}

function bodyValues(facts: DemoFacts): Record<string, unknown> {
  return {
    companies: facts.companies.map((c) => ({ countryCode: c.country, companyNumber: c.companyNumber })),
    legalEntities: [{ legalEntityId: facts.legalEntityId }],
    limit: 2,
  };
}

interface Override {
  params?: Record<string, string>;
  /** Query values besides `limit=2` (a required one has no default to fall back on). */
  query?: Record<string, string>;
  body?: unknown;
}

/** By route id: what the derivation would not choose well. */
function overrides(facts: DemoFacts): Record<string, Override> {
  const [first, second] = facts.companies;
  const [, staticList, , smartList] = facts.lists.ids.map(String);
  return {
    // A smart list: its filters show, and it has companies.
    getList: { params: { id: smartList! } },
    getListCompanies: { params: { id: smartList! } },
    // Entries matched each by another property; then the first one moved.
    addListCompanies: {
      params: { id: staticList! },
      body: { companies: [{ VAT: first.vatNumber }, { name: second.name, website: second.website }] },
    },
    moveListCompanies: {
      params: { id: staticList! },
      body: {
        companies: [{ country: first.country, companyNumber: first.companyNumber, state: 'ARCHIVED' }],
      },
    },
    createList: {
      body: {
        name: 'Software in Belgium',
        type: 'SMART',
        filters: { countries: ['BE'], activities: ['62'] },
      },
    },
    updateList: { body: { name: 'Prospects Q1', columns: ['country', 'place'] } },
    // A company with contacts: a page of them shows a contact's shape, and the total beyond the page.
    getCompanyContacts: {
      params: { countryCode: facts.withContacts.country, companyNumber: facts.withContacts.companyNumber },
    },
    // A name's first word whole and the next one's start: a prefix of each word is enough (§6.5).
    searchCompanies: { query: { q: searchTerms(first.name) } },
    // One entry by name and website, one by VAT number written with spaces, as customers have them.
    matchCompanies: {
      body: {
        companies: [
          { name: first.name, website: first.website },
          { VAT: second.vatNumber?.replace(/^(..)(\d{4})(\d{3})/, '$1 $2.$3.') },
        ],
      },
    },
    // The list the createList example made: deleting a demo list would change the other examples.
    // Its id is drawn when it is created: the example shows CREATED_LIST_ID, the recording sends the real one.
    deleteList: { params: { id: String(CREATED_LIST_ID) } },
    // The webhook endpoint the createWebhook example made (WEBHOOK_ID in the examples), in turn.
    createWebhook: { body: { url: 'http://127.0.0.1:4000/hook', description: 'CRM' } },
    updateWebhook: { params: { id: WEBHOOK_ID }, body: { description: 'CRM sync' } },
    ...Object.fromEntries(
      ['getWebhook', 'deleteWebhook', 'rotateWebhookSecret', 'testWebhook', 'getWebhookDeliveries'].map(
        (id) => [id, { params: { id: WEBHOOK_ID } }],
      ),
    ),
  };
}

/**
 * The id a created list shows in the examples: ids are drawn at random (§7.2), so the createList answer
 * and the deleteList path show this one, and the recording sends the id the stage drew.
 */
export const CREATED_LIST_ID = 412_785_093;

/** The id a created webhook endpoint shows in the examples (ids are random); the recording sends the real one. */
export const WEBHOOK_ID = 'wh_4f1c2a9e8b7d6c5a4b3e';

/**
 * Webhook ids, secrets, test event ids and feed cursors are random or name the moment: fixed ones in
 * the examples instead, in the shapes the API gives them.
 */
function fixedTokens(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fixedTokens);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fixedTokens(v)]));
  if (typeof value !== 'string') return value;
  if (/^wh_[0-9a-f]{20}$/.test(value)) return WEBHOOK_ID;
  if (value.startsWith('whsec_')) return 'whsec_MfKQ9r8GKYqoNv3UFbzCJ0SuyuDLiwNcKjaE2a8oEbM=';
  if (/^evt_[0-9a-f]{24}$/.test(value)) return 'evt_9b2e4c6a8d0f1e3a5c7b9d1f';
  if (/^ZTEu[A-Za-z0-9_-]+$/.test(value)) return 'ZTEuMC4xNzY0MDAwMDAwMDAwLjAxMjM0NTY3ODlhYmNkZWY';
  return value;
}

function searchTerms(name: string): string {
  const [word, next] = name.split(' ');
  return next ? `${word} ${next.slice(0, 2)}` : word!;
}

/**
 * Every route's example request, in the order they are sent: reads first, then writes (a write changes
 * what later reads answer), deletions last.
 */
export function exampleRequests(
  routes: Record<string, Route>,
  facts: DemoFacts,
): Array<[string, ExampleRequest]> {
  const byId = overrides(facts);
  const rank = (route: Route) => (route.method === 'DELETE' ? 2 : route.scope?.endsWith(':write') ? 1 : 0);
  return Object.entries(routes)
    .map(([id, route], index) => ({ id, route, index }))
    .sort((a, b) => rank(a.route) - rank(b.route) || a.index - b.index)
    .map(({ id, route }) => [id, exampleRequest(id, route, facts, byId[id] ?? {})]);
}

function exampleRequest(routeId: string, route: Route, facts: DemoFacts, override: Override): ExampleRequest {
  const values = { ...pathValues(facts), ...override.params };
  const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new Error(
        `${routeId}: no demo value for path parameter {${name}}: add one to infra/openapi/examples.ts`,
      );
    return encodeURIComponent(value);
  });
  const query = route.request.query ? jsonSchemaOf(route.request.query, 'request') : null;
  const search = new URLSearchParams({
    ...override.query,
    ...(query?.properties && 'limit' in query.properties ? { limit: '2' } : {}),
  }).toString();
  const headers: Record<string, string> = {};
  if (route.translated) headers['Accept-Language'] = 'nl-BE';
  if (route.idempotent) headers['Idempotency-Key'] = IDEMPOTENCY_KEY;
  const takesBody = route.request.body && !['GET', 'DELETE'].includes(route.method);
  const body = takesBody
    ? (override.body ?? bodyOf(routeId, jsonSchemaOf(route.request.body!, 'request'), bodyValues(facts)))
    : undefined;
  return {
    method: route.method,
    path: search ? `${path}?${search}` : path,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(body !== undefined ? { body } : {}),
  };
}

/** A body of the values by name: every property that has one, and every required property must. */
function bodyOf(
  routeId: string,
  schema: JsonSchema,
  values: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of Object.keys(schema.properties ?? {})) {
    if (values[name] !== undefined) body[name] = values[name];
    else if (schema.required?.includes(name))
      throw new Error(
        `${routeId}: no demo value for body property ${name}: add one to infra/openapi/examples.ts`,
      );
  }
  return body;
}

/**
 * What of an answer depends on when it was given, made the same on every run: the moments a list was
 * created, changed or matched are the moment the stage was loaded, written as one fixed moment; the
 * lists overview's order (latest change first) depends on the milliseconds between the demo's writes,
 * so it is compared by id.
 */
export function stableAnswer(routeId: string, body: unknown): unknown {
  const fixed = fixMoments(body);
  if (routeId === 'createList' && isRecord(fixed)) return { ...fixed, id: CREATED_LIST_ID };
  if (routeId !== 'getLists' || !isRecord(fixed) || !Array.isArray(fixed['data'])) return fixedTokens(fixed);
  const data = [...(fixed['data'] as Array<{ id: number }>)].sort((a, b) => a.id - b.id);
  return { ...fixed, data };
}

/** The demo data's own dates end on 2026-11-21 (its as-of date); anything later is the moment of the run. */
const RUN_MOMENTS_FROM = '2026-11-22';
const FIXED_MOMENT = '2026-11-21T09:30:00.000Z';

function fixMoments(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fixMoments);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fixMoments(v)]));
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value))
    return value >= RUN_MOMENTS_FROM ? FIXED_MOMENT : value;
  return value;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The values of a request's path parameters and query, by name, read off the example's path. */
export function parameterValues(route: Route, request: ExampleRequest): Record<string, string> {
  const [pathPart, search = ''] = request.path.split('?');
  const names: string[] = [];
  const pattern = new RegExp(
    `^${route.path.replace(/\{([^}]+)\}/g, (_, name: string) => (names.push(name), '([^/]+)'))}$`,
  );
  const match = pattern.exec(pathPart!);
  const values: Record<string, string> = {};
  names.forEach((name, i) => (values[name] = decodeURIComponent(match?.[i + 1] ?? '')));
  for (const [name, value] of new URLSearchParams(search)) values[name] = value;
  return values;
}
