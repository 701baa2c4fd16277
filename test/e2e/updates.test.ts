/**
 * End to end over HTTP: GET /v1/legal-entities/{legalEntityId}/updates and POST
 * /v1/legal-entities/updates (contract §4, §5, §8), over the demo data as `npm start` loads it (the
 * older snapshot, then the current data), through the local gateway and the real authorizer.
 */
import { DEMO_AS_OF } from '../../infra/local/demo';
import type { DemoRecord } from '../fixtures/demo-data/records';
import { olderSnapshotOf } from '../fixtures/demo-data/snapshots';
import { parseCompanyRecord } from '../../lib/companies/record';
import { deriveUpdates } from '../../lib/updates/derive';
import { BULK_ITEM_KEYS, expectError, expectOk, expectValidationError, TOKENS, useApi } from './http';

const api = useApi();
const BULK = '/v1/legal-entities/updates';
const single = (legalEntityId: string, query = '') =>
  `/v1/legal-entities/${encodeURIComponent(legalEntityId)}/updates${query}`;
const UPDATE_KEYS = ['id', 'type', 'title', 'time', 'sourceUrl', 'sourceType', 'status'];
const ENTITY_KEYS = ['legalEntityId', 'countryCode', 'name', 'isPrimary'];

const parse = (record: DemoRecord) => {
  const parsed = parseCompanyRecord(record);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.record;
};
/** What the demo's two imports derive for a company, by the pure rules. */
const expectedUpdates = (index: number) => {
  const older = parse(olderSnapshotOf(api.records)[index]!);
  return [
    ...deriveUpdates(null, older, '2026-07-01'),
    ...deriveUpdates(older, parse(api.records[index]!), DEMO_AS_OF),
  ];
};
/** The company's own legal entity, as its legal entities endpoint answers it. */
async function ownEntity(record: DemoRecord) {
  const response = await api.get(`/v1/companies/${record.country}/${record.companyNumber}/legal-entities`);
  expectOk(response);
  return response.body.data[0] as {
    legalEntityId: string;
    countryCode: string;
    name: string;
    isPrimary: boolean;
  };
}
/** The first demo company whose people left between the snapshots. */
const leftIndex = () =>
  api.records.findIndex((_, i) => expectedUpdates(i).some((u) => u.type === 'PEOPLE_LEFT'));

describe('GET updates of a legal entity', () => {
  test('answers the entity and every update the two demo imports derived, newest first', async () => {
    const index = leftIndex();
    const entity = await ownEntity(api.records[index]!);
    const expected = expectedUpdates(index);

    const response = await api.get(single(entity.legalEntityId, '?limit=500'));

    expectOk(response);
    expect(response.headers.get('content-language')).toBe('en');
    expect(Object.keys(response.body)).toEqual(['identifier', 'data', 'pagination']);
    expect(response.body.identifier).toEqual(entity);
    expect(Object.keys(response.body.identifier)).toEqual(ENTITY_KEYS);
    expect(response.body.pagination).toEqual({ limit: 500, offset: 0, total: expected.length });
    const updates = response.body.data.updates as Array<Record<string, string>>;
    expect(updates.map((u) => u['id']).sort()).toEqual(expected.map((u) => u.id).sort());
    for (const update of updates) {
      expect(Object.keys(update)).toEqual(UPDATE_KEYS);
      expect(update).toMatchObject({ sourceUrl: null, sourceType: null, status: 'ACTIVE' });
      expect(update['id']).toMatch(/^\d+$/);
      expect(update['time']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(updates[0]).toMatchObject({ type: 'PEOPLE_LEFT', time: DEMO_AS_OF });
    expect(updates[0]!['title']).toMatch(/ left the company$/);
    const order = updates.map((u) => `${u['time']} ${u['id']}`);
    expect(order).toEqual(
      [...order].sort((a, b) =>
        a.slice(0, 10) === b.slice(0, 10)
          ? BigInt(a.slice(11)) < BigInt(b.slice(11))
            ? -1
            : 1
          : a < b
            ? 1
            : -1,
      ),
    );
  });

  test.each([
    ['nl', 'nl', / heeft het bedrijf verlaten$| hebben het bedrijf verlaten$/],
    ['FR', 'fr', / a quitté l'entreprise$| ont quitté l'entreprise$/],
    ['fr-BE,fr;q=0.9,en;q=0.8', 'fr', / quitté l'entreprise$/],
    ['de-DE', 'en', / left the company$/],
    ['*', 'en', / left the company$/],
  ])('Accept-Language %s answers in %s, titles only', async (header, language, title) => {
    const entity = await ownEntity(api.records[leftIndex()]!);

    const [response, english] = await Promise.all([
      api.get(single(entity.legalEntityId), { headers: { 'Accept-Language': header } }),
      api.get(single(entity.legalEntityId)),
    ]);

    expectOk(response);
    expect(response.headers.get('content-language')).toBe(language);
    expect(response.body.data.updates[0].title).toMatch(title);
    const untitled = (body: unknown) =>
      JSON.stringify(body, (k, v: unknown) => (k === 'title' ? undefined : v));
    expect(untitled(response.body)).toBe(untitled(english.body));
  });

  test.each(['999999999999', '0', 'abc', '1234567890123'])(
    'answers 404 for the unknown or malformed id %s',
    async (id) => {
      expectError(await api.get(single(id)), 404, 'NOT_FOUND', 'Legal entity not found');
    },
  );

  test('refuses a limit over 500 and a negative offset', async () => {
    const entity = await ownEntity(api.records[0]!);
    expectValidationError(await api.get(single(entity.legalEntityId, '?limit=501')), ['limit']);
    expectValidationError(await api.get(single(entity.legalEntityId, '?offset=-1')), ['offset']);
  });
});

describe('POST updates of legal entities', () => {
  test('answers each entity in request order, duplicates twice, unknown and malformed ids as items', async () => {
    const [a, b] = [await ownEntity(api.records[leftIndex()]!), await ownEntity(api.records[1]!)];
    const asked = [a.legalEntityId, 'nope', b.legalEntityId, a.legalEntityId, '000000000000'];

    const response = await api.post(
      BULK,
      { legalEntities: asked.map((legalEntityId) => ({ legalEntityId, ignored: true })), limit: 1 },
      { headers: { 'Accept-Language': 'nl' } },
    );

    expectOk(response);
    expect(response.headers.get('content-language')).toBe('nl');
    const items = response.body as Array<Record<string, unknown>>;
    expect(items.map((item) => Object.keys(item))).toEqual(asked.map(() => BULK_ITEM_KEYS));
    expect(items[0]).toEqual(items[3]);
    expect(items[0]).toMatchObject({ identifier: a, message: null, pagination: { limit: 1, offset: 0 } });
    expect(items[2]).toMatchObject({ identifier: b, message: null });
    for (const i of [1, 4]) {
      expect(items[i]).toEqual({
        identifier: { legalEntityId: asked[i] },
        data: null,
        pagination: null,
        message: 'Legal entity not found',
      });
    }
  });

  test.each([
    [{ legalEntities: { legalEntityId: '123456789012' } }, ['legalEntities']],
    [{ legalEntities: [{ id: '123456789012' }] }, ['legalEntities[0].legalEntityId']],
    [{ legalEntities: [{ legalEntityId: 123456789012 }] }, ['legalEntities[0].legalEntityId']],
    [{ legalEntities: [{ legalEntityId: ['123456789012'] }] }, ['legalEntities[0].legalEntityId']],
    [{ legalEntities: Array(101).fill({ legalEntityId: '123456789012' }) }, ['legalEntities']],
    [{ legalEntities: [] }, ['legalEntities']],
    [{ legalEntities: [{ legalEntityId: '123456789012' }], limit: 101 }, ['limit']],
    [{ legalEntities: [{ legalEntityId: '123456789012' }], offset: 10001 }, ['offset']],
    [{ legalEntities: Array(51).fill({ legalEntityId: '123456789012' }), limit: 10 }, ['limit']],
    [[{ legalEntityId: '123456789012' }], ['body']],
  ])('refuses %j as a whole with 400', async (body, paths) => {
    expectValidationError(await api.post(BULK, body), paths);
  });

  test('refuses a body that is not JSON, or not sent as JSON', async () => {
    expectError(await api.post(BULK, '{"legalEntities": ['), 400, 'INVALID_JSON');
    const response = await api.send('POST', BULK, {
      headers: { 'Content-Type': 'text/plain' },
      body: '{"legalEntities":[{"legalEntityId":"123456789012"}]}',
    });
    expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('scopes', () => {
  const bulk = { legalEntities: [{ legalEntityId: '123456789012' }] };

  test.each([
    ['bob (companies:read)', TOKENS.bob],
    ['dave (lists only)', TOKENS.dave],
  ])('%s gets 403 on both endpoints', async (_, token) => {
    expectError(await api.get(single('123456789012'), { token }), 403, 'FORBIDDEN');
    expectError(await api.post(BULK, bulk, { token }), 403, 'FORBIDDEN');
  });

  test('no token gets 401', async () => {
    expectError(await api.get(single('123456789012'), { token: null }), 401, 'UNAUTHORIZED', 'Unauthorized');
    expectError(await api.post(BULK, bulk, { token: null }), 401, 'UNAUTHORIZED', 'Unauthorized');
  });

  test('updates:read in another account sees the same public updates', async () => {
    const entity = await ownEntity(api.records[0]!);
    const [alice, carol] = await Promise.all([
      api.get(single(entity.legalEntityId)),
      api.get(single(entity.legalEntityId), { token: TOKENS.carol }),
    ]);
    expectOk(carol);
    expect(carol.body).toEqual(alice.body);
  });

  test('another method on the bulk path is 405', async () => {
    const response = await api.get(BULK);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
