/**
 * End to end over HTTP: GET /v1/companies/{countryCode}/{companyNumber}/financials (contract §1.1, §2.1, §3, §6.1).
 */
import {
  belgianNumber,
  dotted,
  expectError,
  expectOk,
  expectValidationError,
  financialsPath,
  identifierOf,
  IDENTIFIER_KEYS,
  newestFirst,
  PERIOD_KEYS,
  undefinedPaths,
  useApi,
} from './http';
import { PERIOD_KEYS as CONTRACT_PERIOD_KEYS } from '../support/contract';

const api = useApi();

/** A Belgian company with more periods than the default page, whose number starts with 0 (so it has a 9-digit form). */
const belgian = () =>
  api.records.find((r) => r.country === 'BE' && r.companyNumber.startsWith('0') && r.financials.length >= 6)!;
const dutch = () => api.records.find((r) => r.country === 'NL' && r.financials.length >= 5)!;
const french = () => api.records.find((r) => r.country === 'FR')!;

describe('GET financials of one company', () => {
  test('answers identifier, the first 4 periods newest first and default pagination', async () => {
    const record = belgian();

    const response = await api.get(financialsPath('BE', record.companyNumber));

    expectOk(response);
    expect(Object.keys(response.body)).toEqual(['identifier', 'data', 'pagination']);
    expect(Object.keys(response.body.identifier)).toEqual(IDENTIFIER_KEYS);
    expect(response.body.identifier).toEqual(identifierOf(record));
    expect(response.body.data).toEqual(newestFirst(record).slice(0, 4));
    expect(Object.keys(response.body.pagination)).toEqual(['limit', 'offset', 'total']);
    expect(response.body.pagination).toEqual({ limit: 4, offset: 0, total: record.financials.length });
  });

  test('orders periods by endDate descending', async () => {
    const record = dutch();

    const response = await api.get(financialsPath('NL', record.companyNumber, '?limit=500'));

    expectOk(response);
    const endDates: string[] = response.body.data.map((p: { endDate: string }) => p.endDate);
    expect(endDates).toEqual([...endDates].sort().reverse());
    expect(endDates).toHaveLength(record.financials.length);
  });

  test('every period has exactly the contract keys in order, nested as in the seed, nulls present, nothing undefined', async () => {
    const record = belgian();

    const response = await api.get(financialsPath('BE', record.companyNumber, '?limit=500'));

    expectOk(response);
    for (const period of response.body.data) {
      expect(Object.keys(period)).toEqual(PERIOD_KEYS);
      expect(Number.isInteger(period.healthIndicator)).toBe(true);
      expect(period.healthIndicator).toBeGreaterThanOrEqual(0);
      expect(period.healthIndicator).toBeLessThanOrEqual(10);
    }
    // Byte for byte: same values, same key order at every level, null fields present.
    expect(JSON.stringify(response.body.data)).toBe(JSON.stringify(newestFirst(record)));
    for (const group of ['profitability', 'liquidity', 'solvency', 'people'] as const) {
      expect(Object.keys(response.body.data[0][group])).toEqual([...CONTRACT_PERIOD_KEYS[group]]);
    }
    expect(undefinedPaths(response.body)).toEqual([]);
  });

  test('keeps a field without value as null (abbreviated Belgian accounts have no revenue)', async () => {
    const record = api.records.find((r) => r.financials.some((p) => p.profitability.revenue === null))!;

    const response = await api.get(financialsPath(record.country, record.companyNumber, '?limit=500'));

    expectOk(response);
    expect(response.raw).toContain('"revenue":null');
    expect(JSON.stringify(response.body.data)).toBe(JSON.stringify(newestFirst(record)));
  });

  test('applies limit and offset and echoes them with the exact total', async () => {
    const record = belgian();

    const response = await api.get(financialsPath('BE', record.companyNumber, '?limit=2&offset=1'));

    expectOk(response);
    expect(response.body.data).toEqual(newestFirst(record).slice(1, 3));
    expect(response.body.pagination).toEqual({ limit: 2, offset: 1, total: record.financials.length });
  });

  test('answers the last partial page', async () => {
    const record = belgian();
    const total = record.financials.length;

    const response = await api.get(
      financialsPath('BE', record.companyNumber, `?limit=4&offset=${total - 1}`),
    );

    expectOk(response);
    expect(response.body.data).toEqual(newestFirst(record).slice(total - 1));
    expect(response.body.pagination).toEqual({ limit: 4, offset: total - 1, total });
  });

  test('answers an offset past the end with no data and the true total', async () => {
    const record = belgian();

    const response = await api.get(financialsPath('BE', record.companyNumber, '?offset=10000'));

    expectOk(response);
    expect(response.body.data).toEqual([]);
    expect(response.body.pagination).toEqual({ limit: 4, offset: 10000, total: record.financials.length });
  });

  test('accepts the limit bounds 1 and 500', async () => {
    const record = belgian();

    const one = await api.get(financialsPath('BE', record.companyNumber, '?limit=1'));
    const max = await api.get(financialsPath('BE', record.companyNumber, '?limit=500'));

    expectOk(one);
    expect(one.body.data).toEqual(newestFirst(record).slice(0, 1));
    expect(one.body.pagination).toEqual({ limit: 1, offset: 0, total: record.financials.length });
    expectOk(max);
    expect(max.body.data).toEqual(newestFirst(record));
    expect(max.body.pagination).toEqual({ limit: 500, offset: 0, total: record.financials.length });
  });

  test('ignores unknown query parameters', async () => {
    const record = belgian();

    const response = await api.get(financialsPath('BE', record.companyNumber, '?foo=bar&limit=3'));

    expectOk(response);
    expect(response.body.pagination).toEqual({ limit: 3, offset: 0, total: record.financials.length });
    expect(response.raw).not.toContain('foo');
  });
});

describe('GET financials: forgiving input, canonical output', () => {
  test.each([
    ['lowercase country', 'be', (n: string) => n],
    ['dotted number', 'BE', dotted],
    ['number with spaces', 'BE', (n: string) => `${n.slice(0, 4)} ${n.slice(4, 7)} ${n.slice(7)}`],
    ['9 digits without the leading 0', 'BE', (n: string) => n.slice(1)],
    ['BE prefix', 'BE', (n: string) => `BE${n}`],
    ['BE prefix, dots and lowercase country', 'be', (n: string) => `BE${dotted(n)}`],
  ])('answers the canonical identifier for a Belgian number given as %s', async (_form, country, format) => {
    const record = belgian();

    const response = await api.get(financialsPath(country, format(record.companyNumber)));

    expectOk(response);
    expect(Object.keys(response.body.identifier)).toEqual(IDENTIFIER_KEYS);
    expect(response.body.identifier).toEqual(identifierOf(record));
    expect(response.body.data).toEqual(newestFirst(record).slice(0, 4));
  });

  test('answers the SIREN for a French SIRET (14 digits)', async () => {
    const record = french();
    const siret = `${record.companyNumber}00017`;

    const response = await api.get(financialsPath('fr', siret));

    expectOk(response);
    expect(response.body.identifier).toEqual(identifierOf(record));
    expect(response.body.identifier.companyNumber).toHaveLength(9);
    expect(response.body.pagination.total).toBe(record.financials.length);
  });

  test('answers a Dutch company by its 8-digit number', async () => {
    const record = dutch();

    const response = await api.get(financialsPath('nl', record.companyNumber));

    expectOk(response);
    expect(response.body.identifier).toEqual(identifierOf(record));
  });
});

describe('GET financials: bad input', () => {
  test.each(['0', '501', 'abc', '1.5', '-1', ''])(
    'rejects limit=%j with the contract message',
    async (limit) => {
      const record = belgian();

      const response = await api.get(financialsPath('BE', record.companyNumber, `?limit=${limit}`));

      expectValidationError(response, ['limit'], 'limit must be an integer between 1 and 500');
    },
  );

  test('rejects limit=501 with the detail "must be ≤ 500"', async () => {
    const record = belgian();

    const response = await api.get(financialsPath('BE', record.companyNumber, '?limit=501'));

    expectValidationError(response, ['limit'], 'limit must be an integer between 1 and 500');
    expect(response.body.details).toEqual([{ path: 'limit', message: 'must be ≤ 500' }]);
  });

  test.each(['-1', '10001', 'x', '0.5'])('rejects offset=%j with the contract message', async (offset) => {
    const record = belgian();

    const response = await api.get(financialsPath('BE', record.companyNumber, `?offset=${offset}`));

    expectValidationError(response, ['offset'], 'offset must be an integer between 0 and 10000');
  });

  test('rejects a Belgian number with a wrong checksum', async () => {
    const number = belgian().companyNumber;
    const wrong = number.slice(0, 8) + String((Number(number.slice(8)) % 96) + 1).padStart(2, '0');

    const response = await api.get(financialsPath('BE', wrong));

    expectValidationError(response, ['companyNumber']);
  });

  test.each([
    ['a Belgian number that does not start with 0 or 1', 'BE', belgianNumber('20000000')],
    ['a Belgian number of 11 digits', 'BE', '04031707011'],
    ['a Dutch number of 7 digits', 'NL', '1234567'],
    ['a French SIREN failing Luhn', 'FR', '552100555'],
    ['letters', 'NL', 'ABCDEFGH'],
  ])('rejects %s', async (_case, country, number) => {
    const response = await api.get(financialsPath(country, number));

    expectValidationError(response, ['companyNumber']);
  });

  test.each(['XX', 'DE', 'B'])('rejects country %s', async (country) => {
    const response = await api.get(financialsPath(country, belgian().companyNumber));

    expectValidationError(response, ['countryCode']);
  });

  test('answers 404 Company not found for a valid number that is not in the data', async () => {
    const unknown = belgianNumber('09999999');
    expect(api.records.some((r) => r.companyNumber === unknown)).toBe(false);

    const response = await api.get(financialsPath('BE', unknown));

    expectError(response, 404, 'NOT_FOUND', 'Company not found');
  });

  test('answers 404 for a valid La Poste SIREN that is not in the data', async () => {
    const response = await api.get(financialsPath('FR', '356000000'));

    expectError(response, 404, 'NOT_FOUND', 'Company not found');
  });
});
