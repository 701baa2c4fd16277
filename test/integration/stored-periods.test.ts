/**
 * A company item holds its periods as a list of one JSON text per period (lib/companies/stored-periods.ts)
 * and the figures details show of its periods and contacts as numbers (lib/companies/details-figures.ts).
 * Items a deployed stage wrote before hold the periods as one JSON text of the whole array and no
 * figures: every reader (financials, details, the whole record the import and the lookalikes read)
 * answers the same bytes for either form, bulk calls over a mix of both included, and an import that
 * changes such a company writes it in the new form.
 */
import { GetItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { handler as getCompany } from '../../functions/get-company';
import { handler as getCompanyBulk } from '../../functions/get-company-bulk';
import { handler as getFinancials } from '../../functions/get-company-financials';
import { handler as getFinancialsBulk } from '../../functions/get-company-financials-bulk';
import { companyKey, type CompanyRef } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { getCompanyRecords } from '../../lib/companies/store';
import { blockOf } from '../../lib/lookalikes/features';
import { getBlock, rebuildFeatures } from '../../lib/lookalikes/block-store';
import * as keys from '../../lib/storage/keys';
import { localClient } from '../../infra/local/dynamodb';
import { generateDemoData } from '../fixtures/demo-data/companies';
import { call } from '../support/events';
import { importRecords, period } from '../support/records';
import { useFreshTable } from '../support/table';

const table = useFreshTable();

const TRICKY: CompanyRecordInput = {
  country: 'BE',
  companyNumber: '0403170701',
  name: 'Brouwerij "De Kroon" {NV}',
  place: 'Leuven',
  activities: ['11050'],
  financials: [2021, 2022, 2023].map((year) => ({
    ...period(year),
    jointCommitteeCodes: ['{"startDate":"2020-01-01"}', '},{"startDate":', '\\"]', 'é\u2028\u0000'],
  })),
  contacts: [{ contactId: 777001, firstName: 'An', lastName: '"Peeters",', jobTitle: '{"contactId":1}' }],
};
const NO_PERIODS: CompanyRecordInput = {
  country: 'BE',
  companyNumber: '0202239951',
  name: 'Lege Schelp',
  activities: ['11050'],
  financials: [],
};
const records: CompanyRecordInput[] = [...generateDemoData({ companies: 40 }), TRICKY, NO_PERIODS];
const refs = records.map(({ country, companyNumber }) => ({
  country: country as CompanyRef['country'],
  companyNumber,
}));
const paths = refs.map(({ country, companyNumber }) => ({ countryCode: country, companyNumber }));
const PAGES = [
  { limit: '4', offset: '0' },
  { limit: '1', offset: '0' },
  { limit: '2', offset: '3' },
  { limit: '500', offset: '0' },
  { limit: '3', offset: '60' },
];

let client: DynamoDBClient;
beforeAll(async () => {
  client = localClient(process.env['DYNAMODB_ENDPOINT']!);
  const summary = await importRecords(records);
  expect(summary.imported).toBe(records.length);
}, 120_000);
afterAll(() => client.destroy());

const storedItem = async (ref: CompanyRef) => {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: table.name,
      Key: { pk: { S: keys.company(ref).pk }, sk: { S: keys.company(ref).sk } },
    }),
  );
  return Item!;
};
const storedPeriods = async (ref: CompanyRef) => (await storedItem(ref))['periods']!;

/**
 * Rewrites every other company item, the last two among them, in the legacy form: the periods as the
 * JSON text of the whole array, no figures.
 */
async function toLegacyForm() {
  for (const ref of refs.filter((_, i) => i % 2 === 1 || i >= refs.length - 2)) {
    const periods = await storedPeriods(ref);
    const json = `[${(periods.L ?? []).map((text) => text.S!).join(',')}]`;
    const key = keys.company(ref);
    await client.send(
      new UpdateItemCommand({
        TableName: table.name,
        Key: { pk: { S: key.pk }, sk: { S: key.sk } },
        UpdateExpression: 'SET periods = :json REMOVE newestEmployees, newestHealthIndicator, contactCount',
        ExpressionAttributeValues: { ':json': { S: json } },
      }),
    );
  }
}

/** Every answer and stored read that depends on the periods, as text. */
async function everyAnswer(): Promise<string[]> {
  const answers: string[] = [];
  for (const pathParameters of paths) {
    for (const query of PAGES) {
      const { status, raw } = await call(getFinancials, {
        resource: '/v1/companies/{countryCode}/{companyNumber}/financials',
        pathParameters,
        query,
      });
      answers.push(`${status} ${raw}`);
    }
    const details = await call(getCompany, {
      resource: '/v1/companies/{countryCode}/{companyNumber}',
      pathParameters,
    });
    answers.push(`${details.status} ${details.raw}`);
  }
  for (const query of PAGES) {
    const bulk = await call(getFinancialsBulk, {
      method: 'POST',
      resource: '/v1/companies/financials',
      body: { companies: paths, limit: Number(query.limit), offset: Number(query.offset) },
    });
    answers.push(`${bulk.status} ${bulk.raw}`);
  }
  const bulkDetails = await call(getCompanyBulk, {
    method: 'POST',
    resource: '/v1/companies',
    body: { companies: paths },
  });
  answers.push(`${bulkDetails.status} ${bulkDetails.raw}`);
  const stored = await getCompanyRecords(refs);
  for (const ref of refs) answers.push(JSON.stringify(stored.get(companyKey(ref))!.record));
  await rebuildFeatures();
  for (const block of new Set(
    records.map((record) => blockOf({ activity: record.activities?.[0] ?? null })),
  )) {
    const members = await getBlock(block);
    members.sort((a, b) => a.features.companyNumber.localeCompare(b.features.companyNumber));
    answers.push(JSON.stringify(members));
  }
  return answers;
}

it('the import writes one JSON text per period, newest first, and the figures details show', async () => {
  const tricky = await storedItem(refs.at(-2)!);
  const newestFirst = [...TRICKY.financials!].sort((a, b) => b.endDate.localeCompare(a.endDate));
  expect(tricky['periods']!.L!.map((text) => JSON.parse(text.S!) as unknown)).toEqual(newestFirst);
  expect(tricky['newestEmployees']).toEqual({ N: String(newestFirst[0]!.people.employees) });
  expect(tricky['newestHealthIndicator']).toEqual({ N: String(newestFirst[0]!.healthIndicator) });
  expect(tricky['contactCount']).toEqual({ N: '1' });
  const empty = await storedItem(refs.at(-1)!);
  expect(empty['periods']).toEqual({ L: [] });
  expect(empty['newestEmployees']).toBeUndefined();
  expect(empty['newestHealthIndicator']).toBeUndefined();
  expect(empty['contactCount']).toEqual({ N: '0' });
});

it('answers the same bytes from items that hold their periods as one JSON text', async () => {
  const fromLists = await everyAnswer();
  expect(fromLists.filter((answer) => answer.includes('"healthIndicator":')).length).toBeGreaterThan(40);
  await toLegacyForm();
  expect((await storedPeriods(refs[1]!)).S).toMatch(/^\[\{"startDate":/);
  expect((await storedItem(refs[1]!))['contactCount']).toBeUndefined();
  expect((await storedPeriods(refs[0]!)).L).toBeDefined();
  expect(await storedPeriods(refs.at(-1)!)).toEqual({ S: '[]' });
  const fromText = await everyAnswer();
  expect(fromText).toEqual(fromLists);
}, 120_000);

it('an import that changes a company held in the legacy form writes it in the new form', async () => {
  const changed = { ...TRICKY, financials: [...TRICKY.financials!, period(2024)] };
  const summary = await importRecords([changed]);
  expect(summary.imported).toBe(1);
  const item = await storedItem(refs.at(-2)!);
  expect(item['contactCount']).toEqual({ N: '1' });
  expect(item['periods']!.L!.map((text) => (JSON.parse(text.S!) as { endDate: string }).endDate)).toEqual([
    '2024-12-31',
    '2023-12-31',
    '2022-12-31',
    '2021-12-31',
  ]);
  const { body } = await call(getFinancials, {
    resource: '/v1/companies/{countryCode}/{companyNumber}/financials',
    pathParameters: paths.at(-2)!,
    query: { limit: '2', offset: '1' },
  });
  expect(body).toMatchObject({
    data: [{ endDate: '2023-12-31' }, { endDate: '2022-12-31' }],
    pagination: { total: 4 },
  });
});
