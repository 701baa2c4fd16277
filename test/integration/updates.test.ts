/**
 * Updates (contract §8) from import to answer, on DynamoDB Local: the import derives them at its one
 * derivation point; importing the same data again derives nothing; changed data derives only the new
 * events; racing and repeated imports never store one twice. Then both handlers with real events.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { getRelationships } from '../../lib/companies/holdings-store';
import type { CompanyRef } from '../../lib/companies/identifiers';
import { withRequestMetrics } from '../../lib/metrics';
import { dynamodb } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { getFeeds } from '../../lib/updates/store';
import { getUpdatesInBulk } from '../../lib/updates/updates';
import { handler as getOne } from '../../functions/get-legal-entity-updates';
import { handler as getBulk } from '../../functions/get-legal-entity-updates-bulk';
import { updateRoutes } from '../../lib/updates/routes';
import { call } from '../support/events';
import { ACME, companyRecord, HOLDING, holdingRecord, importRecords, period } from '../support/records';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(120_000);

const FIRST_AS_OF = '2025-07-01';
const AS_OF = '2026-11-21';

const staff = [
  { contactId: 91001, firstName: 'An', lastName: 'Peeters', jobTitle: 'CEO' },
  { contactId: 91002, firstName: 'Élodie', lastName: 'Dubois', jobTitle: 'CFO' },
  { contactId: 91003, firstName: 'bram', lastName: 'aerts', jobTitle: 'COO' },
  { contactId: 91004, firstName: 'Zoë', lastName: 'Claes', jobTitle: 'CTO' },
  { contactId: 91005, firstName: 'Marc', lastName: 'Willems', jobTitle: 'Sales' },
];

/** Acme, 60 % held by Acme Holding (so not primary), with two periods and five contacts. */
const acmeV1 = companyRecord({
  financials: [
    period(2021, { grossMargin: 100_000, healthIndicator: 6 }),
    period(2022, { grossMargin: 115_000, healthIndicator: 4 }),
  ],
  contacts: staff,
});
/** A year later: a new period (margin +13 %, health −1) and four people gone. */
const acmeV2 = companyRecord({
  financials: [...acmeV1.financials!, period(2023, { grossMargin: 130_000, healthIndicator: 3 })],
  contacts: staff.slice(0, 1),
});
const holding = holdingRecord();

const feedOf = async (ref: CompanyRef) => (await getFeeds([ref])).get(`${ref.country}#${ref.companyNumber}`);
const legalEntityIdOf = async (ref: CompanyRef) => (await getRelationships(ref))!.legalEntityId;

describe('derived at import', () => {
  it("derives a company's history on its first import", async () => {
    const summary = await importRecords([acmeV1, holding], { asOf: FIRST_AS_OF });

    expect(summary.updates).toBe(4);
    expect((await feedOf(ACME))!.map(({ id: _id, ...facts }) => facts).sort(byTime)).toEqual([
      { type: 'PUBLISHED_FINANCIALS', time: '2022-06-30', year: 2021 },
      { type: 'GROSS_MARGIN_GROWTH', time: '2023-06-30', pct: 15 },
      { type: 'HEALTHDROP', time: '2023-06-30', drop: 2 },
      { type: 'PUBLISHED_FINANCIALS', time: '2023-06-30', year: 2022 },
    ]);
    expect(await feedOf(HOLDING)).toBeUndefined();
  });

  it('derives nothing from the same data imported again', async () => {
    const before = await feedOf(ACME);

    const summary = await importRecords([acmeV1, holding], { asOf: AS_OF });

    expect(summary).toMatchObject({ unchanged: 2, updates: 0 });
    expect(await feedOf(ACME)).toEqual(before);
  });

  it('derives only the new events from changed data, people leaving dated by the as-of date', async () => {
    const before = (await feedOf(ACME))!;
    const send = jest.spyOn(dynamodb(), 'send');

    const summary = await importRecords([acmeV2, holding], { asOf: AS_OF });

    // The import holds the import lease: the feed's additions are put whole, in no transaction.
    const transacted = send.mock.calls.flatMap(([command]) =>
      command instanceof TransactWriteCommand ? (command.input.TransactItems ?? []) : [],
    );
    send.mockRestore();
    expect(transacted.filter((action) => action.Update?.Key?.['pk'] === keys.updateFeed(ACME).pk)).toEqual(
      [],
    );
    expect(summary).toMatchObject({ changed: 1, updates: 4 });
    const after = (await feedOf(ACME))!;
    expect(after).toHaveLength(8);
    expect(after).toEqual(expect.arrayContaining(before));
    const added = after.filter((u) => !before.some((b) => b.id === u.id));
    expect(added.map(({ id: _id, ...facts }) => facts).sort(byTime)).toEqual([
      { type: 'GROSS_MARGIN_GROWTH', time: '2024-06-30', pct: 13 },
      { type: 'HEALTHDROP', time: '2024-06-30', drop: 1 },
      { type: 'PUBLISHED_FINANCIALS', time: '2024-06-30', year: 2023 },
      {
        type: 'PEOPLE_LEFT',
        time: AS_OF,
        names: ['bram aerts', 'Zoë Claes', 'Élodie Dubois'],
        count: 4,
      },
    ]);
  });

  it("derives nothing from a period's corrected figures", async () => {
    const corrected = companyRecord({
      ...acmeV2,
      financials: [
        ...acmeV1.financials!,
        period(2023, { grossMargin: 999_000, healthIndicator: 0, revenue: 2_000_000 }),
      ],
    });

    const summary = await importRecords([corrected], { asOf: AS_OF });

    expect(summary).toMatchObject({ changed: 1, updates: 0 });
    expect(await feedOf(ACME)).toHaveLength(8);
  });

  it('stores an update once when racing imports derive it together', async () => {
    const v3 = companyRecord({
      ...acmeV2,
      financials: [...acmeV2.financials!, period(2024, { grossMargin: 200_000 })],
    });

    await Promise.all([
      importRecords([v3], { asOf: AS_OF }),
      importRecords([v3], { asOf: AS_OF }),
      importRecords([v3], { asOf: AS_OF }),
    ]);

    const feed = (await feedOf(ACME))!;
    expect(feed).toHaveLength(10);
    expect(new Set(feed.map((u) => u.id)).size).toBe(10);
  });
});

describe('GET /v1/legal-entities/{legalEntityId}/updates', () => {
  const get = (legalEntityId: string, query: Record<string, string> = {}, language?: string) =>
    call(getOne, {
      method: 'GET',
      resource: updateRoutes.getLegalEntityUpdates.path,
      pathParameters: { legalEntityId },
      query,
      ...(language ? { headers: { 'Accept-Language': language } } : {}),
    });

  it("answers the entity and a page of its updates, newest first, in the caller's language", async () => {
    const legalEntityId = await legalEntityIdOf(ACME);

    const { status, headers, body, raw } = await get(legalEntityId, { limit: '3' }, 'nl-BE,nl;q=0.9');

    expect(status).toBe(200);
    expect(headers['Content-Language']).toBe('nl');
    expect(Object.keys(body as object)).toEqual(['identifier', 'data', 'pagination']);
    const answer = body as { identifier: unknown; data: { updates: Array<Record<string, unknown>> } };
    expect(answer.identifier).toEqual({
      legalEntityId,
      countryCode: 'BE',
      name: 'Acme Bouw NV',
      isPrimary: false,
    });
    const [first, ...sameDay] = answer.data.updates.map((u) => [u['type'], u['time'], u['title']]);
    expect(first).toEqual([
      'PEOPLE_LEFT',
      AS_OF,
      'bram aerts, Zoë Claes, Élodie Dubois en 1 andere hebben het bedrijf verlaten',
    ]);
    // The same day: their order is their ids' (next test).
    expect(sameDay.sort()).toEqual([
      ['GROSS_MARGIN_GROWTH', '2025-06-30', 'Brutomarge steeg met 54%'],
      ['PUBLISHED_FINANCIALS', '2025-06-30', 'Jaarrekening gepubliceerd voor 2024'],
    ]);
    expect(Object.keys(answer.data.updates[0]!)).toEqual([
      'id',
      'type',
      'title',
      'time',
      'sourceUrl',
      'sourceType',
      'status',
    ]);
    expect(answer.data.updates[0]).toMatchObject({ sourceUrl: null, sourceType: null, status: 'ACTIVE' });
    expect(raw).toContain('"pagination":{"limit":3,"offset":0,"total":10}');
  });

  it('orders updates of one day by id, as numbers', async () => {
    const { body } = await get(await legalEntityIdOf(ACME), { limit: '500' });

    const updates = (body as { data: { updates: Array<{ id: string; time: string }> } }).data.updates;
    expect(updates).toHaveLength(10);
    for (let i = 1; i < updates.length; i++) {
      const [a, b] = [updates[i - 1]!, updates[i]!];
      expect(a.time > b.time || (a.time === b.time && BigInt(a.id) < BigInt(b.id))).toBe(true);
    }
  });

  it('changes nothing but the titles with the language', async () => {
    const legalEntityId = await legalEntityIdOf(ACME);
    const answers = await Promise.all(['en', 'NL', 'fr-FR', 'de'].map((l) => get(legalEntityId, {}, l)));

    expect(answers.map((a) => a.headers['Content-Language'])).toEqual(['en', 'nl', 'fr', 'en']);
    const untitled = answers.map((a) =>
      JSON.stringify(a.body, (key, value: unknown) => (key === 'title' ? undefined : value)),
    );
    expect(new Set(untitled).size).toBe(1);
    const titles = answers.map(
      (a) => (a.body as { data: { updates: Array<{ title: string }> } }).data.updates[0]!.title,
    );
    expect(titles).toEqual([
      'bram aerts, Zoë Claes, Élodie Dubois and 1 other left the company',
      'bram aerts, Zoë Claes, Élodie Dubois en 1 andere hebben het bedrijf verlaten',
      "bram aerts, Zoë Claes, Élodie Dubois et 1 autre ont quitté l'entreprise",
      'bram aerts, Zoë Claes, Élodie Dubois and 1 other left the company',
    ]);
  });

  it('answers a primary entity without updates with an empty page', async () => {
    const { status, body } = await get(await legalEntityIdOf(HOLDING), { offset: '5' });

    expect(status).toBe(200);
    expect(body).toMatchObject({
      identifier: { countryCode: 'BE', name: 'Acme Holding NV', isPrimary: true },
      data: { updates: [] },
      pagination: { limit: 4, offset: 5, total: 0 },
    });
  });

  it('gives the true total past the end', async () => {
    const { body } = await get(await legalEntityIdOf(ACME), { offset: '10' });

    expect(body).toMatchObject({ data: { updates: [] }, pagination: { limit: 4, offset: 10, total: 10 } });
  });

  it.each(['999999999999', '12345', '1234567890123', 'abcdefghijkl', '12345678901x'])(
    'answers 404 Legal entity not found for %s',
    async (legalEntityId) => {
      const { status, body } = await get(legalEntityId);

      expect(status).toBe(404);
      expect(body).toMatchObject({ code: 'NOT_FOUND', message: 'Legal entity not found' });
    },
  );

  it.each([
    [{ limit: '0' }, 'limit must be an integer between 1 and 500'],
    [{ limit: '501' }, 'limit must be an integer between 1 and 500'],
    [{ offset: '10001' }, 'offset must be an integer between 0 and 10000'],
    [{ limit: 'abc' }, 'limit must be an integer between 1 and 500'],
  ])('refuses %p with 400', async (query, message) => {
    const { status, body } = await get(await legalEntityIdOf(ACME), query);

    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'VALIDATION_ERROR', message });
  });
});

describe('POST /v1/legal-entities/updates', () => {
  const post = (body: unknown, language?: string) =>
    call(getBulk, {
      method: 'POST',
      resource: updateRoutes.getLegalEntityUpdatesBulk.path,
      body,
      ...(language ? { headers: { 'Accept-Language': language } } : {}),
    });

  it('answers each entry in request order, duplicates twice, unknown and malformed ids as items', async () => {
    const [acme, parent] = [await legalEntityIdOf(ACME), await legalEntityIdOf(HOLDING)];
    const asked = [acme, '999999999999', 'not-an-id', acme, parent, ''];

    const { status, headers, body } = await post(
      { legalEntities: asked.map((legalEntityId) => ({ legalEntityId })), limit: 2, offset: 1 },
      'fr',
    );

    expect(status).toBe(200);
    expect(headers['Content-Language']).toBe('fr');
    const items = body as Array<Record<string, unknown>>;
    expect(items.map((item) => Object.keys(item))).toEqual(
      asked.map(() => ['identifier', 'data', 'pagination', 'message']),
    );
    expect(items[0]).toEqual(items[3]);
    expect(items[0]).toMatchObject({
      identifier: { legalEntityId: acme, countryCode: 'BE', name: 'Acme Bouw NV', isPrimary: false },
      pagination: { limit: 2, offset: 1, total: 10 },
      message: null,
    });
    // The second and third newest: both of 2025-06-30, in id order.
    const titles = (items[0]!['data'] as { updates: Array<{ title: string }> }).updates.map((u) => u.title);
    expect(titles.sort()).toEqual(['Comptes annuels publiés pour 2024', 'La marge brute a augmenté de 54 %']);
    for (const i of [1, 2, 5]) {
      expect(items[i]).toEqual({
        identifier: { legalEntityId: asked[i] },
        data: null,
        pagination: null,
        message: 'Legal entity not found',
      });
    }
    expect(items[4]).toMatchObject({
      identifier: { legalEntityId: parent, isPrimary: true },
      data: { updates: [] },
      pagination: { limit: 2, offset: 1, total: 0 },
    });
  });

  it('reads 100 entities in at most 3 round trips', async () => {
    const acme = await legalEntityIdOf(ACME);
    const legalEntities = Array.from({ length: 100 }, (_, i) => ({
      legalEntityId: i % 2 === 0 ? acme : String(100_000_000_000 + i),
    }));

    const { items, calls } = await withRequestMetrics(async (metrics) => ({
      items: await getUpdatesInBulk({ legalEntities, limit: 5, offset: 0 }, 'en'),
      calls: metrics.dynamodbCalls,
    }));

    expect(items.filter((item) => item.message === null)).toHaveLength(50);
    expect(calls).toBeLessThanOrEqual(3);
  });

  it('answers 100 entities × limit 5 (500 updates at most)', async () => {
    const acme = await legalEntityIdOf(ACME);
    const { status } = await post({ legalEntities: Array(100).fill({ legalEntityId: acme }), limit: 5 });

    expect(status).toBe(200);
  });

  it.each([
    [{}, 'legalEntities is required'],
    [{ legalEntities: 'x' }, 'legalEntities must be an array of legal entities'],
    [{ legalEntities: [] }, 'legalEntities must contain at least 1 legal entity'],
    [
      { legalEntities: Array(101).fill({ legalEntityId: '123456789012' }) },
      'legalEntities must contain at most 100 legal entities',
    ],
    [{ legalEntities: [{}] }, 'legalEntities[0].legalEntityId is required'],
    [{ legalEntities: [{ legalEntityId: 123456789012 }] }, 'legalEntities[0].legalEntityId must be a string'],
    [{ legalEntities: [{ legalEntityId: null }] }, 'legalEntities[0].legalEntityId must be a string'],
    [{ legalEntities: ['123456789012'] }, 'legalEntities[0] must be an object'],
    [{ legalEntities: [{ legalEntityId: '1' }], limit: 101 }, 'limit must be an integer between 1 and 100'],
    [{ legalEntities: [{ legalEntityId: '1' }], limit: 0 }, 'limit must be an integer between 1 and 100'],
    [{ legalEntities: [{ legalEntityId: '1' }], limit: '4' }, 'limit must be an integer between 1 and 100'],
    [
      { legalEntities: [{ legalEntityId: '1' }], offset: -1 },
      'offset must be an integer between 0 and 10000',
    ],
    [
      { legalEntities: Array(100).fill({ legalEntityId: '1' }), limit: 6 },
      'legalEntities × limit must be at most 500 (100 × 6 = 600)',
    ],
    [
      { legalEntities: Array(6).fill({ legalEntityId: '1' }), limit: 100 },
      'legalEntities × limit must be at most 500 (6 × 100 = 600)',
    ],
  ])('refuses %j with 400', async (request, message) => {
    const { status, body } = await post(request);

    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'VALIDATION_ERROR', message });
  });

  it('says how far limit may go when entities × limit is over 500', async () => {
    const { body } = await post({ legalEntities: Array(100).fill({ legalEntityId: '1' }), limit: 6 });

    expect(body).toMatchObject({
      details: [{ path: 'limit', message: 'must be ≤ 5 for 100 legal entities' }],
    });
  });
});

const byTime = (a: { time: string; type: string }, b: { time: string; type: string }) =>
  a.time === b.time ? (a.type < b.type ? -1 : 1) : a.time < b.time ? -1 : 1;
