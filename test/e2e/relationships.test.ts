/**
 * End to end over HTTP: GET …/relationships, POST /v1/companies/relationships and GET …/legal-entities
 * (contract §2, §3, §6.2, §6.4) on the demo data, checked against the holdings read independently
 * from the demo records.
 */
import type { DemoRecord } from '../fixtures/demo-data/records';
import {
  belgianNumber,
  expectError,
  expectOk,
  expectValidationError,
  identifierOf,
  TOKENS,
  useApi,
} from './http';

const api = useApi();
const BULK = '/v1/companies/relationships';
const relationshipsPath = (country: string, number: string) =>
  `/v1/companies/${country}/${encodeURIComponent(number)}/relationships`;
const legalEntitiesPath = (country: string, number: string, query = '') =>
  `/v1/companies/${country}/${encodeURIComponent(number)}/legal-entities${query}`;

const keyOf = (country: string | undefined, number: string | undefined) => `${country}#${number}`;
const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

interface Expected {
  rank: [number, string, string, string];
  entry: unknown;
}

/** The contract's order: percentage descending, then name, then country and number. */
const ordered = (items: Expected[]) =>
  items
    .sort(
      (a, b) =>
        b.rank[0] - a.rank[0] ||
        byCode(a.rank[1], b.rank[1]) ||
        byCode(a.rank[2], b.rank[2]) ||
        byCode(a.rank[3], b.rank[3]),
    )
    .map((e) => e.entry);

const related = (r: DemoRecord, percentage: number): Expected => ({
  rank: [percentage, r.name, r.country, r.companyNumber],
  entry: { identifier: identifierOf(r), function: 'SHAREHOLDER', percentage, name: r.name },
});

/** Both sides of every holding, from the records alone. */
function oracle(records: DemoRecord[]) {
  const byKey = new Map(records.map((r) => [keyOf(r.country, r.companyNumber), r]));
  const holderOf = (h: DemoRecord['shareholders'][number]) => byKey.get(keyOf(h.country, h.companyNumber));
  const parents = (r: DemoRecord) =>
    ordered(
      r.shareholders.map((h) => {
        const holder = holderOf(h);
        return holder
          ? related(holder, h.percentage)
          : { rank: [h.percentage, h.name, '', ''], entry: { identifier: null } };
      }),
    );
  const children = (r: DemoRecord) =>
    ordered(
      records.flatMap((held) =>
        held.shareholders.filter((h) => holderOf(h) === r).map((h) => related(held, h.percentage)),
      ),
    );
  const controlled = (r: DemoRecord) =>
    records.filter((held) => held.shareholders.some((h) => holderOf(h) === r && h.percentage > 0.5));
  const isPrimary = (r: DemoRecord) => !r.shareholders.some((h) => holderOf(h) && h.percentage > 0.5);
  return { parents, children, controlled, isPrimary };
}

describe('relationships', () => {
  const expected = () => oracle(api.records);
  const holding = () => api.records.find((r) => expected().controlled(r).length >= 2)!;

  test('the demo data has holdings, people, foreign holders and a company controlling several others', () => {
    expect(holding()).toBeDefined();
    const holders = api.records.flatMap((r) => r.shareholders);
    expect(holders.some((h) => h.companyNumber === undefined)).toBe(true);
    expect(holders.some((h) => h.country !== undefined && !['BE', 'NL', 'FR'].includes(h.country))).toBe(
      true,
    );
  });

  test('answers a holding with its parents and children in the contract shape and order', async () => {
    const record = holding();

    const response = await api.get(relationshipsPath(record.country, record.companyNumber));

    expectOk(response);
    expect(response.body).toEqual({
      identifier: identifierOf(record),
      data: { parents: expected().parents(record), children: expected().children(record) },
    });
    expect(Object.keys(response.body)).toEqual(['identifier', 'data']);
    expect(Object.keys(response.body.data)).toEqual(['parents', 'children']);
    for (const child of response.body.data.children)
      expect(Object.keys(child)).toEqual(['identifier', 'function', 'percentage', 'name']);
  });

  test('answers every demo company in bulk, both sides agreeing with the records, in request order', async () => {
    const records = api.records;

    const response = await api.post(BULK, {
      companies: records.map((r) => ({ countryCode: r.country, companyNumber: r.companyNumber })),
    });

    expectOk(response);
    expect(response.body).toEqual(
      records.map((r) => ({
        identifier: identifierOf(r),
        data: { parents: expected().parents(r), children: expected().children(r) },
        message: null,
      })),
    );
    const nulls = response.body.flatMap((item: { data: { parents: unknown[] } }) => item.data.parents);
    expect(nulls).toContainEqual({ identifier: null });
  });

  test('answers duplicates, the country synonym and failed items, each item identifier, data, message', async () => {
    const record = holding();
    const unknown = belgianNumber('09999999');

    const response = await api.post(BULK, {
      companies: [
        { country: record.country.toLowerCase(), companyNumber: record.companyNumber },
        { countryCode: 'BE', companyNumber: unknown },
        { countryCode: 'BE', companyNumber: '0403170702' },
        { countryCode: 'DE', companyNumber: '123' },
        { countryCode: record.country, companyNumber: record.companyNumber },
      ],
    });

    expectOk(response);
    const found = {
      identifier: identifierOf(record),
      data: { parents: expected().parents(record), children: expected().children(record) },
      message: null,
    };
    expect(response.body).toEqual([
      found,
      { identifier: { country: 'BE', companyNumber: unknown }, data: null, message: 'Company not found' },
      {
        identifier: { country: 'BE', companyNumber: '0403170702' },
        data: null,
        message: 'Invalid company number',
      },
      { identifier: { country: 'DE', companyNumber: '123' }, data: null, message: 'Invalid country code' },
      found,
    ]);
    for (const item of response.body) expect(Object.keys(item)).toEqual(['identifier', 'data', 'message']);
  });

  test.each([
    ['no companies', { companies: [] }, ['companies']],
    [
      '101 companies',
      { companies: Array.from({ length: 101 }, () => ({ countryCode: 'BE', companyNumber: '0403170701' })) },
      ['companies'],
    ],
    ['companies missing', {}, ['companies']],
    ['an entry that is not an object', { companies: ['BE0403170701'] }, ['companies[0]']],
  ])('rejects a bulk request with %s', async (_case, body, paths) => {
    const response = await api.post(BULK, body);

    expectValidationError(response, paths);
  });

  test('rejects an invalid number or country in the path, and answers 404 for an unknown company', async () => {
    expectValidationError(await api.get(relationshipsPath('BE', '0403170702')), ['companyNumber']);
    expectValidationError(await api.get(relationshipsPath('DE', '0403170701')), ['countryCode']);
    expectError(
      await api.get(relationshipsPath('BE', belgianNumber('09999999'))),
      404,
      'NOT_FOUND',
      'Company not found',
    );
  });

  test('needs the companies:read scope', async () => {
    const record = holding();
    const path = relationshipsPath(record.country, record.companyNumber);

    expectOk(await api.get(path, { token: TOKENS.bob }));
    expectError(await api.get(path, { token: TOKENS.dave }), 403, 'FORBIDDEN');
    expectError(await api.post(BULK, { companies: [] }, { token: TOKENS.dave }), 403, 'FORBIDDEN');
  });
});

describe('legal entities', () => {
  const expected = () => oracle(api.records);
  const holding = () => api.records.find((r) => expected().controlled(r).length >= 2)!;

  test('lists the own entity first, then the controlled ones by name, with distinct opaque ids', async () => {
    const record = holding();
    const controlled = expected()
      .controlled(record)
      .sort((a, b) => byCode(a.name, b.name));

    const response = await api.get(legalEntitiesPath(record.country, record.companyNumber, '?limit=500'));

    expectOk(response);
    expect(Object.keys(response.body)).toEqual(['identifier', 'data', 'pagination']);
    expect(response.body.identifier).toEqual(identifierOf(record));
    expect(response.body.pagination).toEqual({ limit: 500, offset: 0, total: controlled.length + 1 });
    expect(
      response.body.data.map((e: { countryCode: string; name: string; isPrimary: boolean }) => [
        e.countryCode,
        e.name,
        e.isPrimary,
      ]),
    ).toEqual([
      [record.country, record.name, expected().isPrimary(record)],
      ...controlled.map((r) => [r.country, r.name, false]),
    ]);
    for (const entity of response.body.data) {
      expect(Object.keys(entity)).toEqual(['legalEntityId', 'countryCode', 'name', 'isPrimary']);
      expect(entity.legalEntityId).toMatch(/^\d{10,12}$/);
      expect(entity.legalEntityId).not.toContain(record.companyNumber);
    }
    expect(new Set(response.body.data.map((e: { legalEntityId: string }) => e.legalEntityId)).size).toBe(
      controlled.length + 1,
    );
  });

  test('gives a controlled company the same id in its own list, where it is not primary', async () => {
    const record = holding();
    const [subsidiary] = expected().controlled(record);
    const list = await api.get(legalEntitiesPath(record.country, record.companyNumber, '?limit=500'));
    const own = await api.get(legalEntitiesPath(subsidiary!.country, subsidiary!.companyNumber));

    expectOk(own);
    expect(own.body.data[0]).toEqual(
      list.body.data.find(
        (e: { name: string; countryCode: string }) =>
          e.name === subsidiary!.name && e.countryCode === subsidiary!.country,
      ),
    );
    expect(own.body.data[0].isPrimary).toBe(false);
  });

  test('pages with limit and offset, an offset past the end giving no data and the true total', async () => {
    const record = holding();
    const total = expected().controlled(record).length + 1;
    const all = await api.get(legalEntitiesPath(record.country, record.companyNumber, '?limit=500'));

    const page = await api.get(legalEntitiesPath(record.country, record.companyNumber, '?limit=1&offset=1'));
    const past = await api.get(legalEntitiesPath(record.country, record.companyNumber, '?offset=10000'));

    expect(page.body.data).toEqual(all.body.data.slice(1, 2));
    expect(page.body.pagination).toEqual({ limit: 1, offset: 1, total });
    expect(past.body).toMatchObject({ data: [], pagination: { limit: 4, offset: 10000, total } });
  });

  test('rejects bad pagination and bad companies like financials', async () => {
    const record = holding();
    expectValidationError(
      await api.get(legalEntitiesPath(record.country, record.companyNumber, '?limit=0')),
      ['limit'],
    );
    expectValidationError(
      await api.get(legalEntitiesPath(record.country, record.companyNumber, '?limit=501')),
      ['limit'],
    );
    expectValidationError(
      await api.get(legalEntitiesPath(record.country, record.companyNumber, '?offset=x')),
      ['offset'],
    );
    expectValidationError(await api.get(legalEntitiesPath('BE', '0403170702')), ['companyNumber']);
    expectError(await api.get(legalEntitiesPath('FR', '356000000')), 404, 'NOT_FOUND', 'Company not found');
    expectError(
      await api.get(legalEntitiesPath(record.country, record.companyNumber), { token: TOKENS.dave }),
      403,
      'FORBIDDEN',
    );
  });
});
