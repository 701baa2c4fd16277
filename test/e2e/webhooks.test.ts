/**
 * Notifications end to end (contract §12) through the local gateway, whose process runs the fan-out
 * and the deliveries every 250 ms as `npm start` does: a change imported for a company in a watched
 * list reaches a real receiver on 127.0.0.1 with a valid Standard Webhooks signature, the same event is
 * in the feed, the deliveries log shows the attempt; a rotated secret signs beside the new one; a test
 * delivery is attempted once, one a minute (429 with Retry-After); a receiver that answers 500, never
 * answers, resets the connection or redirects gets the retries, each attempt in the log with its own
 * outcome; one down for the whole schedule leaves the delivery `failed` and the event in the feed; a
 * private-address URL is refused; events follow list visibility. Every answer is checked against the OpenAPI document.
 *
 * The retry schedule runs at 1/20,000 (WEBHOOK_RETRY_SCALE: 5 s → 0.25 ms, 10 h → 1.8 s; all eight
 * attempts in about 5 s), every attempt made; a receiver that never answers is given up on after 2 s.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { importCompanies } from '../../lib/import/import';
import { SCOPES } from '../../lib/tokens/scopes';
import { createToken } from '../../lib/tokens/tokens';
import { bareCompany, importRecords, period, withPeriod } from '../support/records';
import { expectValidationError, TOKENS, useApi } from './http';

process.env['WEBHOOK_RETRY_SCALE'] = '0.00005';
process.env['WEBHOOK_TIMEOUT_MS'] = '2000';
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
  for (const s of [server, flaky]) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

/** A receiver that answers its requests by the script, in turn, then 204. */
const script: Array<'500' | 'timeout' | 'reset' | 'redirect'> = [];
const flakyReceived: Array<{ id: string }> = [];
const flaky = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    flakyReceived.push({ id: String(request.headers['webhook-id']) });
    const mode = script.shift();
    if (mode === undefined) response.writeHead(204).end();
    else if (mode === '500') response.writeHead(500).end('{}');
    else if (mode === 'redirect') response.writeHead(302, { Location: '/elsewhere' }).end();
    else if (mode === 'reset') request.socket.destroy();
    // 'timeout': no answer at all.
  });
});
beforeAll(() => new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve)));

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
let watchedListId: number;

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
  watchedListId = list.body.id;
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

/** The endpoint's deliveries log, oldest first, once `done` says it is complete. */
const attemptsOf = async (webhookId: string, done: (rows: Array<Record<string, unknown>>) => boolean) =>
  until(async () => {
    const answer = await api.get(`/v1/webhooks/${webhookId}/deliveries?limit=100`);
    const rows = [...(answer.body.data as Array<Record<string, unknown>>)].reverse();
    return done(rows) ? rows : undefined;
  }, 'the deliveries log');

it('attempts a test delivery once, never retried, and sends at most one a minute per endpoint', async () => {
  const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/hook`;
  const created = await json('POST', '/v1/webhooks', { url });
  expect(created.status).toBe(201);
  script.push('500');
  expect((await json('POST', `/v1/webhooks/${created.body.id}/test`, {})).status).toBe(202);

  const again = await json('POST', `/v1/webhooks/${created.body.id}/test`, {});
  expect(again.status).toBe(429);
  expect(again.body).toEqual({
    message: 'A webhook endpoint can be sent at most one test delivery a minute',
    code: 'THROTTLED',
    requestId: again.headers.get('x-request-id'),
  });
  const retryAfter = Number(again.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);

  const rows = await attemptsOf(created.body.id, (rows) => rows.length > 0);
  expect(rows).toMatchObject([{ attempt: 1, status: 'failed', responseStatus: 500, nextAttemptAt: null }]);
  // No retry comes (at this schedule's scale one would be due within milliseconds).
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(flakyReceived.filter((r) => r.id === rows[0]!.eventId)).toHaveLength(1);
  expect((await api.send('DELETE', `/v1/webhooks/${created.body.id}`)).status).toBe(204);
});

it('retries a receiver that answers 500, never answers, resets or redirects, each attempt in the log', async () => {
  const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/hook`;
  const created = await json('POST', '/v1/webhooks', { url });
  expect(created.status).toBe(201);
  // A company of its own in the watched list, then its first period: exactly one event.
  const company = bareCompany(74_000_001);
  await importRecords([company], { asOf: '2026-11-27' });
  const watched = await json('POST', '/v1/lists', {
    name: 'Watched for retries',
    type: 'STATIC',
    notifications: { enabled: true },
  });
  const added = await json('PUT', `/v1/lists/${watched.body.id}/companies`, {
    companies: [{ country: company.country, companyNumber: company.companyNumber }],
  });
  expect(added.status).toBe(200);
  script.push('500', 'timeout', 'reset', 'redirect');
  expect((await importRecords(withPeriod([company], 2022), { asOf: '2026-11-27' })).updates).toBe(1);

  // The first read that shows the delivered attempt: its `pending` entry is never shown beside it.
  const rows = await attemptsOf(created.body.id, (rows) => rows.some((r) => r.status === 'delivered'));
  // One entry per attempt, each its own outcome.
  expect(rows.map((r) => [r.attempt, r.status, r.responseStatus])).toEqual([
    [1, 'failed', 500],
    [2, 'failed', null],
    [3, 'failed', null],
    [4, 'failed', 302],
    [5, 'delivered', 204],
  ]);
  expect(rows.slice(0, 4).every((r) => typeof r.nextAttemptAt === 'string')).toBe(true);
  expect(rows[4]!.nextAttemptAt).toBeNull();
  // One delivery: five requests, one webhook-id.
  const ofEvent = flakyReceived.filter((r) => r.id === rows[0]!.eventId);
  expect(ofEvent).toHaveLength(5);
  expect((await api.send('DELETE', `/v1/webhooks/${created.body.id}`)).status).toBe(204);
});

it('leaves a delivery failed when the receiver is down for the whole schedule; the event stays in the feed', async () => {
  // A port nothing listens on: every attempt is refused.
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const created = await json('POST', '/v1/webhooks', { url: `http://127.0.0.1:${port}/hook` });
  expect(created.status).toBe(201);
  const feedStart = await api.get('/v1/events');

  const record = api.records[0]!;
  async function* lines() {
    yield JSON.stringify({ ...record, financials: [...record.financials!, period(2031), period(2032)] });
  }
  expect((await importCompanies(lines(), { asOf: '2026-11-26' })).updates).toBeGreaterThan(0);

  // Done when every event's delivery has ended (the import may derive more than one).
  const rows = await attemptsOf(created.body.id, (rows) => {
    const events = new Set(rows.map((r) => r.eventId));
    const ended = rows.filter((r) => r.status === 'failed' && r.nextAttemptAt === null);
    return rows.length > 0 && ended.length === events.size;
  });
  const eventId = rows[0]!.eventId;
  const ofEvent = rows.filter((r) => r.eventId === eventId);
  expect(ofEvent.map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  expect(ofEvent.map((r) => r.status)).toEqual(Array(8).fill('failed'));
  expect(ofEvent.every((r) => r.responseStatus === null)).toBe(true);
  expect(ofEvent[7]!.nextAttemptAt).toBeNull();
  const feed = await api.get(`/v1/events?after=${encodeURIComponent(feedStart.body.next)}`);
  expect(feed.body.data.map((e: { id: string }) => e.id)).toContain(eventId);
  expect((await api.send('DELETE', `/v1/webhooks/${created.body.id}`)).status).toBe(204);
});

it('refuses a private-address URL and keeps accounts apart', async () => {
  const refused = await json('POST', '/v1/webhooks', { url: 'https://10.1.2.3/hook' });
  expectValidationError(refused, ['url']);
  const other = await api.get(`/v1/webhooks/${endpoint.id}`, { token: TOKENS.carol });
  expect(other.status).toBe(404);
  expect(other.body.message).toBe('Webhook not found');
  expect((await api.get('/v1/events', { token: TOKENS.bob })).status).toBe(403);
});

it('shows another user of the account only the events of lists it sees, naming only those', async () => {
  const erin = (
    await createToken({
      accountId: 'acme',
      userEmail: 'erin@acme.example',
      scopes: [...SCOPES],
      expiresAt: null,
    })
  ).token;
  const alices = await api.get('/v1/events?limit=500');
  expect(alices.body.data.length).toBeGreaterThan(0);
  // Alice's watched lists are hers alone: Erin sees none of their events.
  const before = await api.get('/v1/events?limit=500', { token: erin });
  expect(before.status).toBe(200);
  expect(before.body.data).toEqual([]);

  expect((await json('PATCH', `/v1/lists/${watchedListId}`, { shared: true })).status).toBe(200);
  const after = await api.get('/v1/events?limit=500', { token: erin });
  const shown = after.body.data as Array<{ id: string; data: { lists: number[] } }>;
  const naming = (alices.body.data as typeof shown).filter((e) => e.data.lists.includes(watchedListId));
  expect(shown.map((e) => e.id)).toEqual(naming.map((e) => e.id));
  expect(shown.every((e) => e.data.lists.join() === String(watchedListId))).toBe(true);
  expect((await json('PATCH', `/v1/lists/${watchedListId}`, { shared: false })).status).toBe(200);
});
