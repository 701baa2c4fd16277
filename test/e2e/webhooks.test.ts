/**
 * Notifications end to end (contract §12) through the local gateway, whose process runs the fan-out
 * and the deliveries every second as `npm start` does: a change imported for a company in a watched
 * list reaches a real receiver on 127.0.0.1 with a valid Standard Webhooks signature, the same event is
 * in the feed, the deliveries log shows the attempt; a rotated secret signs beside the new one; a
 * private-address URL is refused. Every answer is checked against the OpenAPI document.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { importCompanies } from '../../lib/import/import';
import { period } from '../support/records';
import { expectValidationError, TOKENS, useApi } from './http';

const api = useApi();
jest.setTimeout(120_000);

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

const received: Delivery[] = [];
let receiverUrl = '';
const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({
      headers: request.headers as Record<string, string>,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    response.writeHead(204).end();
  });
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const json = (method: string, path: string, body: unknown, token: string = TOKENS.alice) =>
  api.send(method, path, {
    token,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const verify = (secret: string, delivery: Delivery, signature = delivery.headers['webhook-signature']!) =>
  new Webhook(secret).verify(delivery.body, { ...delivery.headers, 'webhook-signature': signature }) as {
    id: string;
    type: string;
    data: Record<string, unknown>;
  };

let endpoint: { id: string; secret: string };

it('delivers an imported change of a watched company, signed, and the feed holds the same event', async () => {
  const created = await json('POST', '/v1/webhooks', { url: receiverUrl, description: 'e2e' });
  expect(created.status).toBe(201);
  endpoint = created.body;
  const feedStart = await api.get('/v1/events');
  expect(feedStart.status).toBe(200);

  const record = api.records[0]!;
  const list = await json('POST', '/v1/lists', {
    name: 'Watched in e2e',
    type: 'STATIC',
    notifications: { enabled: true },
  });
  expect(list.status).toBe(201);
  const added = await json('PUT', `/v1/lists/${list.body.id}/companies`, {
    companies: [{ country: record.country, companyNumber: record.companyNumber }],
  });
  expect(added.status).toBe(200);

  async function* lines() {
    yield JSON.stringify({ ...record, financials: [...record.financials!, period(2031)] });
  }
  const summary = await importCompanies(lines(), { asOf: '2026-11-25' });
  expect(summary.updates).toBeGreaterThan(0);

  const delivery = await until(() => received.find((d) => d.body.includes('company.update')), 'a delivery');
  const event = verify(endpoint.secret, delivery);
  expect(event).toMatchObject({
    id: delivery.headers['webhook-id'],
    type: 'company.update',
    data: {
      company: { country: record.country, companyNumber: record.companyNumber },
      lists: [list.body.id],
    },
  });
  const feed = await api.get(`/v1/events?after=${encodeURIComponent(feedStart.body.next)}`);
  expect(feed.body.data.map((e: { id: string }) => e.id)).toContain(event.id);
  expect(JSON.parse(delivery.body)).toEqual(feed.body.data.find((e: { id: string }) => e.id === event.id));

  const log = await until(async () => {
    const answer = await api.get(`/v1/webhooks/${endpoint.id}/deliveries?limit=500`);
    return answer.body.data.length >= summary.updates ? answer : undefined;
  }, 'the deliveries log');
  expect(log.body.data[0]).toMatchObject({ attempt: 1, status: 'delivered', responseStatus: 204 });
});

it('signs with the new and the rotated-out secret after a rotation', async () => {
  const rotated = await json('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, {});
  expect(rotated.status).toBe(200);
  const test = await json('POST', `/v1/webhooks/${endpoint.id}/test`, {});
  expect([test.status, test.raw]).toEqual([202, '']);

  const delivery = await until(
    () => received.find((d) => d.body.includes('"type":"webhook.test"')),
    'the test delivery',
  );
  const [current, previous] = delivery.headers['webhook-signature']!.split(' ');
  expect(verify(rotated.body.secret, delivery, current)).toMatchObject({ type: 'webhook.test', data: {} });
  expect(verify(endpoint.secret, delivery, previous)).toMatchObject({ type: 'webhook.test' });
});

it('refuses a private-address URL and keeps accounts apart', async () => {
  const refused = await json('POST', '/v1/webhooks', { url: 'https://10.1.2.3/hook' });
  expectValidationError(refused, ['url']);
  const other = await api.get(`/v1/webhooks/${endpoint.id}`, { token: TOKENS.carol });
  expect(other.status).toBe(404);
  expect(other.body.message).toBe('Webhook not found');
  expect((await api.get('/v1/events', { token: TOKENS.bob })).status).toBe(403);
});
