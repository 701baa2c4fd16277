/**
 * End to end over HTTP: GET /v1/companies/{countryCode}/{companyNumber}/lookalikes and
 * POST /v1/companies/lookalikes (contract §1.1, §2, §3, §6.3), over the demo data the import loaded.
 */
import type { DemoRecord } from '../fixtures/demo-data/records';
import { featuresOf, sectionOf } from '../../lib/lookalikes/features';
import { similarity } from '../../lib/lookalikes/scoring';
import { parseCompanyRecord } from '../../lib/companies/record';
import {
  belgianNumber,
  expectError,
  expectOk,
  expectValidationError,
  identifierOf,
  IDENTIFIER_KEYS,
  useApi,
} from './http';

const api = useApi();
const BULK = '/v1/companies/lookalikes';
const single = (country: string, number: string, query = '') =>
  `/v1/companies/${country}/${encodeURIComponent(number)}/lookalikes${query}`;

const features = (record: DemoRecord) => {
  const parsed = parseCompanyRecord(record);
  if (!parsed.ok) throw new Error(parsed.reason);
  return featuresOf(parsed.record);
};
/** Lookalikes are looked for among the companies sharing the NACE section of the main activity. */
const sections = new Map<DemoRecord, string>();
const section = (record: DemoRecord): string => {
  let found = sections.get(record);
  if (found === undefined) sections.set(record, (found = sectionOf(features(record))));
  return found;
};
const key = (c: { country: string; companyNumber: string }) => `${c.country}${c.companyNumber}`;
/** The demo company with the most companies in its section. */
const busiest = (): DemoRecord =>
  [...api.records].sort(
    (a, b) =>
      api.records.filter((r) => section(r) === section(b)).length -
        api.records.filter((r) => section(r) === section(a)).length || key(a).localeCompare(key(b)),
  )[0]!;
/** A stopped company is never another's lookalike (§11.5.8). */
const peersOf = (record: DemoRecord) =>
  api.records.filter((r) => r !== record && r.stoppedOn === null && section(r) === section(record));
const entry = (r: DemoRecord) => ({ countryCode: r.country, companyNumber: r.companyNumber });

type Lookalike = { companyId: { country: string; companyNumber: string }; score: number };

describe('GET lookalikes', () => {
  test('answers identifier, the 10 best lookalikes and the pagination, in the contract key order', async () => {
    const record = busiest();

    const response = await api.get(single(record.country, record.companyNumber));

    expectOk(response);
    expect(Object.keys(response.body)).toEqual(['identifier', 'data', 'pagination']);
    expect(response.body.identifier).toEqual(identifierOf(record));
    expect(Object.keys(response.body.identifier)).toEqual(IDENTIFIER_KEYS);
    const total = Math.min(100, peersOf(record).length);
    expect(response.body.pagination).toEqual({ limit: 10, offset: 0, total });
    expect(response.body.data).toHaveLength(Math.min(10, total));
    for (const lookalike of response.body.data) {
      expect(Object.keys(lookalike)).toEqual(['companyId', 'score']);
      expect(Object.keys(lookalike.companyId)).toEqual(['country', 'companyNumber']);
    }
  });

  test('scores every other company of the section, best first, ties by country and number, never itself', async () => {
    const record = busiest();

    const response = await api.get(single(record.country, record.companyNumber, '?limit=100'));

    expectOk(response);
    const data = response.body.data as Lookalike[];
    const peers = new Map(peersOf(record).map((r) => [key(r), r]));
    expect(data.map((l) => key(l.companyId)).sort()).toEqual([...peers.keys()].slice(0, 100).sort());
    expect(data.map((l) => key(l.companyId))).not.toContain(key(record));
    for (const { companyId, score } of data) {
      expect(score).toBe(similarity(features(record), features(peers.get(key(companyId))!)));
      expect(Number(score.toFixed(4))).toBe(score);
    }
    for (let i = 1; i < data.length; i++) {
      const [a, b] = [data[i - 1]!, data[i]!];
      expect(a.score > b.score || (a.score === b.score && key(a.companyId) < key(b.companyId))).toBe(true);
    }
  });

  test('pages through the kept lookalikes with limit and offset', async () => {
    const record = busiest();
    const all = (await api.get(single(record.country, record.companyNumber, '?limit=100'))).body.data;

    const response = await api.get(single(record.country, record.companyNumber, '?limit=2&offset=3'));

    expectOk(response);
    expect(response.body.data).toEqual(all.slice(3, 5));
    expect(response.body.pagination).toEqual({ limit: 2, offset: 3, total: all.length });
    const past = await api.get(single(record.country, record.companyNumber, '?offset=10000'));
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination.total).toBe(all.length);
  });

  test.each(['0', '101', 'abc', '1.5', ''])('rejects limit=%j', async (limit) => {
    const record = busiest();

    const response = await api.get(single(record.country, record.companyNumber, `?limit=${limit}`));

    expectValidationError(response, ['limit'], 'limit must be an integer between 1 and 100');
  });

  test.each(['-1', '10001', 'x'])('rejects offset=%j', async (offset) => {
    const response = await api.get(single('BE', busiest().companyNumber, `?offset=${offset}`));

    expectValidationError(response, ['offset'], 'offset must be an integer between 0 and 10000');
  });

  test.each([
    ['a Belgian number with a wrong checksum', 'BE', belgianNumber('04031707').slice(0, 8) + '00'],
    ['a Dutch number of 7 digits', 'NL', '1234567'],
    ['a French SIREN failing Luhn', 'FR', '552100555'],
  ])('rejects %s', async (_case, country, number) => {
    expectValidationError(await api.get(single(country, number)), ['companyNumber']);
  });

  test('rejects an unsupported country', async () => {
    expectValidationError(await api.get(single('DE', '12345678')), ['countryCode']);
  });

  test('answers 404 Company not found for a valid number that is not in the data', async () => {
    const response = await api.get(single('BE', belgianNumber('09999999')));

    expectError(response, 404, 'NOT_FOUND', 'Company not found');
  });

  test('needs a token', async () => {
    expectError(await api.get(single('BE', busiest().companyNumber), { token: null }), 401, 'UNAUTHORIZED');
  });
});

describe('POST lookalikes in bulk', () => {
  test('answers items of identifier, data and message in request order, duplicates and failures included', async () => {
    const [a, b] = [busiest(), api.records.find((r) => r.country === 'FR')!];
    const unknown = { countryCode: 'BE', companyNumber: belgianNumber('09999999') };

    const response = await api.post(BULK, {
      companies: [
        entry(a),
        unknown,
        entry(b),
        { countryCode: 'XX', companyNumber: '1' },
        entry(a),
        { country: 'nl', companyNumber: '12' },
      ],
      limit: 3,
    });

    expectOk(response);
    const single3 = async (r: DemoRecord) =>
      (await api.get(single(r.country, r.companyNumber, '?limit=3'))).body.data;
    const found = async (r: DemoRecord) => ({
      identifier: identifierOf(r),
      data: await single3(r),
      message: null,
    });
    expect(response.body).toEqual([
      await found(a),
      {
        identifier: { country: 'BE', companyNumber: unknown.companyNumber },
        data: null,
        message: 'Company not found',
      },
      await found(b),
      { identifier: { country: 'XX', companyNumber: '1' }, data: null, message: 'Invalid country code' },
      await found(a),
      { identifier: { country: 'nl', companyNumber: '12' }, data: null, message: 'Invalid company number' },
    ]);
    for (const item of response.body) expect(Object.keys(item)).toEqual(['identifier', 'data', 'message']);
  });

  test('gives 10 lookalikes per company by default and ignores offset', async () => {
    const record = busiest();

    const response = await api.post(BULK, { companies: [entry(record)], offset: 5 });

    expectOk(response);
    const first10 = (await api.get(single(record.country, record.companyNumber))).body.data;
    expect(response.body[0].data).toEqual(first10);
  });

  test('answers 100 companies', async () => {
    const companies = Array.from({ length: 100 }, (_, i) => entry(api.records[i % api.records.length]!));

    const response = await api.post(BULK, { companies, limit: 100 });

    expectOk(response);
    expect(response.body).toHaveLength(100);
    expect(response.body.every((item: { message: unknown }) => item.message === null)).toBe(true);
  });

  test.each([
    ['no companies', { companies: [] }, ['companies']],
    [
      '101 companies',
      { companies: Array.from({ length: 101 }, () => ({ countryCode: 'BE', companyNumber: '0403170701' })) },
      ['companies'],
    ],
    ['companies that is not an array', { companies: 'BE0403170701' }, ['companies']],
    ['an entry that is not an object', { companies: ['BE0403170701'] }, ['companies[0]']],
    ['limit 0', { companies: [{ countryCode: 'BE', companyNumber: '0403170701' }], limit: 0 }, ['limit']],
    ['limit 101', { companies: [{ countryCode: 'BE', companyNumber: '0403170701' }], limit: 101 }, ['limit']],
    [
      'limit "10"',
      { companies: [{ countryCode: 'BE', companyNumber: '0403170701' }], limit: '10' },
      ['limit'],
    ],
    ['a body that is not an object', [], ['body']],
  ])('rejects %s with 400', async (_case, body, paths) => {
    expectValidationError(await api.post(BULK, body), paths);
  });

  test('states the limit rule in the message', async () => {
    const response = await api.post(BULK, { companies: [entry(busiest())], limit: 101 });

    expectValidationError(response, ['limit'], 'limit must be an integer between 1 and 100');
  });

  test('rejects malformed JSON', async () => {
    const response = await api.send('POST', BULK, {
      body: '{"companies": [',
      headers: { 'Content-Type': 'application/json' },
    });

    expectError(response, 400, 'INVALID_JSON');
  });
});
