/**
 * End to end over HTTP: GET /v1/companies/{countryCode}/{companyNumber}, POST /v1/companies and
 * GET /v1/companies/{countryCode}/{companyNumber}/contacts (contract §6.5, §2, §3), over the demo data
 * the import loaded. The expected answers are worked out from the demo records themselves.
 */
import type { DemoRecord } from '../fixtures/demo-data/records';
import { SHAPE_KEYS } from '../support/contract';
import { expectError, expectOk, expectValidationError, identifierOf, IDENTIFIER_KEYS, useApi } from './http';

const api = useApi();
const single = (country: string, number: string, tail = '') =>
  `/v1/companies/${country}/${encodeURIComponent(number)}${tail}`;
const entry = (r: DemoRecord) => ({ countryCode: r.country, companyNumber: r.companyNumber });

const DATA_KEYS = SHAPE_KEYS.companyDetails;
const ADDRESS_KEYS = SHAPE_KEYS.address;

/** What §6.5 says the record's details are. */
function expectedDetails(r: DemoRecord) {
  const newest = [...r.financials].sort((a, b) => b.endDate.localeCompare(a.endDate))[0];
  const today = new Date().toISOString().slice(0, 10);
  return {
    vatNumber: r.vatNumber.replace(/[\s.]/g, '').toUpperCase(),
    status: r.stoppedOn !== null && r.stoppedOn <= today ? 'INACTIVE' : 'ACTIVE',
    establishedSince: `${r.foundedOn}T00:00:00.000Z`,
    stoppedSince: r.stoppedOn === null ? null : `${r.stoppedOn}T00:00:00.000Z`,
    companyTypeCode: r.legalForm,
    name: r.name,
    address: {
      country: r.country,
      street: r.address?.street ?? null,
      number: r.address?.number ?? null,
      box: r.address?.box ?? null,
      postalCode: r.address?.postalCode ?? null,
      place: r.address?.place ?? r.place,
    },
    website: r.website === null ? [] : [r.website],
    activities: r.activities,
    employees: newest?.people.employees ?? null,
    healthIndicator: newest?.healthIndicator ?? null,
    contacts: r.contacts.length,
    otherNames: [],
  };
}

const stopped = () => api.records.find((r) => r.stoppedOn !== null)!;
const withoutAddress = () => api.records.find((r) => r.address === null)!;
const withoutWebsite = () => api.records.find((r) => r.website === null)!;

describe('GET /v1/companies/{countryCode}/{companyNumber}', () => {
  test('answers identifier and data in the contract key order, every field from the record', async () => {
    const record = api.records[0]!;

    const response = await api.get(single(record.country, record.companyNumber));

    expectOk(response);
    expect(Object.keys(response.body)).toEqual(['identifier', 'data']);
    expect(Object.keys(response.body.identifier)).toEqual(IDENTIFIER_KEYS);
    expect(response.body.identifier).toEqual(identifierOf(record));
    expect(Object.keys(response.body.data)).toEqual(DATA_KEYS);
    expect(Object.keys(response.body.data.address)).toEqual(ADDRESS_KEYS);
    expect(response.body.data).toEqual(expectedDetails(record));
  });

  test('shows every kind of company the demo data holds: stopped, without address, without website', async () => {
    for (const record of [stopped(), withoutAddress(), withoutWebsite()]) {
      const response = await api.get(single(record.country, record.companyNumber));

      expectOk(response);
      expect(response.body.data).toEqual(expectedDetails(record));
    }
    const inactive = await api.get(single(stopped().country, stopped().companyNumber));
    expect(inactive.body.data.status).toBe('INACTIVE');
    const placeOnly = await api.get(single(withoutAddress().country, withoutAddress().companyNumber));
    expect(placeOnly.body.data.address).toEqual({
      country: withoutAddress().country,
      street: null,
      number: null,
      box: null,
      postalCode: null,
      place: withoutAddress().place,
    });
  });

  test('takes any input form of the number (§3) and answers the canonical one', async () => {
    const record = api.records.find((r) => r.country === 'BE' && r.companyNumber.startsWith('0'))!;
    const n = record.companyNumber;
    const forms = [`${n.slice(0, 4)}.${n.slice(4, 7)}.${n.slice(7)}`, `BE${n}`, n.slice(1), `be ${n}`];

    for (const form of forms) {
      const response = await api.get(single('be', form));

      expectOk(response);
      expect(response.body.identifier.companyNumber).toBe(n);
    }
  });

  test('a bad number or country is a 400 naming the field; an unknown company a 404', async () => {
    expectValidationError(await api.get(single('BE', '0403170702')), ['companyNumber']);
    expectValidationError(await api.get(single('DE', '0403170701')), ['countryCode']);
    expectError(await api.get(single('BE', '0403170701')), 404, 'NOT_FOUND', 'Company not found');
  });
});

describe('POST /v1/companies', () => {
  test('answers each entry in request order, duplicates included, failures per item', async () => {
    const [a, b] = api.records;
    const body = {
      companies: [
        entry(a!),
        { country: b!.country, companyNumber: b!.companyNumber },
        entry(a!),
        { countryCode: 'BE', companyNumber: '0403170701' },
        { countryCode: 'BE', companyNumber: '123' },
        { countryCode: 'XX', companyNumber: '0403170701' },
      ],
    };

    const response = await api.post('/v1/companies', body);

    expectOk(response);
    expect(response.body).toEqual([
      { identifier: identifierOf(a!), data: expectedDetails(a!), message: null },
      { identifier: identifierOf(b!), data: expectedDetails(b!), message: null },
      { identifier: identifierOf(a!), data: expectedDetails(a!), message: null },
      {
        identifier: { country: 'BE', companyNumber: '0403170701' },
        data: null,
        message: 'Company not found',
      },
      { identifier: { country: 'BE', companyNumber: '123' }, data: null, message: 'Invalid company number' },
      {
        identifier: { country: 'XX', companyNumber: '0403170701' },
        data: null,
        message: 'Invalid country code',
      },
    ]);
  });

  test('answers 100 companies; 101 or none is a 400 naming companies', async () => {
    const hundred = api.records.slice(0, 90).map(entry);
    while (hundred.length < 100) hundred.push(entry(api.records[hundred.length - 90]!));

    const ok = await api.post('/v1/companies', { companies: hundred });

    expectOk(ok);
    expect(ok.body).toHaveLength(100);
    expect(ok.body.every((item: { message: unknown }) => item.message === null)).toBe(true);
    expectValidationError(await api.post('/v1/companies', { companies: [...hundred, hundred[0]] }), [
      'companies',
    ]);
    expectValidationError(await api.post('/v1/companies', { companies: [] }), ['companies']);
    expectValidationError(await api.post('/v1/companies', {}), ['companies']);
    expectValidationError(await api.post('/v1/companies', { companies: ['BE0403170701'] }), ['companies[0]']);
  });
});

describe('GET /v1/companies/{countryCode}/{companyNumber}/contacts', () => {
  const sorted = (r: DemoRecord) =>
    [...r.contacts]
      .sort((x, y) =>
        x.lastName < y.lastName
          ? -1
          : x.lastName > y.lastName
            ? 1
            : x.firstName < y.firstName
              ? -1
              : x.firstName > y.firstName
                ? 1
                : x.contactId - y.contactId,
      )
      .map((c) => ({
        jobTitle: c.jobTitle,
        identifier: { contactId: c.contactId, firstName: c.firstName, lastName: c.lastName },
      }));

  test('pages the contacts by last name, first name and id, 10 by default, total exact', async () => {
    const record = [...api.records].sort((x, y) => y.contacts.length - x.contacts.length)[0]!;
    expect(record.contacts.length).toBeGreaterThan(3);

    const first = await api.get(single(record.country, record.companyNumber, '/contacts'));
    const second = await api.get(single(record.country, record.companyNumber, '/contacts?limit=2&offset=2'));

    expectOk(first);
    expect(Object.keys(first.body)).toEqual(['identifier', 'data', 'pagination']);
    expect(first.body.identifier).toEqual(identifierOf(record));
    expect(first.body.data).toEqual(sorted(record).slice(0, 10));
    expect(first.body.pagination).toEqual({ limit: 10, offset: 0, total: record.contacts.length });
    expect(second.body.data).toEqual(sorted(record).slice(2, 4));
    expect(Object.keys(second.body.data[0])).toEqual(['jobTitle', 'identifier']);
  });

  test('agrees with the details count; bad limit or offset is a 400; unknown company a 404', async () => {
    const record = api.records[1]!;
    const details = await api.get(single(record.country, record.companyNumber));
    const contacts = await api.get(single(record.country, record.companyNumber, '/contacts?offset=10000'));

    expect(contacts.body).toMatchObject({ data: [], pagination: { total: details.body.data.contacts } });
    expectValidationError(await api.get(single(record.country, record.companyNumber, '/contacts?limit=0')), [
      'limit',
    ]);
    expectValidationError(
      await api.get(single(record.country, record.companyNumber, '/contacts?offset=10001')),
      ['offset'],
    );
    expectError(await api.get(single('NL', '00000001', '/contacts')), 404, 'NOT_FOUND', 'Company not found');
  });
});
