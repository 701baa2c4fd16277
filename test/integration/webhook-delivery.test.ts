/**
 * Webhook delivery (contract §12) on DynamoDB Local to a real HTTP receiver on 127.0.0.1 that verifies
 * signatures with the `standardwebhooks` package: events of an import reach it exactly once per
 * `webhook-id`; a receiver that answers 500, never answers, resets the connection or redirects gets the
 * retries of the schedule (compressed by WEBHOOK_RETRY_SCALE, every attempt made) and the log shows
 * each attempt's own outcome; one down for the whole schedule leaves the delivery `failed` and the event
 * in the feed; a queued retry shows `pending` until its attempt replaces it; a test delivery is
 * attempted once, one a minute; a rotated secret signs beside the new one; a name that resolves to a
 * private address at delivery time is refused before any connection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { TestDeliveryTooSoon } from '../../lib/errors';
import { getEvents } from '../../lib/events/feed';
import { lastEventNumber } from '../../lib/events/store';
import type { Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';
import { getDeliveries } from '../../lib/webhooks/deliveries';
import { deliver, queueNewEvents } from '../../lib/webhooks/deliver';
import type { DueJob } from '../../lib/webhooks/job';
import { takeDueDeliveries } from '../../lib/webhooks/queue';
import { MAX_ATTEMPTS } from '../../lib/webhooks/schedule';
import { createWebhook, rotateSecret, sendTestEvent, updateOneWebhook } from '../../lib/webhooks/webhooks';
import type { UrlRules } from '../../lib/webhooks/url';
import { bareCompany, importRecords, withPeriod } from '../support/records';
import { watchCompanies } from '../support/watched';
import { deliverUntilQuiet, LOCAL_RECEIVERS } from '../support/webhook-deliveries';
import { useFreshTable } from '../support/table';

useFreshTable();
// The 1,000-event test takes about 40 s alone and more than 120 s on a machine busy with other suites.
jest.setTimeout(300_000);

// The schedule at 1/20,000: 5 s → 0.25 ms, 10 h → 1.8 s; the whole of it in about 5 s. A receiver that
// never answers is given up on after 500 ms instead of 10 s (its own test), 5 s otherwise: a loaded
// machine must not turn a slow answer into a redelivery here.
process.env['WEBHOOK_RETRY_SCALE'] = '0.00005';
process.env['WEBHOOK_TIMEOUT_MS'] = '5000';

const servers: http.Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

type Mode = 'ok' | '500' | 'timeout' | 'reset' | 'redirect';

interface Received {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
}

/** A receiver on 127.0.0.1 that answers each request by the next mode of its script, then `ok`. */
async function receiver() {
  const received: Received[] = [];
  const script: Mode[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        id: String(request.headers['webhook-id']),
        timestamp: String(request.headers['webhook-timestamp']),
        signature: String(request.headers['webhook-signature']),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const mode = script.shift() ?? 'ok';
      if (mode === 'ok') response.writeHead(204).end();
      else if (mode === '500') response.writeHead(500).end('{}');
      else if (mode === 'redirect') response.writeHead(302, { Location: '/elsewhere' }).end();
      else if (mode === 'reset') request.socket.destroy();
      // 'timeout': no answer at all.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  servers.push(server);
  return { url: `http://127.0.0.1:${port}/hook`, received, script, server };
}

/** Two seconds of quiet outwaits the schedule at 1/20,000 (its 10 h step: 1.8 s). */
const drain = () => deliverUntilQuiet(40);

const account = (name: string): Caller => ({
  accountId: name,
  userEmail: `x@${name}.example`,
  scopes: [...SCOPES],
});

let number = 72_000_000;
/** Companies in a watched list of the account, then a new period each: one event per company. */
async function eventsFor(caller: Caller, companies: number): Promise<void> {
  const records = Array.from({ length: companies }, () => bareCompany(number++));
  await load(records);
  await watchCompanies(caller, records);
  await load(withPeriod(records, 2022));
}

const load = (records: CompanyRecordInput[]) => importRecords(records, { batchSize: 50 });

const log = (caller: Caller, webhookId: string) =>
  getDeliveries(caller.accountId, webhookId, { limit: 100, offset: 0 });

describe('delivery to a healthy receiver', () => {
  it('delivers every event of a 1,000-update import exactly once per webhook-id, validly signed', async () => {
    const caller = account('healthy');
    const hook = await receiver();
    const { body: endpoint } = await createWebhook(caller, { url: hook.url }, LOCAL_RECEIVERS);

    await eventsFor(caller, 1000);
    expect(await lastEventNumber(caller.accountId)).toBe(1000);
    await drain();

    const feed = JSON.parse((await getEvents(caller, { limit: 500 })).text) as {
      data: Array<{ id: string }>;
    };
    expect(feed.data.length).toBeGreaterThan(0);
    const ids = hook.received.map((r) => r.id);
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1000);
    const verifier = new Webhook(endpoint.secret);
    for (const request of hook.received) {
      const event = verifier.verify(request.body, {
        'webhook-id': request.id,
        'webhook-timestamp': request.timestamp,
        'webhook-signature': request.signature,
      }) as { id: string; type: string };
      expect(event).toMatchObject({ id: request.id, type: 'company.update' });
    }
    const attempts = await getDeliveries(caller.accountId, endpoint.id, { limit: 1, offset: 0 });
    expect(attempts.pagination.total).toBe(1000);
    expect(attempts.data[0]).toMatchObject({
      attempt: 1,
      status: 'delivered',
      responseStatus: 204,
      nextAttemptAt: null,
    });
  });
});

describe('failed attempts', () => {
  it.each<[string, Mode, number | null]>([
    ['answers 500', '500', 500],
    ['never answers', 'timeout', null],
    ['resets the connection', 'reset', null],
    ['redirects (never followed)', 'redirect', 302],
  ])(
    'retries a receiver that %s, with the same webhook-id, and logs each attempt as it went',
    async (_, mode, status) => {
      const caller = account(`failing-${mode}`);
      const hook = await receiver();
      const { body: endpoint } = await createWebhook(caller, { url: hook.url }, LOCAL_RECEIVERS);
      hook.script.push(mode, mode);

      await eventsFor(caller, 1);
      await drain();

      const [eventId] = hook.received.map((r) => r.id);
      expect(hook.received.map((r) => [r.path, r.id])).toEqual([
        ['/hook', eventId],
        ['/hook', eventId],
        ['/hook', eventId],
      ]);
      // One entry per attempt, each its own outcome: the queued retries' `pending` entries were replaced.
      const { data } = await log(caller, endpoint.id);
      expect(data.map((d) => [d.attempt, d.status, d.responseStatus])).toEqual([
        [3, 'delivered', 204],
        [2, 'failed', status],
        [1, 'failed', status],
      ]);
      expect(data[0]!.nextAttemptAt).toBeNull();
      // A failed attempt with a retry to come says when; that retry was made no earlier.
      for (const [failed, next] of [
        [data[2]!, data[1]!],
        [data[1]!, data[0]!],
      ] as const) {
        expect(failed.nextAttemptAt).not.toBeNull();
        expect(Date.parse(failed.nextAttemptAt!)).toBeGreaterThanOrEqual(Date.parse(failed.at));
        expect(Date.parse(next.at)).toBeGreaterThanOrEqual(Date.parse(failed.nextAttemptAt!));
      }
    },
  );

  it('gives up after the eighth attempt on a receiver down for the whole schedule; the event stays in the feed', async () => {
    const caller = account('down');
    const hook = await receiver();
    const { body: endpoint } = await createWebhook(caller, { url: hook.url }, LOCAL_RECEIVERS);
    await new Promise<void>((resolve) => hook.server.close(() => resolve()));

    await eventsFor(caller, 1);
    await drain();

    const { data } = await log(caller, endpoint.id);
    expect(data.map((d) => [d.attempt, d.status, d.responseStatus])).toEqual(
      Array.from({ length: MAX_ATTEMPTS }, (_, i) => [MAX_ATTEMPTS - i, 'failed', null]),
    );
    expect(data[0]!.nextAttemptAt).toBeNull();
    expect(data.slice(1).every((d) => d.nextAttemptAt !== null)).toBe(true);
    const feed = JSON.parse((await getEvents(caller, { limit: 10 })).text) as { data: Array<{ id: string }> };
    expect(feed.data.map((e) => e.id)).toEqual([data[0]!.eventId]);
  });

  it('shows a queued retry as `pending` (when queued, when due) until its attempt replaces it', async () => {
    const caller = account('queued');
    const hook = await receiver();
    const { body: endpoint } = await createWebhook(caller, { url: hook.url }, LOCAL_RECEIVERS);
    hook.script.push('500');
    await eventsFor(caller, 1);
    await queueNewEvents();
    const queued: DueJob[] = [];

    const [first] = await takeDueDeliveries(Date.now());
    // A clock that stands still: the attempt and its retry's queueing fall in one millisecond, and the
    // retry is still the newer entry of the log.
    const instant = new Date();
    expect(
      await deliver(first!, {
        rules: LOCAL_RECEIVERS,
        enqueue: async (jobs) => void queued.push(...jobs),
        now: () => instant,
      }),
    ).toBe('failed');

    const { data } = await log(caller, endpoint.id);
    expect(data).toEqual([
      {
        eventId: first!.job.eventId,
        attempt: 2,
        at: expect.any(String),
        status: 'pending',
        responseStatus: null,
        durationMs: null,
        nextAttemptAt: data[1]!.nextAttemptAt,
      },
      {
        eventId: first!.job.eventId,
        attempt: 1,
        at: expect.any(String),
        status: 'failed',
        responseStatus: 500,
        durationMs: expect.any(Number),
        nextAttemptAt: new Date(queued[0]!.dueMs).toISOString(),
      },
    ]);
    expect(Date.parse(data[0]!.at)).toBeGreaterThanOrEqual(Date.parse(data[1]!.at));

    expect(await deliver(queued[0]!, { rules: LOCAL_RECEIVERS, enqueue: async () => undefined })).toBe(
      'delivered',
    );
    expect((await log(caller, endpoint.id)).data.map((d) => [d.attempt, d.status])).toEqual([
      [2, 'delivered'],
      [1, 'failed'],
    ]);
  });
});

describe('test deliveries', () => {
  it('attempts a test once and never retries it', async () => {
    const caller = account('tested');
    const hook = await receiver();
    const { body: endpoint } = await createWebhook(caller, { url: hook.url }, LOCAL_RECEIVERS);
    hook.script.push('500');

    const { eventId } = await sendTestEvent(caller, endpoint.id);
    await drain();

    expect(hook.received.map((r) => r.id)).toEqual([eventId]);
    const { data } = await log(caller, endpoint.id);
    expect(data).toMatchObject([
      { eventId, attempt: 1, status: 'failed', responseStatus: 500, nextAttemptAt: null },
    ]);
  });

  it('sends at most one test a minute per endpoint; another says how many seconds to wait', async () => {
    const caller = account('tested-twice');
    const hook = await receiver();
    const { body: endpoint } = await createWebhook(caller, { url: hook.url }, LOCAL_RECEIVERS);
    const { body: other } = await createWebhook(caller, { url: hook.url }, LOCAL_RECEIVERS);
    const at = Date.now();

    await sendTestEvent(caller, endpoint.id, new Date(at));
    const refusal = sendTestEvent(caller, endpoint.id, new Date(at + 20_500));
    await expect(refusal).rejects.toBeInstanceOf(TestDeliveryTooSoon);
    await expect(refusal).rejects.toMatchObject({ retryAfterSeconds: 40 });
    // Another endpoint of the account has a minute of its own.
    await expect(sendTestEvent(caller, other.id, new Date(at + 20_500))).resolves.toBeDefined();
    await expect(sendTestEvent(caller, endpoint.id, new Date(at + 60_000))).resolves.toBeDefined();
    const queued = await takeDueDeliveries(at + 60_000);
    expect(queued.filter((q) => q.job.accountId === caller.accountId && q.job.test)).toHaveLength(3);
  });
});

describe('secrets and endpoints', () => {
  it('signs with the new and the rotated-out secret for 24 hours', async () => {
    const caller = account('rotated');
    const hook = await receiver();
    const { body: endpoint } = await createWebhook(caller, { url: hook.url }, LOCAL_RECEIVERS);
    const { secret } = await rotateSecret(caller, endpoint.id);

    await sendTestEvent(caller, endpoint.id);
    await drain();

    const [request] = hook.received;
    const signatures = request!.signature.split(' ');
    expect(signatures).toHaveLength(2);
    const pairs: Array<[string, string]> = [
      [secret, signatures[0]!],
      [endpoint.secret, signatures[1]!],
    ];
    for (const [key, signature] of pairs) {
      expect(
        new Webhook(key).verify(request!.body, {
          'webhook-id': request!.id,
          'webhook-timestamp': request!.timestamp,
          'webhook-signature': signature,
        }),
      ).toMatchObject({ type: 'webhook.test', data: {} });
    }
  });

  it('drops the pending deliveries of a disabled endpoint', async () => {
    const caller = account('disabled');
    const hook = await receiver();
    const { body: endpoint } = await createWebhook(caller, { url: hook.url }, LOCAL_RECEIVERS);
    await sendTestEvent(caller, endpoint.id);
    await updateOneWebhook(caller, endpoint.id, { enabled: false }, LOCAL_RECEIVERS);

    await drain();

    expect(hook.received).toEqual([]);
    expect((await log(caller, endpoint.id)).data).toEqual([]);
  });

  it('refuses, before any connection, a name that resolves to a private address at delivery time', async () => {
    const caller = account('rebound');
    const asked: string[] = [];
    let answer = '93.184.216.34';
    const rules: UrlRules = {
      allowLocal: false,
      resolve: async (host) => {
        asked.push(host);
        return [answer];
      },
    };
    const { body: endpoint } = await createWebhook(
      caller,
      { url: 'https://hooks.rebound.example/in' },
      rules,
    );
    const { eventId } = await sendTestEvent(caller, endpoint.id);
    answer = '10.0.0.9';

    const [job] = await takeDueDeliveries(Date.now());
    const outcome = await deliver(job!, { rules, enqueue: async () => undefined });

    expect(job!.job.eventId).toBe(eventId);
    expect(outcome).toBe('failed');
    expect(asked).toEqual(['hooks.rebound.example', 'hooks.rebound.example']);
    const { data } = await log(caller, endpoint.id);
    // A test delivery: attempted once, never retried.
    expect(data).toMatchObject([{ attempt: 1, status: 'failed', responseStatus: null, nextAttemptAt: null }]);
  });
});
