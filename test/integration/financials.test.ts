/** The financials handlers with real REST proxy events, against DynamoDB Local. */
import { handler as getFinancials } from '../../functions/get-company-financials';
import { handler as getFinancialsBulk } from '../../functions/get-company-financials-bulk';
import type { CompanyRecordInput } from '../../lib/companies/record';
import type { FinancialPeriod } from '../../lib/companies/schemas';
import { importCompanies } from '../../lib/import/import';
import { PERIOD_KEYS } from '../support/contract';
import { call, type EventSpec } from '../support/events';
import { period as consistentPeriod } from '../support/records';
import { useFreshTable } from '../support/table';

useFreshTable();

const period = (year: number, revenue: number | null): FinancialPeriod => consistentPeriod(year, { revenue });

const BELGIAN: CompanyRecordInput = {
  country: 'BE',
  companyNumber: '0403170701',
  name: 'Brouwerij De Kroon NV',
  place: 'Leuven',
  vatNumber: 'BE0403170701',
  // Imported in any order; answered newest first.
  financials: [2019, 2023, 2021, 2020, 2022, 2018].map((year) => period(year, year * 10)),
};
const FRENCH: CompanyRecordInput = {
  country: 'FR',
  companyNumber: '552100554',
  name: 'Boulangerie Martin SAS',
  place: 'Lyon',
  financials: [period(2024, null)],
};
const DUTCH_WITHOUT_FILINGS: CompanyRecordInput = {
  country: 'NL',
  companyNumber: '33011433',
  name: 'Mulder Bouw B.V.',
};

beforeAll(async () => {
  async function* lines() {
    for (const record of [BELGIAN, FRENCH, DUTCH_WITHOUT_FILINGS]) yield JSON.stringify(record);
  }
  const summary = await importCompanies(lines(), { asOf: '2026-11-21' });
  expect(summary.imported).toBe(3);
});

const single = (countryCode: string, companyNumber: string, query?: Record<string, string>): EventSpec => ({
  resource: '/v1/companies/{countryCode}/{companyNumber}/financials',
  pathParameters: { countryCode, companyNumber },
  ...(query ? { query } : {}),
});

describe('GET /v1/companies/{countryCode}/{companyNumber}/financials', () => {
  it('answers the identifier, the newest four periods and the pagination', async () => {
    const { status, body, raw } = await call(getFinancials, single('BE', '0403170701'));

    expect(status).toBe(200);
    expect(body).toEqual({
      identifier: {
        country: 'BE',
        companyNumber: '0403170701',
        name: 'Brouwerij De Kroon NV',
        place: 'Leuven',
      },
      data: [2023, 2022, 2021, 2020].map((year) => period(year, year * 10)),
      pagination: { limit: 4, offset: 0, total: 6 },
    });
    expect(raw.startsWith('{"identifier":{"country":"BE","companyNumber":"0403170701","name"')).toBe(true);
  });

  it('keeps the contract key order in every period', async () => {
    const { body } = await call(getFinancials, single('BE', '0403170701', { limit: '1' }));

    const [first] = (body as { data: FinancialPeriod[] }).data;
    expect(Object.keys(first!)).toEqual([...PERIOD_KEYS.period]);
    for (const group of ['profitability', 'liquidity', 'solvency', 'people'] as const) {
      expect(Object.keys(first![group])).toEqual([...PERIOD_KEYS[group]]);
    }
  });

  it('applies limit and offset and keeps the exact total', async () => {
    const { body } = await call(getFinancials, single('BE', '0403170701', { limit: '2', offset: '3' }));

    expect((body as { data: FinancialPeriod[] }).data.map((p) => p.endDate)).toEqual([
      '2020-12-31',
      '2019-12-31',
    ]);
    expect((body as { pagination: unknown }).pagination).toEqual({ limit: 2, offset: 3, total: 6 });
  });

  it('answers an offset past the end with no data and the true total', async () => {
    const { status, body } = await call(getFinancials, single('BE', '0403170701', { offset: '50' }));

    expect(status).toBe(200);
    expect(body).toMatchObject({ data: [], pagination: { limit: 4, offset: 50, total: 6 } });
  });

  it.each([
    ['be', '0403.170.701'],
    ['BE', '403170701'],
    ['Be', 'BE0403170701'],
    ['BE', '0403%20170%20701'], // percent-encoded as API Gateway hands it over
  ])('reads %p %p as the canonical company', async (country, number) => {
    const { status, body } = await call(getFinancials, single(country, number));

    expect(status).toBe(200);
    expect((body as { identifier: unknown }).identifier).toMatchObject({
      country: 'BE',
      companyNumber: '0403170701',
    });
  });

  it('shows null for undisclosed figures and an empty list for a company without filings', async () => {
    const french = await call(getFinancials, single('FR', '55210055400048'));
    const dutch = await call(getFinancials, single('NL', '33011433'));

    expect((french.body as { data: FinancialPeriod[] }).data[0]!.profitability.revenue).toBeNull();
    expect(dutch.body).toEqual({
      identifier: { country: 'NL', companyNumber: '33011433', name: 'Mulder Bouw B.V.', place: null },
      data: [],
      pagination: { limit: 4, offset: 0, total: 0 },
    });
  });

  it('answers 404 Company not found for a valid but unknown number', async () => {
    const { status, body, requestId } = await call(getFinancials, single('BE', '0202239951'));

    expect(status).toBe(404);
    expect(body).toEqual({ message: 'Company not found', code: 'NOT_FOUND', requestId });
  });

  it.each([
    ['BE', '0403170702', 'companyNumber', 'Invalid company number'],
    ['FR', '552100555', 'companyNumber', 'Invalid company number'],
    ['DE', '0403170701', 'countryCode', 'Invalid country code'],
  ])('answers 400 for %p %p', async (country, number, path, message) => {
    const { status, body } = await call(getFinancials, single(country, number));

    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'VALIDATION_ERROR', message, details: [{ path }] });
  });

  it.each(['0', '501', 'abc', '1.5'])('answers 400 for limit=%p', async (limit) => {
    const { status, body } = await call(getFinancials, single('BE', '0403170701', { limit }));

    expect(status).toBe(400);
    expect(body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'limit must be an integer between 1 and 500',
    });
  });

  it('answers 403 to a token without companies:read', async () => {
    const caller = { accountId: 'globex', userEmail: 'dave@globex.example', scopes: ['lists:read' as const] };
    const { status, body } = await call(getFinancials, { ...single('BE', '0403170701'), caller });

    expect(status).toBe(403);
    expect(body).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('answers 401 when the authorizer context is missing', async () => {
    const { status, body } = await call(getFinancials, { ...single('BE', '0403170701'), caller: null });

    expect(status).toBe(401);
    expect(body).toMatchObject({ code: 'UNAUTHORIZED', message: 'Unauthorized' });
  });

  it('sends x-request-id on every answer', async () => {
    const ok = await call(getFinancials, single('BE', '0403170701'));
    const bad = await call(getFinancials, single('BE', 'x'));

    expect(ok.headers['x-request-id']).toBe(ok.requestId);
    expect(bad.headers['x-request-id']).toBe(bad.requestId);
  });
});

describe('POST /v1/companies/financials', () => {
  const bulk = (body: unknown, headers?: Record<string, string>): EventSpec => ({
    resource: '/v1/companies/financials',
    method: 'POST',
    body,
    ...(headers ? { headers } : {}),
  });

  it('answers one item per requested company, in request order, duplicates included', async () => {
    const { status, body } = await call(
      getFinancialsBulk,
      bulk({
        companies: [
          { countryCode: 'FR', companyNumber: '552 100 554' },
          { country: 'be', companyNumber: '0403.170.701' },
          { countryCode: 'BE', companyNumber: '0202239951' },
          { countryCode: 'be', companyNumber: '0403170702' },
          { countryCode: 'XX', companyNumber: '123' },
          { countryCode: 'FR', companyNumber: '552100554' },
          {},
        ],
        limit: 1,
      }),
    );

    expect(status).toBe(200);
    const items = body as Array<Record<string, unknown>>;
    expect(items.map((item) => Object.keys(item))).toEqual(
      Array(7).fill(['identifier', 'data', 'pagination', 'message']),
    );
    expect(items.map((item) => item['message'])).toEqual([
      null,
      null,
      'Company not found',
      'Invalid company number',
      'Invalid country code',
      null,
      'Invalid country code',
    ]);
    expect(items[1]).toMatchObject({
      identifier: {
        country: 'BE',
        companyNumber: '0403170701',
        name: 'Brouwerij De Kroon NV',
        place: 'Leuven',
      },
      pagination: { limit: 1, offset: 0, total: 6 },
    });
    expect(items[2]).toEqual({
      identifier: { country: 'BE', companyNumber: '0202239951' },
      data: null,
      pagination: null,
      message: 'Company not found',
    });
    expect(items[3]!['identifier']).toEqual({ country: 'be', companyNumber: '0403170702' });
    expect(items[4]!['identifier']).toEqual({ country: 'XX', companyNumber: '123' });
    expect(items[6]!['identifier']).toEqual({ country: null, companyNumber: null });
    expect(items[5]).toEqual(items[0]);
  });

  it('applies limit and offset to each company', async () => {
    const { body } = await call(
      getFinancialsBulk,
      bulk({ companies: [{ countryCode: 'BE', companyNumber: '0403170701' }], limit: 2, offset: 1 }),
    );

    const [item] = body as Array<{ data: FinancialPeriod[]; pagination: unknown }>;
    expect(item!.data.map((p) => p.endDate)).toEqual(['2022-12-31', '2021-12-31']);
    expect(item!.pagination).toEqual({ limit: 2, offset: 1, total: 6 });
  });

  it.each([
    ['no companies', { companies: [] }, 'companies'],
    [
      '101 companies',
      { companies: Array(101).fill({ countryCode: 'BE', companyNumber: '0403170701' }) },
      'companies',
    ],
    ['an entry that is not an object', { companies: [{}, 'BE0403170701'] }, 'companies[1]'],
    ['companies missing', { limit: 2 }, 'companies'],
    ['a body that is an array', [], 'body'],
    ['limit as a string', { companies: [{}], limit: '4' }, 'limit'],
    ['offset beyond 10000', { companies: [{}], offset: 10001 }, 'offset'],
  ])('answers 400 VALIDATION_ERROR to %s', async (_name, requestBody, path) => {
    const { status, body } = await call(getFinancialsBulk, bulk(requestBody));

    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path }] });
  });

  it('answers 400 INVALID_JSON to a malformed body', async () => {
    const { status, body } = await call(getFinancialsBulk, bulk('{"companies": ['));

    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'INVALID_JSON' });
  });

  it.each([{ 'Content-Type': 'text/plain' }, { 'Content-Type': 'application/x-www-form-urlencoded' }])(
    'answers 415 to %p',
    async (headers) => {
      const { status, body } = await call(getFinancialsBulk, bulk({ companies: [{}] }, headers));

      expect(status).toBe(415);
      expect(body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    },
  );

  it('accepts a JSON content type with parameters, in any case', async () => {
    const { status } = await call(
      getFinancialsBulk,
      bulk(
        { companies: [{ countryCode: 'FR', companyNumber: '552100554' }] },
        { 'content-type': 'Application/JSON; charset=UTF-8' },
      ),
    );

    expect(status).toBe(200);
  });

  it('answers 413 to a body over 1 MiB', async () => {
    const padding = 'x'.repeat(1024 * 1024);
    const { status, body } = await call(getFinancialsBulk, bulk({ companies: [{}], padding }));

    expect(status).toBe(413);
    expect(body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('ignores unknown fields and never echoes them', async () => {
    const { status, raw } = await call(
      getFinancialsBulk,
      bulk({ companies: [{ countryCode: 'FR', companyNumber: '552100554', colour: 'blue' }], colour: 'red' }),
    );

    expect(status).toBe(200);
    expect(raw).not.toContain('colour');
  });
});
