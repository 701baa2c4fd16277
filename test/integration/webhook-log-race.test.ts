/**
 * §12's deliveries log read while attempts are logged: "when the attempt is made, its entry replaces the
 * `pending` one". On DynamoDB Local, readers of `GET …/deliveries` (getDeliveries) run without pause while
 * writeLog replaces the pending entries of many retries one attempt at a time, as the delivery does. A
 * reader never sees an attempt with its `pending` entry, never misses both, and `total` counts each
 * attempt once. Then: a repeated writeLog changes nothing.
 */
import { getDeliveries, writeLog, type Attempt, type EntryKey } from '../../lib/webhooks/deliveries';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(240_000);

const accountId = 'log-race';
const EVENTS = 20;
const ROUNDS = 6;
const T0 = Date.UTC(2026, 10, 29, 12);

const eventIdOf = (e: number) => `evt_${String(e).padStart(24, '0')}`;

/** Attempt 1 of each event, failed at T0 + e s, ended 300 ms later: its retry's `pending` entry. */
function firstAttempts(webhookId: string): { failed: Attempt[]; pending: Attempt[] } {
  const failed: Attempt[] = [];
  const pending: Attempt[] = [];
  for (let e = 0; e < EVENTS; e++) {
    const key = { accountId, webhookId, eventId: eventIdOf(e), atMs: T0 + e * 1000 };
    const nextAttemptAtMs = key.atMs + 300 + 5000;
    failed.push({
      ...key,
      attempt: 1,
      status: 'failed',
      responseStatus: 500,
      durationMs: 300,
      nextAttemptAtMs,
    });
    pending.push({
      ...key,
      attempt: 2,
      atMs: key.atMs + 300,
      status: 'pending',
      responseStatus: null,
      durationMs: null,
      nextAttemptAtMs,
    });
  }
  return { failed, pending };
}

/** Attempt 2 made when due, delivered: its entry replaces the pending one. */
const secondAttempt = (pending: Attempt): Attempt => ({
  ...pending,
  atMs: pending.nextAttemptAtMs!,
  status: 'delivered',
  responseStatus: 200,
  durationMs: 12,
  nextAttemptAtMs: null,
});

it('never shows an attempt with its pending entry, nor neither, while attempts replace them', async () => {
  let reads = 0;
  let replaced = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const webhookId = `wh_race${round}`;
    const { failed, pending } = firstAttempts(webhookId);
    await writeLog({ put: [...failed, ...pending], remove: [] });

    let writing = true;
    const reader = (async () => {
      while (writing) {
        const { data, pagination } = await getDeliveries(accountId, webhookId, { limit: 100, offset: 0 });
        reads++;
        // Each event: attempt 1 and one entry for attempt 2 (pending or made), never two, never none.
        const perAttempt = new Map<string, string[]>();
        for (const d of data) {
          const key = `${d.eventId}#${d.attempt}`;
          perAttempt.set(key, [...(perAttempt.get(key) ?? []), d.status]);
        }
        for (let e = 0; e < EVENTS; e++) {
          expect(perAttempt.get(`${eventIdOf(e)}#1`)).toEqual(['failed']);
          expect(perAttempt.get(`${eventIdOf(e)}#2`)).toHaveLength(1);
        }
        expect(data).toHaveLength(2 * EVENTS);
        expect(pagination.total).toBe(2 * EVENTS);
      }
    })();
    // As the delivery's writes: one attempt at a time, and a few attempts in one request.
    for (let e = 0; e < EVENTS;) {
      const group = pending.slice(e, e + 1 + (e % 3));
      await writeLog({ put: group.map(secondAttempt), remove: group });
      e += group.length;
      replaced += group.length;
    }
    writing = false;
    await reader;

    const { data } = await getDeliveries(accountId, webhookId, { limit: 100, offset: 0 });
    expect(data.filter((d) => d.status === 'pending')).toEqual([]);
    expect(data.filter((d) => d.status === 'delivered')).toHaveLength(EVENTS);
  }
  expect(replaced).toBe(ROUNDS * EVENTS);
  expect(reads).toBeGreaterThan(ROUNDS);
});

it('keeps pages and total exact when a pending entry and its attempt are both stored', async () => {
  // The moment between the writes of a replacement: both items in the table.
  const webhookId = 'wh_between';
  const { failed, pending } = firstAttempts(webhookId);
  const made = pending.slice(0, 5).map(secondAttempt);
  await writeLog({ put: [...failed, ...pending, ...made], remove: [] });

  const all = await getDeliveries(accountId, webhookId, { limit: 100, offset: 0 });
  expect(all.pagination.total).toBe(2 * EVENTS);
  expect(all.data).toHaveLength(2 * EVENTS);
  const seen = all.data.map((d) => `${d.eventId}#${d.attempt}`);
  expect(new Set(seen).size).toBe(seen.length);
  // Newest first, the attempts made among them, their pending entries left out.
  const times = all.data.map((d) => d.at);
  expect(times).toEqual([...times].sort().reverse());
  expect(all.data.filter((d) => d.status === 'delivered')).toHaveLength(5);
  expect(all.data.filter((d) => d.status === 'pending')).toHaveLength(EVENTS - 5);

  // Pages of 7 read in turn give the same entries in the same order, each once.
  const pages: string[] = [];
  for (let offset = 0; offset < 2 * EVENTS; offset += 7) {
    const page = await getDeliveries(accountId, webhookId, { limit: 7, offset });
    expect(page.pagination.total).toBe(2 * EVENTS);
    pages.push(...page.data.map((d) => `${d.eventId}#${d.attempt}#${d.status}`));
  }
  expect(pages).toEqual(all.data.map((d) => `${d.eventId}#${d.attempt}#${d.status}`));
});

it('changes nothing when a writeLog is repeated', async () => {
  const webhookId = 'wh_repeat';
  const { failed, pending } = firstAttempts(webhookId);
  await writeLog({ put: [...failed, ...pending], remove: [] });
  const changes = { put: pending.slice(0, 3).map(secondAttempt), remove: pending.slice(0, 3) as EntryKey[] };
  await writeLog(changes);
  const once = await getDeliveries(accountId, webhookId, { limit: 100, offset: 0 });
  await writeLog(changes);
  expect(await getDeliveries(accountId, webhookId, { limit: 100, offset: 0 })).toEqual(once);
  expect(once.data.filter((d) => d.status === 'delivered')).toHaveLength(3);
  expect(once.pagination.total).toBe(2 * EVENTS);
});

it('keeps an attempt whose entry has its pending entry key (a retry made the very millisecond it was queued)', async () => {
  const webhookId = 'wh_same_ms';
  const { failed, pending } = firstAttempts(webhookId);
  await writeLog({ put: [failed[0]!, pending[0]!], remove: [] });
  await writeLog({ put: [{ ...secondAttempt(pending[0]!), atMs: pending[0]!.atMs }], remove: [pending[0]!] });
  const { data } = await getDeliveries(accountId, webhookId, { limit: 100, offset: 0 });
  expect(data.map((d) => [d.attempt, d.status])).toEqual([
    [2, 'delivered'],
    [1, 'failed'],
  ]);
});
