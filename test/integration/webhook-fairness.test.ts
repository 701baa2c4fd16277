/**
 * Endpoints do not wait on each other (contract §12): with one receiver on 127.0.0.1 that never answers
 * and one that answers 500 at once, the second's retry is queued when its attempt ends — while the first
 * is still being waited on — and due 4 to 6 s after that attempt ended (its `nextAttemptAt` against the
 * time its retry was queued, both from the delivery's clock: no wall-clock assertion); on the local
 * stage's run, the retry is made while the first attempt is still under way.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';
import { getDeliveries } from '../../lib/webhooks/deliveries';
import { deliverAll, deliverDue } from '../../lib/webhooks/deliver';
import type { DueJob } from '../../lib/webhooks/job';
import { enqueueDeliveries } from '../../lib/webhooks/queue';
import { createWebhook } from '../../lib/webhooks/webhooks';
import { LOCAL_RECEIVERS } from '../support/webhook-deliveries';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(60_000);

// A receiver that never answers is given up on after 10 s, as on a stage: long enough that the other
// endpoint's attempt (its log entries written to a busy DynamoDB Local) ends well before it.
process.env['WEBHOOK_TIMEOUT_MS'] = '10000';
afterEach(() => delete process.env['WEBHOOK_RETRY_SCALE']);

const servers: http.Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A receiver on 127.0.0.1: `silent` never answers, else 500 to the first request and 204 after. */
async function receiver(silent: boolean) {
  const state = { requests: 0 };
  const server = http.createServer((request, response) => {
    state.requests++;
    request.resume();
    request.on('end', () => {
      if (silent) return;
      response.writeHead(state.requests === 1 ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, state };
}

const account = (name: string): Caller => ({
  accountId: name,
  userEmail: `x@${name}.example`,
  scopes: [...SCOPES],
});

/** An endpoint of its own account with a receiver, and a first attempt due now. */
async function endpointWithJob(name: string, silent: boolean) {
  const caller = account(name);
  const hook = await receiver(silent);
  const { body: endpoint } = await createWebhook(caller, { url: hook.url }, LOCAL_RECEIVERS);
  const eventId = `evt_${randomBytes(12).toString('hex')}`;
  // An event that names no list: shown to every endpoint as it is (visibility is another test's).
  const body = JSON.stringify({ id: eventId, type: 'company.update', createdAt: new Date().toISOString() });
  const due: DueJob = {
    job: { accountId: caller.accountId, webhookId: endpoint.id, eventId, attempt: 1, body },
    dueMs: Date.now(),
  };
  const log = async () => (await getDeliveries(caller.accountId, endpoint.id, { limit: 10, offset: 0 })).data;
  return { caller, endpoint, hook, due, log };
}

it("queues a failed attempt's retry when the attempt ends, due 4–6 s after, while another endpoint's receiver is still silent", async () => {
  process.env['WEBHOOK_RETRY_SCALE'] = '1';
  const slow = await endpointWithJob('silent-receiver', true);
  const fast = await endpointWithJob('failing-receiver', false);
  const queued: DueJob[] = [];

  const outcomes = await deliverAll([slow.due, fast.due], {
    rules: LOCAL_RECEIVERS,
    enqueue: async (jobs) => {
      queued.push(...jobs);
    },
  });

  expect(outcomes).toEqual(['failed', 'failed']);
  const retries = queued.map((due) => due.job.accountId);
  expect(retries).toEqual([fast.caller.accountId, slow.caller.accountId]);
  const fastRetry = queued[0]!;
  expect(fastRetry.job.attempt).toBe(2);
  // Queued while the silent receiver's attempt was still under way (its own retry is queued when it
  // ends, by its timeout), not when the batch ended.
  expect(slow.hook.state.requests).toBe(1);

  const [pending, failed] = await fast.log();
  expect(failed).toMatchObject({ attempt: 1, status: 'failed', responseStatus: 500 });
  expect(pending).toMatchObject({ attempt: 2, status: 'pending', responseStatus: null, durationMs: null });
  expect(failed!.nextAttemptAt).toBe(new Date(fastRetry.dueMs).toISOString());
  expect(pending!.nextAttemptAt).toBe(failed!.nextAttemptAt);
  // `at` of the pending entry: when the retry was queued, the moment the failed attempt ended.
  const afterEnd = Date.parse(failed!.nextAttemptAt!) - Date.parse(pending!.at);
  expect(afterEnd).toBeGreaterThanOrEqual(4000);
  expect(afterEnd).toBeLessThanOrEqual(6000);

  // The silent receiver's attempt ended later, by its timeout, and its own retry is due after that.
  const [, slowFailed] = await slow.log();
  expect(slowFailed).toMatchObject({ attempt: 1, status: 'failed', responseStatus: null });
  const slowEnded = Date.parse(slowFailed!.at) + slowFailed!.durationMs!;
  expect(slowEnded).toBeGreaterThan(Date.parse(pending!.at));
  expect(Date.parse(slowFailed!.nextAttemptAt!) - slowEnded).toBeGreaterThanOrEqual(4000 - 50);
});

it("makes the retry on the local stage's run while another endpoint's attempt is still under way", async () => {
  // 5 s → 1.2 to 1.8 s: due well before the 10 s timeout, and the silent receiver's retry well after its
  // attempt's writes (two requests) have landed, however loaded DynamoDB Local is.
  process.env['WEBHOOK_RETRY_SCALE'] = '0.3';
  const slow = await endpointWithJob('silent-receiver-local', true);
  const fast = await endpointWithJob('failing-receiver-local', false);
  await enqueueDeliveries([slow.due, fast.due]);

  const outcomes = await deliverDue({ rules: LOCAL_RECEIVERS });

  // The run ends when nothing is due and no attempt is under way: the silent receiver's retry, due
  // after its timeout, is the next run's.
  expect([...outcomes].sort()).toEqual(['delivered', 'failed', 'failed']);
  expect(fast.hook.state.requests).toBe(2);
  const [delivered, failed] = await fast.log();
  expect(delivered).toMatchObject({ attempt: 2, status: 'delivered', responseStatus: 204 });
  expect(failed).toMatchObject({ attempt: 1, status: 'failed', responseStatus: 500 });
  // The silent receiver's attempt ended after the other endpoint's retry was made.
  const slowFirst = (await slow.log()).find((d) => d.attempt === 1)!;
  expect(Date.parse(slowFirst.at) + slowFirst.durationMs!).toBeGreaterThan(Date.parse(delivered!.at));
});
