/**
 * Events (contract §12) from import to feed, on DynamoDB Local: the import derives one event per update
 * per account whose notification-enabled static lists hold the company, naming those lists; enabling
 * notifications replays nothing; a batch derived again writes nothing twice; the feed reads on from
 * its cursor without skipping or repeating an event while an import writes; and the handler's answers.
 */
import type { CompanyRef } from '../../lib/companies/identifiers';
import { CLOCK_MARGIN_MS, encodeCursor, type CompanyUpdateEvent } from '../../lib/events/event';
import { deriveAndWriteEvents } from '../../lib/events/derive';
import { getEvents } from '../../lib/events/feed';
import { LANDING_MS, readEvents, writeEvents } from '../../lib/events/store';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamodb, tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { eventRoutes } from '../../lib/events/routes';
import { addCompanies } from '../../lib/lists/add-companies';
import { createOneList, updateOneList } from '../../lib/lists/manage';
import { getFeeds } from '../../lib/updates/store';
import { getRelationships } from '../../lib/companies/holdings-store';
import type { Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';
import { announceEvents } from '../../lib/webhooks/announce';
import { handler as getEventsHandler } from '../../functions/get-events';
import { ALICE, call } from '../support/events';
import {
  ACME,
  bareCompany,
  companyRecord,
  HOLDING,
  holdingRecord,
  importRecords,
  period,
} from '../support/records';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(180_000);

const CAROL: Caller = { accountId: 'globex', userEmail: 'carol@globex.example', scopes: [...SCOPES] };

const staff = [
  { contactId: 93001, firstName: 'An', lastName: 'Peeters', jobTitle: 'CEO' },
  { contactId: 93002, firstName: 'Élodie', lastName: 'Dubois', jobTitle: 'CFO' },
];
const acmeV1 = companyRecord({
  financials: [period(2021, { grossMargin: 100_000, healthIndicator: 6 })],
  contacts: staff,
});
/** A new period (margin +15 %, health −2) and one person gone: four updates. */
const acmeV2 = companyRecord({
  financials: [...acmeV1.financials!, period(2022, { grossMargin: 115_000, healthIndicator: 4 })],
  contacts: staff.slice(0, 1),
});
const acmeV3 = companyRecord({
  financials: [...acmeV2.financials!, period(2023, { grossMargin: 115_000, healthIndicator: 4 })],
  contacts: staff.slice(0, 1),
});
const holding = holdingRecord();

async function staticList(caller: Caller, name: string, enabled: boolean, companies: CompanyRef[]) {
  const { id } = (await createOneList(caller, { name, type: 'STATIC', notifications: { enabled } })).body;
  if (companies.length > 0) {
    await addCompanies(
      caller,
      id,
      companies.map((c) => ({ country: c.country, companyNumber: c.companyNumber })),
    );
  }
  return id;
}

/** Every event of the account from a cursor on, page by page; answers them and the last cursor. */
async function readAll(caller: Caller, after?: string, limit = 100) {
  const events: CompanyUpdateEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = JSON.parse((await getEvents(caller, { after: cursor, limit })).text) as {
      data: CompanyUpdateEvent[];
      next: string;
    };
    events.push(...page.data);
    cursor = page.next;
    if (page.data.length < limit) return { events, cursor };
  }
}

let lists: { l1: number; l2: number; l3: number; g1: number };
let acmeCursor: string;

describe('derived with the updates', () => {
  it('writes one event per update per account whose watched lists hold the company', async () => {
    await importRecords([acmeV1, holding], { asOf: '2025-07-01' });
    lists = {
      l1: await staticList(ALICE, 'Watched one', true, [ACME]),
      l2: await staticList(ALICE, 'Watched two', true, [ACME, HOLDING]),
      l3: await staticList(ALICE, 'Not watched', false, [ACME]),
      g1: await staticList(CAROL, 'Globex watch', true, [ACME]),
    };
    await staticList(ALICE, 'Watched, other company', true, [HOLDING]);
    const before = await readAll(ALICE);
    expect(before.events).toEqual([]);

    const summary = await importRecords([acmeV2], { asOf: '2026-11-21' });

    expect(summary.updates).toBe(4);
    const { events, cursor } = await readAll(ALICE, before.cursor);
    acmeCursor = cursor;
    const legalEntityId = (await getRelationships(ACME))!.legalEntityId;
    const feed = (await getFeeds([ACME])).get('BE#0403170701')!;
    expect(events).toHaveLength(4);
    // The same updates as the feed of §8 (less the first import's: no list held the company then).
    expect(feed.map((u) => u.id)).toEqual(expect.arrayContaining(events.map((e) => e.data.update.id)));
    for (const event of events) {
      expect(Object.keys(event)).toEqual(['id', 'type', 'createdAt', 'data']);
      expect(Object.keys(event.data)).toEqual(['company', 'legalEntityId', 'lists', 'update']);
      expect(event).toMatchObject({
        id: expect.stringMatching(/^evt_[0-9a-f]{24}$/),
        type: 'company.update',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: {
          company: { country: 'BE', companyNumber: '0403170701', name: 'Acme Bouw NV', place: 'Gent' },
          legalEntityId,
          lists: [lists.l1, lists.l2].sort((a, b) => a - b),
        },
      });
    }
    expect(new Set(events.map((e) => e.data.update.title))).toEqual(
      new Set([
        'Élodie Dubois left the company',
        'Financials were published for 2022',
        'Gross margin grew by 15%',
        'Health dropped by 2',
      ]),
    );
    expect(events[0]!.data.update).toMatchObject({ sourceUrl: null, sourceType: null, status: 'ACTIVE' });

    // The other account's own events: the same updates, its list, other ids.
    const globex = await readAll(CAROL);
    expect(globex.events).toHaveLength(4);
    expect(globex.events.every((e) => e.data.lists.join() === String(lists.g1))).toBe(true);
    const acmeIds = new Set(events.map((e) => e.id));
    expect(globex.events.some((e) => acmeIds.has(e.id))).toBe(false);
  });

  it('replays nothing when notifications are enabled, and names the list from the next update on', async () => {
    await updateOneList(ALICE, lists.l3, { notifications: { enabled: true } });
    expect((await readAll(ALICE, acmeCursor)).events).toEqual([]);

    await importRecords([acmeV3], { asOf: '2026-11-22' });

    const { events, cursor } = await readAll(ALICE, acmeCursor);
    acmeCursor = cursor;
    expect(events.map((e) => [e.data.update.title, e.data.lists])).toEqual([
      ['Financials were published for 2023', [lists.l1, lists.l2, lists.l3].sort((a, b) => a - b)],
    ]);
  });

  it('writes nothing twice when a batch is derived again (a resumed import), even long after', async () => {
    const acmeV4 = companyRecord({
      financials: [...acmeV3.financials!, period(2024, { grossMargin: 115_000, healthIndicator: 4 })],
      contacts: [],
    });
    const change = {
      before: { ...acmeV3, companyNumber: '0403170701' },
      after: { ...acmeV4, companyNumber: '0403170701' },
      asOf: '2026-11-23',
      changeId: 'resumed.1',
    } as unknown as Parameters<typeof deriveAndWriteEvents>[0][number];

    const first = await deriveAndWriteEvents([change], announceEvents);
    const again = await deriveAndWriteEvents(
      [change],
      announceEvents,
      () => new Date(Date.now() + 20 * 60 * 1000),
    );

    expect(first.events.get(ALICE.accountId)).toBe(2);
    expect(again.events.get(ALICE.accountId)).toBe(0);
    const { events } = await readAll(ALICE, acmeCursor);
    expect(events.map((e) => e.data.update.title).sort()).toEqual([
      'An Peeters left the company',
      'Financials were published for 2024',
    ]);
  });
});

describe('the feed while events are written', () => {
  const body = (id: string) => ({ id, body: JSON.stringify({ id }) });
  const ids = (read: { events: Array<{ id: string }> }) => read.events.map((e) => e.id);

  it('numbers each event in the transaction that writes it, and writes a batch derived again only once', async () => {
    const account = 'numbered';
    expect(await writeEvents(account, 'run.1', [body('evt_a'), body('evt_b')])).toBe(2);
    expect(await writeEvents(account, 'run.2', [body('evt_c')])).toBe(1);
    expect(await writeEvents(account, 'run.1', [body('evt_a'), body('evt_b')])).toBe(0);

    const read = await readEvents(account, 0, 10, Date.now());
    expect(ids(read)).toEqual(['evt_a', 'evt_b', 'evt_c']);
    expect(read).toMatchObject({ readTo: 3, complete: true });
  });

  it('files the rest of a batch resumed long after it died after every reader, none skipped or repeated', async () => {
    const account = 'resumed-late';
    const start = Date.now();
    // The first run of batch late.1 wrote its first transaction's events, then died.
    await writeEvents(account, 'late.1', [body('evt_1'), body('evt_2')], () => new Date(start));
    await writeEvents(account, 'other.1', [body('evt_3')], () => new Date(start + 1000));
    // A reader 20 minutes on reads everything there is and holds its position.
    const twentyMinutes = start + 20 * 60 * 1000;
    const first = await readEvents(account, 0, 100, twentyMinutes);
    expect(ids(first)).toEqual(['evt_1', 'evt_2', 'evt_3']);

    // The batch resumed then derives its events again: those written are not written twice, the
    // rest take numbers after the reader's position.
    const written = await writeEvents(
      account,
      'late.1',
      [body('evt_1'), body('evt_2'), body('evt_4'), body('evt_5')],
      () => new Date(twentyMinutes),
    );
    expect(written).toBe(2);
    const next = await readEvents(account, first.readTo, 100, twentyMinutes + 1000);
    expect(ids(next)).toEqual(['evt_4', 'evt_5']);
    expect(ids(await readEvents(account, 0, 100, twentyMinutes + 1000))).toEqual([
      'evt_1',
      'evt_2',
      'evt_3',
      'evt_4',
      'evt_5',
    ]);
  });

  it('reads events written one to an item before pages, then pages', async () => {
    const account = 'single-items';
    const ttl = Math.ceil(Date.now() / 1000) + 3600;
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    for (const [sequence, id] of [
      [1, 'evt_old1'],
      [2, 'evt_old2'],
    ] as const) {
      await dynamodb().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.event(account, sequence),
            entity: 'Event',
            id,
            createdAtMs: 1,
            body: `{"id":"${id}"}`,
            ttl,
          },
        }),
      );
    }
    await dynamodb().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.eventSequence(account), last: 2, lastAtMs: 1 },
      }),
    );
    await writeEvents(account, 'run.1', [body('evt_new')]);

    const read = await readEvents(account, 1, 10, Date.now());
    expect(ids(read)).toEqual(['evt_old2', 'evt_new']);
    expect(read).toMatchObject({ readTo: 3, complete: true });
  });

  it('stops before a number whose event is landing, and passes one TTL removed long ago', async () => {
    const account = 'landing';
    for (const id of ['evt_a', 'evt_b', 'evt_c']) await writeEvents(account, `run.${id}`, [body(id)]);
    const now = Date.now();
    // Event 2 not there (yet): as if read half-way through a transaction being applied item by item.
    await dynamodb().send(new DeleteCommand({ TableName: tableName(), Key: keys.event(account, 2) }));

    const landing = await readEvents(account, 0, 10, now);
    expect(ids(landing)).toEqual(['evt_a']);
    expect(landing).toMatchObject({ readTo: 1, complete: false });

    // The same gap among events written long ago is an expired event TTL removed: read past it.
    const later = await readEvents(account, 0, 10, now + LANDING_MS + 1000);
    expect(ids(later)).toEqual(['evt_a', 'evt_c']);
    expect(later).toMatchObject({ readTo: 3, complete: true });
  });

  it('gives every event of an import exactly once to a reader polling while it runs', async () => {
    const companies = Array.from({ length: 60 }, (_, i) =>
      bareCompany(71_000_000 + i, { name: `Polled ${i} BV` }),
    );
    await importRecords(companies, { asOf: '2025-07-01' });
    const watcher: Caller = { accountId: 'poller', userEmail: 'p@poller.example', scopes: [...SCOPES] };
    await staticList(
      watcher,
      'Polled',
      true,
      companies.map((c) => ({ country: 'NL', companyNumber: c.companyNumber }) as CompanyRef),
    );
    const start = await readAll(watcher);

    let importing = true;
    const seen: string[] = [];
    const reader = (async () => {
      let cursor = start.cursor;
      for (;;) {
        const done = !importing;
        const page = await readAll(watcher, cursor, 7);
        seen.push(...page.events.map((e) => e.id));
        cursor = page.cursor;
        if (done) return;
      }
    })();
    // Small batches, several in flight: many blocks of numbers, written out of order.
    const summary = await importRecords(
      companies.map((c) => ({ ...c, financials: [...c.financials!, period(2022)] })),
      { asOf: '2026-11-21', batchSize: 5 },
    ).finally(() => (importing = false));
    await reader;

    expect(summary.updates).toBe(60);
    expect(seen).toHaveLength(60);
    expect(new Set(seen).size).toBe(60);
  });
});

describe('GET /v1/events', () => {
  const get = (query: Record<string, string>, caller: Caller = ALICE) =>
    call(getEventsHandler, { resource: eventRoutes.getEvents.path, query, caller });

  it('answers a page and a cursor to read on from, even when the page is empty', async () => {
    const first = await get({ limit: '2' });
    expect(first.status).toBe(200);
    const body = first.body as { data: CompanyUpdateEvent[]; next: string };
    expect(body.data).toHaveLength(2);
    expect(Object.keys(body)).toEqual(['data', 'next']);
    const rest = await get({ after: body.next, limit: '500' });
    const end = (rest.body as { next: string }).next;
    expect((await get({ after: end }, ALICE)).body).toEqual({ data: [], next: expect.any(String) });
  });

  it.each([
    [{ after: 'not-a-cursor' }, 'after'],
    [{ after: encodeCursor('globex', { sequence: 1, sinceMs: Date.now() }) }, 'after'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '501' }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
  ])('answers 400 on a bad %j', async (query, path) => {
    const answer = await get(query);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path }] });
  });

  it('answers 410 CURSOR_EXPIRED for a cursor older than the 30 days events are kept', async () => {
    const old = encodeCursor(ALICE.accountId, { sequence: 1, sinceMs: Date.now() - 31 * 24 * 3600 * 1000 });
    const answer = await get({ after: old });
    expect(answer.status).toBe(410);
    expect(answer.body).toMatchObject({ code: 'CURSOR_EXPIRED' });
  });

  it('still reads from a cursor issued 5 minutes short of 30 days ago (events outlive it by the clock margin)', async () => {
    const issuedAt = Date.now() - 30 * 24 * 3600 * 1000 + 5 * 60 * 1000;
    // As the endpoint issues it: its time less the clock margin.
    const cursor = encodeCursor(ALICE.accountId, { sequence: 1, sinceMs: issuedAt - CLOCK_MARGIN_MS });
    expect((await get({ after: cursor })).status).toBe(200);
  });

  it('needs the events:read scope', async () => {
    const answer = await get({}, { ...ALICE, scopes: ['lists:read'] });
    expect(answer.status).toBe(403);
  });
});
