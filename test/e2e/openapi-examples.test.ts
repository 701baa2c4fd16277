/**
 * Every example of the OpenAPI document is a real exchange with the local stage: a stage loaded as
 * `npm start` loads it (the 3,000 demo companies, older snapshot first, the demo tokens and lists)
 * behind the local gateway, the real handlers. The requests are derived from the route table
 * (infra/openapi/examples.ts); each is sent in turn and its answer compared with docs/examples.json,
 * so an example can never drift from what the API answers. A new route is one more example here, and
 * the test fails until the examples are recorded again:
 *
 *   npm run openapi:examples      (UPDATE_EXAMPLES=1 on this file, then `npm run openapi`)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createGateway } from '../../infra/local/gateway';
import { loadDemo } from '../../infra/local/demo';
import { loadDemoLists } from '../../infra/local/demo-lists';
import { EXAMPLES_FILE } from '../../infra/openapi/build';
import {
  answersWithExample,
  CREATED_LIST_ID,
  exampleRequests,
  WEBHOOK_ID,
  stableAnswer,
  type DemoCompany,
  type Example,
} from '../../infra/openapi/examples';
import type { Route } from '../../lib/http/route';
import { routes } from '../../lib/routes';
import { generateDemoData } from '../fixtures/demo-data/companies';
import { legalEntityIdsOf } from '../fuzz/operations';
import { useFreshTable } from '../support/table';
import { TOKENS } from './http';

const ROOT = path.join(__dirname, '..', '..');
const UPDATE = Boolean(process.env['UPDATE_EXAMPLES']);
// Importing the 3,000 demo companies takes about a minute on an idle machine, several under load.
jest.setTimeout(20 * 60_000);

useFreshTable();
const records = generateDemoData();
let server: http.Server;
let baseUrl = '';
let listIds: number[] = [];

beforeAll(async () => {
  await loadDemo(records);
  listIds = await loadDemoLists(records);
  server = createGateway();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it('docs/examples.json holds every operation: its request and what the local stage answers', async () => {
  const [first, second] = records.filter((r) => r.country === 'BE');
  const company = (r: typeof first): DemoCompany => ({
    country: r!.country,
    companyNumber: r!.companyNumber,
    name: r!.name,
    vatNumber: r!.vatNumber,
    website: r!.website,
  });
  const requests = exampleRequests(routes as Record<string, Route>, {
    companies: [company(first), company(second)],
    withContacts: company(records.find((r) => r.country === 'BE' && r.contacts.length > 2)),
    legalEntityId: legalEntityIdsOf([first!])[0]!,
    lists: { ids: listIds },
  });

  const recorded: Record<string, Example> = {};
  let createdId = CREATED_LIST_ID;
  let webhookId = WEBHOOK_ID;
  for (const [routeId, request] of requests) {
    const route = routes[routeId as keyof typeof routes] as Route;
    // The list the createList example made, by the id the stage drew for it; the same for the webhook.
    const sentPath =
      routeId === 'deleteList'
        ? request.path.replace(String(CREATED_LIST_ID), String(createdId))
        : request.path.replace(WEBHOOK_ID, webhookId);
    const response = await fetch(`${baseUrl}${sentPath}`, {
      method: request.method,
      headers: {
        ...(route.scope ? { Authorization: `Bearer ${TOKENS.alice}` } : {}),
        ...(request.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...request.headers,
      },
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    });
    const text = await response.text();
    // Every example is a success, as the route declares it.
    expect({ routeId, status: response.status }).toEqual({ routeId, status: route.status ?? 200 });
    const json = answersWithExample(route) && response.status !== 204;
    if (routeId === 'createList') createdId = (JSON.parse(text) as { id: number }).id;
    if (routeId === 'createWebhook') webhookId = (JSON.parse(text) as { id: string }).id;
    recorded[routeId] = {
      request,
      status: response.status,
      ...(json ? { response: stableAnswer(routeId, JSON.parse(text)) } : {}),
    };
  }
  // Every operation of the route table has its example.
  expect(Object.keys(recorded).sort()).toEqual(Object.keys(routes).sort());

  const file = path.join(ROOT, EXAMPLES_FILE);
  const text = `${JSON.stringify(recorded, null, 2)}\n`;
  if (UPDATE) writeFileSync(file, text);
  const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Example>;
  // Route by route, so that a failure names the example that drifted.
  for (const [routeId, example] of Object.entries(recorded)) {
    expect({ routeId, example: stored[routeId] }).toEqual({ routeId, example });
  }
  expect(Object.keys(stored).sort()).toEqual(Object.keys(recorded).sort());
});
