/**
 * §12: "an endpoint whose deliveries all failed for 5 days in a row is set `enabled: false`", on
 * DynamoDB Local with a real receiver on 127.0.0.1 that answers 500, and the real retry schedule on an
 * injected clock (the stage's queue taken and each job delivered at the clock's time, stepped an hour
 * at a time over six days): an event a day (a watched company's update), every attempt of each made and
 * failed; the attempt 5 days after the first failure disables the endpoint and is logged as the
 * delivery's last (`failed`, no next attempt), the retries still queued are dropped (no request, no
 * entry; the failed attempt before each says no attempt is coming), nothing more reaches the receiver;
 * re-enabled, the endpoint delivers again, and a new failure starts a new count.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';
import { getDeliveries } from '../../lib/webhooks/deliveries';
import { readEvents } from '../../lib/events/store';
import { deliverAll, queueNewEvents } from '../../lib/webhooks/deliver';
import { takeDueDeliveries } from '../../lib/webhooks/queue';
import { FAILING_DISABLES_AFTER_MS, MAX_ATTEMPTS } from '../../lib/webhooks/schedule';
import { createWebhook, getOneWebhook, updateOneWebhook } from '../../lib/webhooks/webhooks';
import { bareCompany, importRecords, withPeriod } from '../support/records';
import { watchCompanies } from '../support/watched';
import { LOCAL_RECEIVERS } from '../support/webhook-deliveries';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(300_000);
process.env['WEBHOOK_RETRY_SCALE'] = '1';
process.env['WEBHOOK_TIMEOUT_MS'] = '5000';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const caller: Caller = { accountId: 'failing', userEmail: 'ops@failing.example', scopes: [...SCOPES] };

let answer = 500;
const received: Array<{ id: string; at: number }> = [];
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received.push({ id: String(request.headers['webhook-id']), at: clock });
    response.writeHead(answer).end();
  });
});
beforeAll(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let clock = Date.now();
/** Every job due by the clock, delivered at the clock's time, the clock moved on by `step` until `until`. */
async function runUntil(until: number, step = HOUR): Promise<void> {
  for (; clock <= until; clock += step) {
    for (let due = await takeDueDeliveries(clock); due.length > 0; due = await takeDueDeliveries(clock)) {
      // As the delivery worker does: a poll's jobs as one batch (the endpoint read once, health kept by it).
      for (const outcome of await deliverAll(due, { rules: LOCAL_RECEIVERS, now: () => new Date(clock) }))
        if (outcome instanceof Error) throw outcome;
    }
  }
}

let number = 73_000_000;
let feedRead = 0;
/** An update of a company in a watched list of the account, queued for the endpoint at the clock's time. */
async function newEvent(): Promise<string> {
  const record = bareCompany(number++);
  await importRecords([record]);
  await watchCompanies(caller, [record]);
  await importRecords(withPeriod([record], 2022));
  await queueNewEvents({ nowMs: clock });
  const { events, readTo } = await readEvents(caller.accountId, feedRead, 10, Date.now());
  feedRead = readTo;
  expect(events).toHaveLength(1);
  return events[0]!.id;
}

const log = async (id: string) => (await getDeliveries(caller.accountId, id, { limit: 100, offset: 0 })).data;

it('disables an endpoint whose deliveries all failed for 5 days, drops the rest, and works again when re-enabled', async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const { body: endpoint } = await createWebhook(caller, { url }, LOCAL_RECEIVERS);
  const start = clock;
  const events: string[] = [];
  for (let day = 0; day <= 5; day++) {
    events.push(await newEvent());
    await runUntil(start + (day + 1) * DAY - HOUR);
    expect((await getOneWebhook(caller, endpoint.id)).enabled).toBe(day < 5);
  }
  // A day's event failed all 8 attempts (about 27.6 hours) while the endpoint was enabled.
  expect(received.filter((r) => r.id === events[0]).length).toBe(MAX_ATTEMPTS);
  const disabledAt = received[received.length - 1]!.at;
  expect(disabledAt - start).toBeGreaterThanOrEqual(FAILING_DISABLES_AFTER_MS);
  expect(disabledAt - start).toBeLessThan(FAILING_DISABLES_AFTER_MS + DAY);

  // Two more days: the retries still queued come due and are dropped without a request.
  const requests = received.length;
  await runUntil(clock + 2 * DAY);
  expect(received.length).toBe(requests);
  const rows = await log(endpoint.id);
  // One entry per attempt made, each failed: none left `pending`, none for a retry dropped.
  expect(rows.every((r) => r.status === 'failed' && r.durationMs !== null)).toBe(true);
  const last = new Map<string, (typeof rows)[number]>();
  for (const row of rows) if (!last.has(row.eventId)) last.set(row.eventId, row);
  expect([...last.keys()].sort()).toEqual([...events].sort());
  // Each delivery's last attempt says no attempt is coming; every earlier one said when the next was due.
  expect([...last.values()].map((r) => r.nextAttemptAt)).toEqual(events.map(() => null));
  expect(rows.filter((r) => r.nextAttemptAt === null)).toHaveLength(events.length);
  const disabling = rows.find((r) => Date.parse(r.at) === disabledAt)!;
  expect(disabling).toMatchObject({ status: 'failed', responseStatus: 500, nextAttemptAt: null });
  expect(disabling.attempt).toBeLessThan(MAX_ATTEMPTS);
  // Deliveries cut short by the disabling: their last attempt is not the eighth, yet nothing is coming.
  const cutShort = [...last.values()].filter((r) => r !== disabling && r.attempt < MAX_ATTEMPTS);
  expect(cutShort.length).toBeGreaterThan(0);

  // Re-enabled (PATCH enabled: true): it delivers again, and its count of failures starts afresh.
  const enabled = await updateOneWebhook(caller, endpoint.id, { enabled: true }, LOCAL_RECEIVERS);
  expect(enabled.enabled).toBe(true);
  const failsOnce = await newEvent();
  await runUntil(clock, 1);
  expect((await getOneWebhook(caller, endpoint.id)).enabled).toBe(true);
  answer = 204;
  await runUntil(clock + HOUR);
  expect(received.filter((r) => r.id === failsOnce).length).toBe(2);
  expect((await log(endpoint.id))[0]).toMatchObject({ eventId: failsOnce, attempt: 2, status: 'delivered' });
});
