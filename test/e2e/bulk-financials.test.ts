/**
 * End to end over HTTP: POST /v1/companies/financials (contract §1, §1.1, §2, §3, §6.1); its media
 * types, size limit and compression are in bulk-financials-transport.test.ts.
 */
import { PATH, demoOf, entry, failedItem, foundItem } from './bulk-financials-items';
import {
  belgianNumber,
  BULK_ITEM_KEYS,
  dotted,
  expectError,
  expectOk,
  expectValidationError,
  identifierOf,
  IDENTIFIER_KEYS,
  newestFirst,
  PERIOD_KEYS,
  undefinedPaths,
  useApi,
} from './http';

const api = useApi();
const byCountry = (country: string, index = 0) => demoOf(api.records, country, index);

describe('POST financials in bulk', () => {
  test('answers bulk items in request order, duplicates included', async () => {
    const [a, b, c] = [byCountry('BE'), byCountry('NL'), byCountry('FR')];

    const response = await api.post(PATH, { companies: [entry(b), entry(a), entry(b), entry(c), entry(a)] });

    expectOk(response);
    expect(response.body).toEqual([foundItem(b), foundItem(a), foundItem(b), foundItem(c), foundItem(a)]);
  });

  test('gives every item exactly identifier, data, pagination, message in that order', async () => {
    const [a, b] = [byCountry('BE'), byCountry('FR', 1)];

    const response = await api.post(PATH, {
      companies: [entry(a), { countryCode: 'BE', companyNumber: belgianNumber('09999999') }, entry(b)],
      limit: 500,
    });

    expectOk(response);
    expect(response.body).toHaveLength(3);
    for (const item of response.body) expect(Object.keys(item)).toEqual(BULK_ITEM_KEYS);
    for (const item of [response.body[0], response.body[2]]) {
      expect(item.message).toBeNull();
      expect(Object.keys(item.identifier)).toEqual(IDENTIFIER_KEYS);
      expect(Object.keys(item.pagination)).toEqual(['limit', 'offset', 'total']);
      for (const period of item.data) expect(Object.keys(period)).toEqual(PERIOD_KEYS);
    }
    expect(JSON.stringify(response.body[0].data)).toBe(JSON.stringify(newestFirst(a)));
    expect(JSON.stringify(response.body[2].data)).toBe(JSON.stringify(newestFirst(b)));
    expect(Object.keys(response.body[1].identifier)).toEqual(['country', 'companyNumber']);
    expect(undefinedPaths(response.body)).toEqual([]);
  });

  test('accepts `country` as a synonym of `countryCode`, in any letter case', async () => {
    const [nl, be] = [byCountry('NL', 1), byCountry('BE', 1)];

    const response = await api.post(PATH, {
      companies: [
        { country: 'nl', companyNumber: nl.companyNumber },
        { country: 'BE', companyNumber: be.companyNumber },
      ],
    });

    expectOk(response);
    expect(response.body).toEqual([foundItem(nl), foundItem(be)]);
  });

  test('canonicalises forgiving input forms in the answer', async () => {
    const be = api.records.find((r) => r.country === 'BE' && r.companyNumber.startsWith('0'))!;
    const fr = byCountry('FR', 2);
    const number = be.companyNumber;

    const response = await api.post(PATH, {
      companies: [
        { countryCode: 'be', companyNumber: dotted(number) },
        { countryCode: 'BE', companyNumber: number.slice(1) },
        { countryCode: 'Be', companyNumber: `BE${number}` },
        { countryCode: 'fr', companyNumber: `${fr.companyNumber}00021` },
      ],
    });

    expectOk(response);
    expect(response.body).toEqual([foundItem(be), foundItem(be), foundItem(be), foundItem(fr)]);
  });

  test('fails an unknown company with Company not found and a canonical identifier, the others unaffected', async () => {
    const known = byCountry('BE');
    const unknown = belgianNumber('09999999');

    const response = await api.post(PATH, {
      companies: [entry(known), { countryCode: 'be', companyNumber: dotted(unknown) }, entry(known)],
    });

    expectOk(response);
    expect(response.body).toEqual([
      foundItem(known),
      failedItem('BE', unknown, 'Company not found'),
      foundItem(known),
    ]);
    expect(Object.keys(response.body[1])).toEqual(BULK_ITEM_KEYS);
    expect(Object.keys(response.body[1].identifier)).toEqual(['country', 'companyNumber']);
  });

  test('fails an invalid number with Invalid company number, echoing the number as sent', async () => {
    const known = byCountry('NL');
    const badChecksum = '0403.170.702';

    const response = await api.post(PATH, {
      companies: [
        { countryCode: 'BE', companyNumber: badChecksum },
        entry(known),
        { countryCode: 'FR', companyNumber: '552100555' },
        { countryCode: 'NL', companyNumber: 12345678 },
      ],
    });

    expectOk(response);
    expect(response.body).toEqual([
      failedItem('BE', badChecksum, 'Invalid company number'),
      foundItem(known),
      failedItem('FR', '552100555', 'Invalid company number'),
      failedItem('NL', 12345678, 'Invalid company number'),
    ]);
  });

  test('fails a bad country with Invalid country code', async () => {
    const known = byCountry('FR');

    const response = await api.post(PATH, {
      companies: [{ countryCode: 'XX', companyNumber: '0403170701' }, entry(known)],
    });

    expectOk(response);
    expect(response.body).toEqual([failedItem('XX', '0403170701', 'Invalid country code'), foundItem(known)]);
    expect(Object.keys(response.body[0].identifier)).toEqual(['country', 'companyNumber']);
  });

  test('applies limit and offset to each company', async () => {
    const [a, b] = [
      api.records.find((r) => r.financials.length >= 5)!,
      api.records.find((r) => r.financials.length === 2)!,
    ];

    const response = await api.post(PATH, { companies: [entry(a), entry(b)], limit: 2, offset: 1 });

    expectOk(response);
    expect(response.body).toEqual([foundItem(a, 2, 1), foundItem(b, 2, 1)]);
    expect(response.body[1].data).toHaveLength(1);
  });

  test('answers an offset past the end with no data and the true total per company', async () => {
    const a = byCountry('BE');

    const response = await api.post(PATH, { companies: [entry(a)], offset: 10000 });

    expectOk(response);
    expect(response.body).toEqual([
      {
        identifier: identifierOf(a),
        data: [],
        pagination: { limit: 4, offset: 10000, total: a.financials.length },
        message: null,
      },
    ]);
  });

  test('answers 100 distinct companies with 100 items in request order', async () => {
    // The table holds 90 companies; 10 more valid numbers that are not in the data make 100 distinct.
    const unknown = Array.from({ length: 10 }, (_, i) => belgianNumber(`0999990${i}`));
    const companies = [
      ...api.records.map(entry),
      ...unknown.map((companyNumber) => ({ countryCode: 'BE', companyNumber })),
    ];
    expect(new Set(companies.map((c) => `${c.countryCode}#${c.companyNumber}`)).size).toBe(100);

    const response = await api.post(PATH, { companies });

    expectOk(response);
    expect(response.body).toEqual([
      ...api.records.map((r) => foundItem(r)),
      ...unknown.map((n) => failedItem('BE', n, 'Company not found')),
    ]);
  });

  test('ignores unknown fields at the top level and in entries and never echoes them', async () => {
    const a = byCountry('NL');

    const response = await api.post(PATH, {
      companies: [{ ...entry(a), nickname: 'zzUnknownEntryFieldzz' }],
      zzUnknownTopFieldzz: { nested: true },
    });

    expectOk(response);
    expect(response.body).toEqual([foundItem(a)]);
    expect(response.raw).not.toContain('zzUnknown');
    expect(response.raw).not.toContain('nickname');
  });
});

describe('POST financials in bulk: structurally bad requests', () => {
  test('rejects an empty companies array', async () => {
    const response = await api.post(PATH, { companies: [] });

    expectValidationError(response, ['companies']);
  });

  test('rejects 101 companies', async () => {
    const companies = Array.from({ length: 101 }, (_, i) => entry(api.records[i % api.records.length]!));

    const response = await api.post(PATH, { companies });

    expectValidationError(response, ['companies']);
  });

  test.each([
    ['a string', 'BE0403170701'],
    ['null', null],
    ['an array', []],
    ['a number', 7],
  ])('rejects an entry that is %s, naming it companies[1]', async (_case, bad) => {
    const response = await api.post(PATH, { companies: [entry(byCountry('BE')), bad] });

    expectValidationError(response, ['companies[1]']);
  });

  test.each([
    ['an array', []],
    ['a string', 'companies'],
    ['a number', 42],
    ['null', null],
  ])('rejects a body that is %s', async (_case, body) => {
    const response = await api.post(PATH, JSON.stringify(body));

    expectError(response, 400, 'VALIDATION_ERROR');
  });

  test('rejects a body without companies', async () => {
    const response = await api.post(PATH, { limit: 4 });

    expectValidationError(response, ['companies']);
  });

  test('rejects companies that is not an array', async () => {
    const response = await api.post(PATH, { companies: { countryCode: 'BE', companyNumber: '0403170701' } });

    expectValidationError(response, ['companies']);
  });

  test('rejects a POST without a body', async () => {
    const response = await api.send('POST', PATH, { headers: { 'Content-Type': 'application/json' } });

    expectError(response, 400, 'VALIDATION_ERROR');
  });

  test.each([
    ['"4" (a string)', '4'],
    ['0', 0],
    ['501', 501],
    ['1.5', 1.5],
    ['null', null],
  ])('rejects limit %s with the contract message', async (_case, limit) => {
    const response = await api.post(PATH, { companies: [entry(byCountry('BE'))], limit });

    expectValidationError(response, ['limit'], 'limit must be an integer between 1 and 500');
  });

  test.each([
    ['-1', -1],
    ['10001', 10001],
    ['"0" (a string)', '0'],
  ])('rejects offset %s with the contract message', async (_case, offset) => {
    const response = await api.post(PATH, { companies: [entry(byCountry('BE'))], offset });

    expectValidationError(response, ['offset'], 'offset must be an integer between 0 and 10000');
  });

  test('rejects malformed JSON with INVALID_JSON', async () => {
    const response = await api.post(PATH, '{"companies": [');

    expectError(response, 400, 'INVALID_JSON');
  });
});
