/**
 * Company details and search against DynamoDB Local, through the import (contract §6.5, §11): what a
 * sparse record shows, and that an exact name survives the search's bound on the entries it reads.
 */
import { handler as getCompany } from '../../functions/get-company';
import { handler as searchHandler } from '../../functions/search-companies';
import { belgianCheckDigits } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { searchRoutes } from '../../lib/search/routes';
import { searchCompanies } from '../../lib/search/search';
import { withDeclaredAccess } from '../../lib/storage/access';
import { call } from '../support/events';
import { asImportWorkers } from '../support/import-access';
import { companyRecord, importRecords, period } from '../support/records';
import { useFreshTable } from '../support/table';

useFreshTable();

const beNumber = (n: number) => {
  const firstEight = `07${String(n).padStart(6, '0')}`;
  return firstEight + belgianCheckDigits(firstEight);
};
const company = (n: number, name: string, overrides: Partial<CompanyRecordInput> = {}) =>
  companyRecord({
    companyNumber: beNumber(n),
    name,
    vatNumber: null,
    shareholders: [],
    contacts: [],
    ...overrides,
  });

const NAMES = [
  'Bouw Zuid NV',
  'Bouwwerken Noord BV',
  'Bouwcenter Oost',
  'Gent Bouw',
  'Bouw NV',
  'Acme Bouw NV',
];

beforeAll(async () => {
  const records = [
    ...NAMES.map((name, i) => company(i + 1, name)),
    company(7, 'Lege Schelp', {
      financials: [],
      website: null,
      legalForm: null,
      foundedOn: null,
      place: 'Gent',
    }),
    // The newest period discloses no employees; the older one does: the details show the newest's.
    company(8, 'Twee Jaren', {
      financials: [
        period(2022, { healthIndicator: 9 }),
        { ...period(2023, { healthIndicator: 2 }), people: { ...period(2023).people, employees: null } },
      ],
    }),
  ];
  const rejected: string[] = [];
  await asImportWorkers(() =>
    importRecords(records, { onRejected: (line, reason) => rejected.push(`${line}: ${reason}`) }),
  );
  expect(rejected).toEqual([]);
});

const numbers = (answer: Array<{ companyNumber: string }>) =>
  answer.map((c) => Number(c.companyNumber.slice(2, 8)));

test('a sparse record: no periods, address, website or dates shows nulls, the place and no contacts', async () => {
  const response = await call(getCompany, {
    resource: '/v1/companies/{countryCode}/{companyNumber}',
    pathParameters: { countryCode: 'BE', companyNumber: beNumber(7) },
  });

  expect(response.status).toBe(200);
  expect((response.body as { data: unknown }).data).toEqual({
    vatNumber: null,
    status: 'ACTIVE',
    establishedSince: null,
    stoppedSince: null,
    companyTypeCode: null,
    name: 'Lege Schelp',
    address: { country: 'BE', street: null, number: null, box: null, postalCode: null, place: 'Gent' },
    website: [],
    activities: ['41201', '4399'],
    employees: null,
    healthIndicator: null,
    contacts: 0,
    otherNames: [],
  });
});

test("employees and health indicator are the newest period's, a null among them included", async () => {
  const response = await call(getCompany, {
    resource: '/v1/companies/{countryCode}/{companyNumber}',
    pathParameters: { countryCode: 'BE', companyNumber: beNumber(8) },
  });

  expect(response.status).toBe(200);
  expect((response.body as { data: unknown }).data).toMatchObject({ employees: null, healthIndicator: 2 });
});

test('search ranks the exact name first, then by country and number', async () => {
  const response = await call(searchHandler, { resource: '/v1/companies', query: { q: 'BOUW' } });

  expect(response.status).toBe(200);
  expect(numbers(response.body as Array<{ companyNumber: string }>)).toEqual([5, 1, 2, 3, 4, 6]);
});

test('an exact name is found even when the word read reaches the bound of entries', async () => {
  // 2 entries a Query: `bouw#…` of companies 1 and 4 are read, not 5's or 6's.
  const answer = await withDeclaredAccess(searchRoutes.searchCompanies.storage, () =>
    searchCompanies({ q: 'bouw', limit: 10 }, 2),
  );

  expect(numbers(answer)).toEqual([5, 1, 4]);
});

test('the other words of a search are checked where they start the name and where they follow a space', async () => {
  // `zuid` and `bouw` are as long: `zuid` is looked up, `bouw` checked (first word of `Bouw Zuid NV`);
  // `oo` starts the second word of `Bouwcenter Oost`; `wer` starts no word (it is inside `Bouwwerken`).
  const search = async (q: string) =>
    numbers(
      (await call(searchHandler, { resource: '/v1/companies', query: { q } })).body as Array<{
        companyNumber: string;
      }>,
    );

  expect(await search('zuid bouw')).toEqual([1]);
  expect(await search('bouw oo')).toEqual([3]);
  expect(await search('bouw wer')).toEqual([]);
});

test('the bound counts the entries read, not the ones the other words keep', async () => {
  // 2 entries read for `bouw`: companies 1 (`Bouw Zuid NV`) and 4 (`Gent Bouw`), of which `gent` keeps 4;
  // the bound was reached, so `gent` is read too (the same company, once).
  const answer = await withDeclaredAccess(searchRoutes.searchCompanies.storage, () =>
    searchCompanies({ q: 'bouw gent', limit: 10 }, 2),
  );

  expect(numbers(answer)).toEqual([4]);
});

test('a word that reaches the bound is made good by the other words of the search', async () => {
  // `bouw` (read first: longer) reaches the bound of 2 entries with companies 1 and 4, neither an
  // `acm…`; `acm` is read next, within the bound, so its one match is all there is. Two letters are not
  // read again (a word being typed): `bouw no` finds only what `bouw`'s entries and the exact name give.
  const search = (q: string) =>
    withDeclaredAccess(searchRoutes.searchCompanies.storage, () => searchCompanies({ q, limit: 10 }, 2));

  expect(numbers(await search('bouw acm'))).toEqual([6]);
  expect(numbers(await search('bouw noo'))).toEqual([2]);
  expect(numbers(await search('bouw no'))).toEqual([]);
});
