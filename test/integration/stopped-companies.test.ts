/**
 * (ext) Stopped companies (contract §11.5.8) on DynamoDB Local, through the import: they are served
 * (details), found by search, match and PUT, keep lookalikes of their own, but are never a lookalike
 * of another company and never enter a smart list as NEW (a NEW one that stops leaves it).
 */
import { handler as getCompany } from '../../functions/get-company';
import { handler as matchHandler } from '../../functions/match-companies';
import { handler as searchHandler } from '../../functions/search-companies';
import { belgianCheckDigits } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { addCompanies } from '../../lib/lists/add-companies';
import { getListCompanies } from '../../lib/lists/lists';
import { createOneList } from '../../lib/lists/manage';
import { getCompanyLookalikes } from '../../lib/lookalikes/lookalikes';
import { ALICE, call } from '../support/events';
import { companyRecord, importRecords, period } from '../support/records';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(180_000);

const beNumber = (n: number) => {
  const firstEight = `09${String(n).padStart(6, '0')}`;
  return firstEight + belgianCheckDigits(firstEight);
};
const company = (n: number, overrides: Partial<CompanyRecordInput> = {}) =>
  companyRecord({
    companyNumber: beNumber(n),
    name: `Bakkerij ${['Een', 'Twee', 'Drie', 'Vier'][n - 1]} NV`,
    vatNumber: null,
    website: null,
    activities: ['10711'],
    financials: [period(2023)],
    shareholders: [],
    contacts: [],
    ...overrides,
  });

async function load(records: CompanyRecordInput[]) {
  const summary = await importRecords(records);
  expect(summary.rejected).toBe(0);
  return summary;
}

const lookalikesOf = async (n: number) =>
  (
    await getCompanyLookalikes({ countryCode: 'BE', companyNumber: beNumber(n) }, { limit: 100, offset: 0 })
  ).data.map((l) => l.companyId.companyNumber);

const STOPPED = 3;
let smartList: number;

beforeAll(async () => {
  await load([company(1), company(2), company(STOPPED, { stoppedOn: '2025-06-30' })]);
  smartList = (
    await createOneList(ALICE, { name: 'Bakeries', type: 'SMART', filters: { activities: ['1071'] } })
  ).body.id;
});

test('a stopped company is served and found by search, match and PUT', async () => {
  const details = await call(getCompany, {
    resource: '/v1/companies/{countryCode}/{companyNumber}',
    pathParameters: { countryCode: 'BE', companyNumber: beNumber(STOPPED) },
  });
  expect(details.status).toBe(200);
  expect((details.body as { data: object }).data).toMatchObject({
    status: 'INACTIVE',
    stoppedSince: '2025-06-30T00:00:00.000Z',
  });

  const found = await call(searchHandler, { resource: '/v1/companies', query: { q: 'bakkerij drie' } });
  expect((found.body as Array<{ companyNumber: string }>).map((c) => c.companyNumber)).toEqual([
    beNumber(STOPPED),
  ]);

  const match = await call(matchHandler, {
    resource: '/v1/companies/match',
    body: { companies: [{ name: 'Bakkerij Drie', country: 'BE' }] },
  });
  const [item] = match.body as Array<{
    data: Array<{ identifier: { companyNumber: string }; confidence: number }>;
  }>;
  expect(item!.data[0]!.identifier.companyNumber).toBe(beNumber(STOPPED));
  expect(item!.data[0]!.confidence).toBeGreaterThanOrEqual(0.9);

  const { id } = (await createOneList(ALICE, { name: 'Old customers', type: 'STATIC' })).body;
  expect(await addCompanies(ALICE, id, [{ name: 'Bakkerij Drie NV', country: 'BE' }])).toMatchObject({
    success: true,
    failed: [],
  });
});

test('a stopped company keeps its own lookalikes but is nobody else’s', async () => {
  expect(await lookalikesOf(1)).toEqual([beNumber(2)]);
  expect(await lookalikesOf(2)).toEqual([beNumber(1)]);
  expect((await lookalikesOf(STOPPED)).sort()).toEqual([beNumber(1), beNumber(2)]);
});

test('a stopped company never enters a smart list as NEW; a NEW one that stops leaves', async () => {
  const members = async () =>
    (await getListCompanies(ALICE, smartList, { type: 'NEW', limit: 100, offset: 0 })).data
      .map((c) => c.identifier.companyNumber)
      .sort();
  expect(await members()).toEqual([beNumber(1), beNumber(2)]);

  await load([company(2, { stoppedOn: '2026-11-01' }), company(4)]);

  expect(await members()).toEqual([beNumber(1), beNumber(4)]);
  // And it is no longer a lookalike of the others.
  expect((await lookalikesOf(1)).sort()).toEqual([beNumber(4)]);
});
