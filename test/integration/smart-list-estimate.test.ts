/**
 * The estimate of a smart filter's matches from the counts the import keeps (contract §7.6,
 * lib/lists/match-estimate.ts), against DynamoDB Local over imported companies: exact for filters of
 * countries and one NACE code, an upper bound for several codes, within a stated tolerance for the
 * other criteria; never a filter profile read; the 409 answered from the counts; the counts right
 * after imports that add, change, stop and erase companies, and moved once for a batch derived again.
 */
import fc from 'fast-check';
import { handler as createList } from '../../functions/create-list';
import { belgianCheckDigits, companyKey, type Country } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import type { CompanyChange } from '../../lib/derivation/change';
import { filterProfileOf, matchesFilters, unpackProfile, type Filters } from '../../lib/lists/filters';
import { deriveMatchCounts, estimateMatches } from '../../lib/lists/match-counts';
import { codesOf } from '../../lib/lists/match-estimate';
import { readProfilesFrom } from '../../lib/lists/store/profiles';
import { getCompanyRecords } from '../../lib/companies/store';
import { queryAll } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { SCOPES } from '../../lib/tokens/scopes';
import { recordCalls } from '../support/dynamodb-calls';
import { call } from '../support/events';
import { bareCompany, importRecords, period } from '../support/records';
import { useFreshTable } from '../support/table';

useFreshTable();

const ACTIVITIES = ['62010', '62020', '4711', '47190', '41201', '4399', '6910'];
const PLACES = ['Gent', 'Liège', 'Amsterdam', 'Utrecht'];

/** A small deterministic generator: the same companies every run. */
function* random(seed: number): Generator<number> {
  let s = seed;
  for (;;) {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    yield s / 2 ** 31;
  }
}
const draw = random(42);
const next = () => draw.next().value as number;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
const maybe = <T>(value: T): T | null => (next() < 0.15 ? null : value);

const beNumber = (n: number) => {
  const firstEight = `07${String(n).padStart(6, '0')}`;
  return firstEight + belgianCheckDigits(firstEight);
};

/** A company of `country` with drawn activities, place and figures. */
function company(country: Country, n: number): CompanyRecordInput {
  const base = period(2023, { healthIndicator: maybe(Math.floor(next() * 11)) });
  const employees = maybe(Math.floor(next() ** 2 * 400));
  // Equity + debt (600,000) make the total assets (§6.1).
  const totalAssets = maybe(600_000 + Math.round(next() ** 2 * 5_000_000));
  return bareCompany(0, {
    country,
    companyNumber: country === 'BE' ? beNumber(n) : String(40_000_000 + n),
    name: `Estimated ${country} ${n}`,
    place: maybe(pick(PLACES)),
    activities: [...new Set([pick(ACTIVITIES), ...(next() < 0.4 ? [pick(ACTIVITIES)] : [])])],
    financials: [
      {
        ...base,
        people: { ...base.people, employees },
        solvency:
          totalAssets === null
            ? { ...base.solvency, totalAssets, equity: null }
            : { ...base.solvency, totalAssets, equity: totalAssets - 600_000 },
      },
    ],
  });
}

const records = [
  ...Array.from({ length: 120 }, (_, i) => company('NL', i)),
  ...Array.from({ length: 80 }, (_, i) => company('BE', i)),
];

/** The exact matches: every stored filter profile read and matched. */
async function exact(filters: Filters): Promise<number> {
  const { profiles } = await readProfilesFrom(filters.countries ?? ['BE', 'NL'], { shard: 0 }, 100_000);
  return profiles.filter((p) => matchesFilters(filters, unpackProfile(p.ref.country, p.packed))).length;
}

const countries = fc.option(fc.subarray(['BE', 'NL'] as Country[], { minLength: 1 }), { nil: undefined });
const codes = fc.option(
  fc.uniqueArray(fc.constantFrom('62', '620', '6201', '47', '4711', '41', '43', '69'), {
    minLength: 1,
    maxLength: 3,
  }),
  { nil: undefined },
);
const range = (max: number) =>
  fc
    .tuple(
      fc.option(fc.integer({ min: 0, max }), { nil: undefined }),
      fc.option(fc.integer({ min: 0, max }), { nil: undefined }),
    )
    .filter(([a, b]) => a !== undefined || b !== undefined)
    .map(([a, b]) =>
      a !== undefined && b !== undefined && a > b
        ? { min: b, max: a }
        : { ...(a === undefined ? {} : { min: a }), ...(b === undefined ? {} : { max: b }) },
    );
const filtersArb: fc.Arbitrary<Filters> = fc
  .record(
    {
      countries,
      activities: codes,
      places: fc.option(fc.subarray(PLACES, { minLength: 1 }), { nil: undefined }),
      employees: fc.option(range(400), { nil: undefined }),
      totalAssets: fc.option(range(5_600_000), { nil: undefined }),
      healthIndicator: fc.option(range(10), { nil: undefined }),
    },
    { requiredKeys: [] },
  )
  .map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as Filters)
  .filter((f) => Object.keys(f).length > 0);

/** The estimate, with the DynamoDB calls it made: only BatchGetItem of counter items, never a profile. */
async function estimated(filters: Filters): Promise<number> {
  const { result, calls } = await recordCalls(() => estimateMatches(filters));
  expect(calls.map((c) => c.command).every((c) => c === 'BatchGetItem')).toBe(true);
  expect(JSON.stringify(calls.map((c) => c.input))).not.toContain('FILTER_PROFILES');
  return result;
}

const companiesIn = (filters: Filters) =>
  records.filter((r) => !filters.countries || filters.countries.includes(r.country as Country)).length;

/**
 * The exact count of (company, code) pairs: every company counted once for each of the filter's codes
 * it has (a code under another of them left out, as the estimate does). It is the exact matches when
 * no company has two of the codes, and what the estimate adds up when some do.
 */
async function pairs(filters: Filters): Promise<number> {
  if (!filters.activities) return exact(filters);
  let sum = 0;
  for (const code of codesOf(filters.activities)) sum += await exact({ ...filters, activities: [code] });
  return sum;
}

/**
 * Every property over the stored data (the module's comment): exact for countries and one code, an
 * upper bound for several codes, and otherwise within a tolerance: a third of the count, or a tenth
 * of the companies in the filter's countries (criteria are taken as independent; bands cut in
 * proportion). Several codes that companies share make it an upper bound of that estimate: never
 * more than the tolerance below the exact matches, nor above the (company, code) pairs.
 */
async function expectEstimates(runs: number) {
  await fc.assert(
    fc.asyncProperty(filtersArb, async (filters) => {
      const estimate = await estimated(filters);
      const matches = await exact(filters);
      const others = Object.keys(filters).some((k) => k !== 'countries' && k !== 'activities');
      const tolerance = (count: number) => Math.max(count / 3, companiesIn(filters) / 10);
      if (!others && (filters.activities?.length ?? 0) <= 1) expect(estimate).toBe(matches);
      else if (!others) expect(estimate).toBeGreaterThanOrEqual(matches);
      else {
        const reached = await pairs(filters);
        expect(estimate).toBeGreaterThanOrEqual(matches - tolerance(matches));
        expect(estimate).toBeLessThanOrEqual(reached + tolerance(reached));
      }
    }),
    { numRuns: runs },
  );
}

beforeAll(async () => {
  expect(await importRecords(records)).toMatchObject({ imported: 200, rejected: 0 });
}, 120_000);

describe('the estimate of a smart filter from the counts the import keeps', () => {
  test('countries and one NACE code: exact; read from a few counter items only', async () => {
    expect(await estimated({ countries: ['NL'] })).toBe(120);
    expect(await estimated({ countries: ['BE', 'NL'] })).toBe(200);
    expect(await estimated({ activities: ['62'] })).toBe(await exact({ activities: ['62'] }));
    expect(await estimated({ countries: ['BE'], activities: ['4711'] })).toBe(
      await exact({ countries: ['BE'], activities: ['4711'] }),
    );
  });

  test('random filters: exact, an upper bound or within the tolerance, never reading a profile', async () => {
    await expectEstimates(60);
  }, 120_000);
});

describe('the counts follow imports', () => {
  test('changed and stopped companies move the counts (exact again after the import)', async () => {
    const changed = records.slice(0, 30).map((r, i) => ({
      ...r,
      activities: i % 2 ? ['6910'] : ['62010', '4711'],
      place: 'Gent',
      ...(i % 5 === 0 ? { stoppedOn: '2026-01-01' } : {}),
    }));
    const added = Array.from({ length: 10 }, (_, i) => company('NL', 500 + i));
    records.splice(0, 30, ...changed);
    records.push(...added);
    await importRecords([...changed, ...added], { asOf: '2026-11-22' });
    for (const filters of [
      { countries: ['NL'] },
      { activities: ['69'] },
      { activities: ['4711'] },
    ] as Filters[])
      expect(await estimated(filters)).toBe(await exact(filters));
    await expectEstimates(20);
  }, 120_000);

  test('an erased company leaves the counts; a batch derived again moves them once', async () => {
    const ref = { country: 'BE' as Country, companyNumber: beNumber(70) };
    const stored = (await getCompanyRecords([ref])).get(companyKey(ref))!.record;
    const before = await estimated({ countries: ['BE'] });
    const profile = filterProfileOf(stored);
    const gone: CompanyChange = {
      before: stored,
      after: { ...stored, activities: [], place: null, financials: [] },
      asOf: '2026-11-23',
      changeId: 'erasure-test',
      gone: true,
    };
    await deriveMatchCounts([gone]);
    await deriveMatchCounts([gone]);
    expect(await estimated({ countries: ['BE'] })).toBe(before - (profile.stopped ? 0 : 1));
    const marks = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.matchCountsAppliedPartition() },
    });
    expect(marks.filter((m) => (m['sk'] as string).startsWith('erasure-test#'))).toHaveLength(1);
  });

  test('batches moving the same counter items at the same moment are all counted', async () => {
    const before = await estimated({ countries: ['NL'] });
    const ref = { country: 'NL' as Country, companyNumber: '40000040' };
    const stored = (await getCompanyRecords([ref])).get(companyKey(ref))!.record;
    const fresh = (n: number): CompanyChange => ({
      before: null,
      after: { ...stored, companyNumber: String(60_000_000 + n) },
      asOf: '2026-11-24',
      changeId: `parallel-${n}`,
    });
    const profile = filterProfileOf(stored);
    await Promise.all(Array.from({ length: 6 }, (_, n) => deriveMatchCounts([fresh(n)])));
    expect(await estimated({ countries: ['NL'] })).toBe(before + (profile.stopped ? 0 : 6));
  });
});

describe('409 LIMIT_REACHED from the estimate', () => {
  const before = process.env['SMART_LISTS_MAX_COMPANIES'];
  beforeAll(() => (process.env['SMART_LISTS_MAX_COMPANIES'] = '50'));
  afterAll(() => {
    if (before === undefined) delete process.env['SMART_LISTS_MAX_COMPANIES'];
    else process.env['SMART_LISTS_MAX_COMPANIES'] = before;
  });

  test('a create whose estimated matches pass the bound: 409 at once, no profile read, nothing stored', async () => {
    const caller = { accountId: 'estimate-account', userEmail: 'ops@estimate.example', scopes: [...SCOPES] };
    const { result, calls } = await recordCalls(() =>
      call(createList, {
        method: 'POST',
        resource: '/v1/lists',
        body: { name: 'All of NL', type: 'SMART', filters: { countries: ['NL'] } },
        caller,
      }),
    );
    expect(result).toMatchObject({
      status: 409,
      body: { code: 'LIMIT_REACHED', message: "An account's smart lists can hold at most 50 companies" },
    });
    expect(JSON.stringify(calls.map((c) => c.input))).not.toContain('FILTER_PROFILES');
    const lists = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.list(caller.accountId, 1).pk },
    });
    expect(lists.filter((l) => (l['sk'] as string).startsWith('LIST#'))).toEqual([]);
    // A small filter still goes through.
    const small = await call(createList, {
      method: 'POST',
      resource: '/v1/lists',
      body: { name: 'Some of BE', type: 'SMART', filters: { countries: ['BE'], activities: ['6201'] } },
      caller,
    });
    expect(small).toMatchObject({ status: 201 });
  });
});
