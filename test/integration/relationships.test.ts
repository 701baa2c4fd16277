/** Holdings derived by the import (contract §6.2, §6.4, §11.2), read back by the handlers, against DynamoDB Local. */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { handler as getLegalEntities } from '../../functions/get-company-legal-entities';
import { handler as getRelationships } from '../../functions/get-company-relationships';
import { handler as getRelationshipsBulk } from '../../functions/get-company-relationships-bulk';
import { holdingsDerivation } from '../../lib/legal-entities/holdings';
import { belgianCheckDigits } from '../../lib/companies/identifiers';
import { parseCompanyRecord, type CompanyRecordInput } from '../../lib/companies/record';
import { asImportWorkers } from '../support/import-access';
import { getLegalEntityCompany } from '../../lib/legal-entities/store';
import { legalEntityIdCandidate, LOCAL_LEGAL_ENTITY_SECRET } from '../../lib/legal-entities/ids';
import { dynamodb } from '../../lib/storage/client';
import { call } from '../support/events';
import { companyRecord, importRecords } from '../support/records';
import { useFreshTable } from '../support/table';

const table = useFreshTable();

const beNumber = (n: number) => {
  const firstEight = `06${String(n).padStart(6, '0')}`;
  return firstEight + belgianCheckDigits(firstEight);
};

type Holding =
  | { n: number; percentage: number }
  | { name: string; percentage: number; companyNumber?: string; country?: string };

/** Company n of this file, holding nothing unless told, held by `holders`. */
const company = (n: number, holders: Holding[] = [], overrides: Partial<CompanyRecordInput> = {}) =>
  companyRecord({
    companyNumber: beNumber(n),
    name: `Company ${n} NV`,
    place: `Place ${n}`,
    vatNumber: null,
    shareholders: holders.map((h) =>
      'n' in h
        ? {
            country: 'BE',
            companyNumber: beNumber(h.n),
            name: `Holder as given ${h.n}`,
            percentage: h.percentage,
          }
        : h,
    ),
    contacts: [],
    ...overrides,
  });

/** A shrunken id space (8 ids) forces collisions among the companies of this file. */
const TINY_ID_SPACE = { secret: LOCAL_LEGAL_ENTITY_SECRET, space: 8 };
const derive = holdingsDerivation({ idScheme: () => TINY_ID_SPACE });
const COMPANIES = [1, 2, 3, 4, 6, 7];
const deriveWithStageIds = holdingsDerivation();
const ref = (n: number) => ({ country: 'BE' as const, companyNumber: beNumber(n) });

/** In the tiny id space, in batches of 2 with 3 in flight: holders and held companies land in batches in flight together. */
async function importInTinyIdSpace(records: CompanyRecordInput[]) {
  return asImportWorkers(() =>
    importRecords(records, {
      deriveBatch: derive,
      derive: async () => ({ updates: 0 }),
      idScheme: () => TINY_ID_SPACE,
      complete: async () => undefined,
      batchSize: 2,
      concurrency: 3,
    }),
  );
}

function parseCompanyRecordOrThrow(input: CompanyRecordInput) {
  const parsed = parseCompanyRecord(input);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.record;
}

const path = (n: number) => ({ countryCode: 'BE', companyNumber: beNumber(n) });
const identifier = (n: number) => ({
  country: 'BE',
  companyNumber: beNumber(n),
  name: `Company ${n} NV`,
  place: `Place ${n}`,
});
const entry = (n: number, percentage: number) => ({
  identifier: identifier(n),
  function: 'SHAREHOLDER',
  percentage,
  name: `Company ${n} NV`,
});

async function relationships(n: number) {
  const answer = await call(getRelationships, {
    resource: '/v1/companies/{countryCode}/{companyNumber}/relationships',
    pathParameters: path(n),
  });
  return answer.body as { identifier: unknown; data: { parents: unknown[]; children: unknown[] } };
}

async function legalEntities(n: number, query: Record<string, string> = {}) {
  const answer = await call(getLegalEntities, {
    resource: '/v1/companies/{countryCode}/{companyNumber}/legal-entities',
    pathParameters: path(n),
    query,
  });
  return answer.body as {
    data: Array<{ legalEntityId: string; countryCode: string; name: string; isPrimary: boolean }>;
    pagination: unknown;
  };
}

/** Every item of the table but the import's bookkeeping (a test may scan; a request path never does). */
async function snapshot() {
  const { Items = [] } = await dynamodb().send(new ScanCommand({ TableName: table.name }));
  return Items.filter((item) => !String(item['pk']).startsWith('CHANGE#'))
    .map((item) => JSON.stringify(item, Object.keys(item).sort()))
    .sort();
}

// Group: 1 holds 60 % of 2 and exactly 50 % of 3; 2 holds 70 % of 4; 5 (imported later) holds 30 % of 2;
// a person and a foreign fund hold the rest.
const FIRST_RUN = [
  company(4, [
    { n: 2, percentage: 0.7 },
    { name: 'Jan Peeters', percentage: 0.3 },
  ]),
  company(2, [
    { n: 1, percentage: 0.6 },
    { n: 5, percentage: 0.3 },
    { name: 'Global Fund LP', country: 'US', companyNumber: '12-3456789', percentage: 0.1 },
  ]),
  company(3, [
    { n: 1, percentage: 0.5 },
    { name: 'Anna Claes', percentage: 0.5 },
  ]),
  company(1),
  company(6),
  company(7),
];

describe('holdings derived by the import', () => {
  beforeAll(async () => {
    await importInTinyIdSpace(FIRST_RUN);
  });

  it('shows each holding on both sides, a holder not in the data as identifier null only', async () => {
    expect(await relationships(2)).toEqual({
      identifier: identifier(2),
      data: {
        parents: [entry(1, 0.6), { identifier: null }, { identifier: null }],
        children: [entry(4, 0.7)],
      },
    });
    expect((await relationships(1)).data).toEqual({ parents: [], children: [entry(2, 0.6), entry(3, 0.5)] });
    // Equal percentages: by name, the name the data gives for a holder that is not ours.
    expect((await relationships(3)).data.parents).toEqual([{ identifier: null }, entry(1, 0.5)]);
  });

  it('lists the own entity first, then the controlled ones; exactly 50 % is not control', async () => {
    const one = await legalEntities(1);
    expect(one.data.map(({ name, isPrimary }) => ({ name, isPrimary }))).toEqual([
      { name: 'Company 1 NV', isPrimary: true },
      { name: 'Company 2 NV', isPrimary: false },
    ]);
    const two = await legalEntities(2);
    expect(two.data.map(({ name, isPrimary }) => ({ name, isPrimary }))).toEqual([
      { name: 'Company 2 NV', isPrimary: false },
      { name: 'Company 4 NV', isPrimary: false },
    ]);
    expect((await legalEntities(3)).data[0]!.isPrimary).toBe(true);
    expect(two.data[0]!.legalEntityId).toBe(one.data[1]!.legalEntityId);
    expect(await legalEntities(1, { limit: '1', offset: '1' })).toMatchObject({
      data: [{ name: 'Company 2 NV' }],
      pagination: { limit: 1, offset: 1, total: 2 },
    });
  });

  it('gives distinct ids that lead back to their company in one read, despite collisions in a tiny id space', async () => {
    const ids = await Promise.all(
      [1, 2, 3, 4, 6, 7].map(async (n) => (await legalEntities(n)).data[0]!.legalEntityId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    // At least one company found its first candidate taken and moved on to the next.
    const firstCandidates = COMPANIES.map((n) => legalEntityIdCandidate(ref(n), 0, TINY_ID_SPACE));
    expect(ids).not.toEqual(firstCandidates);
    for (const [i, n] of COMPANIES.entries()) {
      expect(ids[i]).toMatch(/^\d{12}$/);
      expect(await getLegalEntityCompany(ids[i]!)).toEqual({ country: 'BE', companyNumber: beNumber(n) });
    }
  });

  it('answers bulk requests in request order, duplicates and failures included', async () => {
    const answer = await call(getRelationshipsBulk, {
      method: 'POST',
      resource: '/v1/companies/relationships',
      body: {
        companies: [
          { countryCode: 'BE', companyNumber: beNumber(4) },
          { country: 'be', companyNumber: beNumber(1) },
          { countryCode: 'BE', companyNumber: beNumber(5) },
          { countryCode: 'BE', companyNumber: '123' },
          { countryCode: 'BE', companyNumber: beNumber(4) },
        ],
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      {
        identifier: identifier(4),
        data: { parents: [entry(2, 0.7), { identifier: null }], children: [] },
        message: null,
      },
      {
        identifier: identifier(1),
        data: { parents: [], children: [entry(2, 0.6), entry(3, 0.5)] },
        message: null,
      },
      { identifier: { country: 'BE', companyNumber: beNumber(5) }, data: null, message: 'Company not found' },
      { identifier: { country: 'BE', companyNumber: '123' }, data: null, message: 'Invalid company number' },
      {
        identifier: identifier(4),
        data: { parents: [entry(2, 0.7), { identifier: null }], children: [] },
        message: null,
      },
    ]);
  });

  it('changes nothing when the same data is imported again', async () => {
    const before = await snapshot();
    const summary = await importInTinyIdSpace(FIRST_RUN);
    expect(summary.unchanged).toBe(FIRST_RUN.length);
    expect(await snapshot()).toEqual(before);
  });

  it('shows a holder imported later on both sides without importing the held company again', async () => {
    await importInTinyIdSpace([company(5)]);
    expect((await relationships(2)).data.parents).toEqual([
      entry(1, 0.6),
      entry(5, 0.3),
      { identifier: null },
    ]);
    expect((await relationships(5)).data.children).toEqual([entry(2, 0.3)]);
  });

  it('moves a changed holding on both sides and drops a removed one from both sides', async () => {
    // 2's shareholders change: 1 goes down to 40 %, 6 comes in with 50 %, 5 leaves.
    await importInTinyIdSpace([
      company(2, [
        { n: 6, percentage: 0.5 },
        { n: 1, percentage: 0.4 },
      ]),
    ]);
    expect((await relationships(2)).data.parents).toEqual([entry(6, 0.5), entry(1, 0.4)]);
    expect((await relationships(1)).data.children).toEqual([entry(3, 0.5), entry(2, 0.4)]);
    expect((await relationships(5)).data.children).toEqual([]);
    expect((await relationships(6)).data.children).toEqual([entry(2, 0.5)]);
    // 1 no longer controls 2, and 2 is primary now (nobody holds more than 50 %).
    expect((await legalEntities(1)).data.map((e) => e.name)).toEqual(['Company 1 NV']);
    expect((await legalEntities(2)).data[0]!.isPrimary).toBe(true);
  });

  it('shows a renamed company under its new name on both sides', async () => {
    await importInTinyIdSpace([company(1, [], { name: 'Company 1 Holding NV' })]);
    const renamed = {
      ...entry(1, 0.4),
      identifier: { ...identifier(1), name: 'Company 1 Holding NV' },
      name: 'Company 1 Holding NV',
    };
    expect((await relationships(2)).data.parents).toEqual([entry(6, 0.5), renamed]);
    await importInTinyIdSpace([
      company(6, [], { name: 'Company 6 NV' }),
      company(7, [{ n: 6, percentage: 0.9 }]),
    ]);
    expect((await relationships(6)).data.children).toEqual([entry(7, 0.9), entry(2, 0.5)]);
  });

  it('keeps every entity id across re-imports', async () => {
    const ids = await Promise.all(
      [1, 2, 3].map(async (n) => (await legalEntities(n)).data[0]!.legalEntityId),
    );
    await importInTinyIdSpace([
      company(1, [], { name: 'Company 1 NV' }),
      company(3, [{ n: 1, percentage: 0.51 }]),
    ]);
    const again = await Promise.all(
      [1, 2, 3].map(async (n) => (await legalEntities(n)).data[0]!.legalEntityId),
    );
    expect(again).toEqual(ids);
  });

  it('converges when a holder and the company it holds are derived at the same time; deriving again changes nothing', async () => {
    for (const [holder, held] of [
      [20, 21],
      [22, 23],
      [24, 25],
    ] as const) {
      const changes = [company(held, [{ n: holder, percentage: 0.8 }]), company(holder)].map((input) => ({
        before: null,
        after: parseCompanyRecordOrThrow(input),
        asOf: '2026-11-21',
        changeId: 'test.1',
      }));
      // Derived in parallel (as by two imports at once), then once more in the other order (as after a
      // cut-off run).
      await Promise.all(changes.map((change) => deriveWithStageIds([change])));
      const once = await snapshot();
      await Promise.all([...changes].reverse().map((change) => deriveWithStageIds([change])));
      expect(await snapshot()).toEqual(once);
      expect((await relationships(held)).data.parents).toEqual([entry(holder, 0.8)]);
      expect((await relationships(holder)).data.children).toEqual([entry(held, 0.8)]);
      expect((await legalEntities(holder)).data.map((e) => e.name)).toEqual([
        `Company ${holder} NV`,
        `Company ${held} NV`,
      ]);
    }
  });
});
