/**
 * A smart filter evaluated at once from its candidates (contract §7.6), against DynamoDB Local with a
 * small bound set through the configuration: over a country of many more filter profiles than the
 * bound, a create or filter change whose filter has a selective NACE code, place or range in a figure's
 * tail reads only the entries of that criterion (counted from the recorded calls) and answers with the
 * counters of a full evaluation, no job left; whatever the filters (ranges at their bounds and at band
 * edges, min only, max only), what the request does and what the worker completes is a full evaluation
 * of every profile (test/integration/smart-list-entries.test.ts: the import keeps the entries).
 */
import fc from 'fast-check';
import { type Country } from '../../lib/companies/identifiers';
import { packProfile, placeKey, type FilterProfile, type Filters } from '../../lib/lists/filters';
import { recountMatchCounts } from '../../lib/lists/match-recount';
import { readAtOnce } from '../../lib/lists/smart-bounds';
import { filterProfileItem } from '../../lib/lists/store/profiles';
import { batchPut, getItem } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { recordCalls } from '../support/dynamodb-calls';
import {
  callerOf,
  everyMatch,
  getOne,
  membersOf,
  numberOf,
  patchList,
  postList,
  profilesAnswered,
  profilesRead,
  readWhole,
  withEnv,
  workerDone,
} from '../support/smart-lists';
import { useFreshTable } from '../support/table';

useFreshTable();

const BUDGET = 20;
withEnv({ SMART_LISTS_EVALUATE_AT_ONCE: String(BUDGET), SMART_LISTS_TURN_COMPANIES: '60' });

/**
 * French companies: many shops in Paris (20 times the bound), many restaurants in Lyon, a few of
 * other trades and places, and a few large ones (employees and total assets in their tails, range-entries.ts; a band of employees
 * runs from 200 to 500, one of assets from 10 to 20 M).
 */
const GROUPS: {
  count: number;
  profile: Omit<FilterProfile, 'country' | 'healthIndicator' | 'totalAssets'> &
    Partial<Pick<FilterProfile, 'totalAssets'>>;
}[] = [
  { count: 400, profile: { activities: ['4711'], place: 'paris', employees: 3, totalAssets: 80_000 } },
  { count: 15, profile: { activities: ['6201'], place: 'lille', employees: 40 } },
  { count: 12, profile: { activities: ['62020', '4719'], place: placeKey('Liège'), employees: 250 } },
  { count: 10, profile: { activities: ['47111'], place: 'lille', employees: 251 } },
  { count: 6, profile: { activities: ['471'], place: null, employees: 249 } },
  { count: 7, profile: { activities: ['6419'], place: 'paris', employees: 1_200, totalAssets: 10_000_000 } },
  { count: 5, profile: { activities: ['6430'], place: 'paris', employees: 50, totalAssets: 19_999_999.99 } },
  // Restaurants in Lyon (5 times the bound), and a few shops there: NACE 47 and Lyon each broad,
  // narrow together.
  { count: 100, profile: { activities: ['5610'], place: 'lyon', employees: 8 } },
  { count: 8, profile: { activities: ['4711', '5610'], place: 'lyon', employees: 12 } },
];
const PROFILES: FilterProfile[] = GROUPS.flatMap(({ count, profile }) =>
  Array.from({ length: count }, (_, n) => ({
    country: 'FR' as Country,
    totalAssets: null,
    healthIndicator: n % 11,
    ...profile,
  })),
);

beforeAll(async () => {
  // Profiles as a stage before the entries has them, then the operator's recount (its backfill).
  await batchPut(
    tableName(),
    PROFILES.map((p, n) =>
      filterProfileItem({ country: 'FR', companyNumber: numberOf('FR', 3_000 + n) }, packProfile(p), 1),
    ),
  );
  await recountMatchCounts(['FR']);
}, 120_000);

const jobOf = (accountId: string, listId: number) =>
  getItem(tableName(), keys.smartListEvaluation(accountId, listId), { consistent: true });

describe('a narrow filter over a country of many more profiles', () => {
  it.each([
    ['a NACE code', { countries: ['FR'], activities: ['6201'] }, 15],
    ['a place, in any case and accents', { countries: ['FR'], places: [' LIÈGE '] }, 12],
    [
      'a code whose shops are many, in a place',
      { countries: ['FR'], activities: ['47'], places: ['Lille'] },
      25,
    ],
    // Lyon's 108 entries, sieved by code where they are read (47: 436 entries, past the sieved bound).
    [
      'code and place broad, narrow together',
      { countries: ['FR'], activities: ['47'], places: ['Lyon'] },
      108,
    ],
    // 56's 108 entries, sieved by place (Paris: 412).
    ['code and place broad, none in both', { countries: ['FR'], activities: ['56'], places: ['paris'] }, 108],
    // Ranges alone: the entries of the bands the range touches (1,000 to 2,000 employees).
    ['employees from a value in the tail', { countries: ['FR'], employees: { min: 500 } }, 7],
    // Counted 35 by the bands it touches (200 to 500, 1,000 to 2,000); the Query reads the 17 from 251.
    ['employees from inside a band', { countries: ['FR'], employees: { min: 251 } }, 17],
    ['total assets between two band edges', { countries: ['FR'], totalAssets: { min: 1e7, max: 2e7 } }, 12],
    // Restaurants' 108 entries, sieved by their numbers: one broad code and a range below the tail.
    [
      'a broad code and a range below the tail',
      { countries: ['FR'], activities: ['56'], employees: { min: 12, max: 12 } },
      108,
    ],
    // Lyon's 108 entries, sieved by the health indicator on the entries.
    [
      'a broad place and a health range',
      { countries: ['FR'], places: ['Lyon'], healthIndicator: { min: 10 } },
      108,
    ],
    [
      'a range at the tail, with a health range (no entries)',
      { countries: ['FR'], employees: { min: 50, max: 50 }, healthIndicator: { max: 3 } },
      5,
    ],
  ] as [string, Filters, number][])(
    'is evaluated whole reading only its candidates: %s',
    async (title, filters, candidates) => {
      const caller = callerOf(`narrow-${title}`);
      const { result: created, calls } = await recordCalls(() =>
        postList(caller, { name: 'Narrow', type: 'SMART', filters }),
      );
      expect(created.status).toBe(201);
      const matched = await everyMatch(filters);
      expect(matched.length).toBeLessThanOrEqual(BUDGET);
      expect(created.body).toMatchObject({ amountOfCompanies: matched.length, newResults: matched.length });
      expect(profilesRead(calls)).toBeLessThanOrEqual(candidates);
      expect(await jobOf(caller.accountId, created.body.id)).toBeUndefined();
      expect(await membersOf(caller.accountId, created.body.id)).toEqual(matched);
    },
  );

  it('reads a code and a place each broad by the smaller set, sending back only the entries that hold both', async () => {
    const caller = callerOf('narrow-sieve');
    const filters: Filters = { countries: ['FR'], activities: ['47'], places: ['LYON'] };
    const { result: created, calls } = await recordCalls(() =>
      postList(caller, { name: 'Lyon shops', type: 'SMART', filters }),
    );
    expect(created.body).toMatchObject({ amountOfCompanies: 8, newResults: 8 });
    // Lyon's 108: over the bound of an unsieved read, within the sieved one.
    expect(profilesRead(calls)).toBeGreaterThan(readAtOnce());
    expect(profilesRead(calls)).toBe(108);
    expect(profilesAnswered(calls)).toBe(8);
    expect(await jobOf(caller.accountId, created.body.id)).toBeUndefined();
  });

  it('reads a broad code with a range below its tail sieved by the numbers, only the matches sent back', async () => {
    const caller = callerOf('narrow-figures');
    const filters: Filters = {
      countries: ['FR'],
      activities: ['5610'],
      employees: { max: 12 },
      healthIndicator: { min: 9 },
    };
    const { result: created, calls } = await recordCalls(() =>
      postList(caller, { name: 'Small restaurants', type: 'SMART', filters }),
    );
    const matched = await everyMatch(filters);
    expect(created.body).toMatchObject({ amountOfCompanies: matched.length, newResults: matched.length });
    // 108 entries under 5610: over the bound of an unsieved read (80), all evaluated, the matches back.
    expect(profilesRead(calls)).toBe(108);
    expect(profilesAnswered(calls)).toBe(matched.length);
    expect(await jobOf(caller.accountId, created.body.id)).toBeUndefined();
    expect(await membersOf(caller.accountId, created.body.id)).toEqual(matched);
  });

  it('sieves by 100 codes and 50 places of 200 characters, as many as a FilterExpression takes', async () => {
    const caller = callerOf('narrow-long-sieve');
    const filters: Filters = {
      countries: ['FR'],
      activities: ['4711', ...Array.from({ length: 99 }, (_, n) => String(10_000 + n))],
      places: ['Lyon', ...Array.from({ length: 49 }, (_, n) => `${n} ${'é'.repeat(190)}`)],
    };
    const { result: created, calls } = await recordCalls(() =>
      postList(caller, { name: 'Long sieve', type: 'SMART', filters }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ amountOfCompanies: 8, newResults: 8 });
    expect(profilesAnswered(calls)).toBe(8);
    expect(await membersOf(caller.accountId, created.body.id)).toEqual(await everyMatch(filters));
  });

  it('is evaluated whole when the filters of a list change, its NEW members leaving in the same request', async () => {
    const caller = callerOf('narrow-change');
    const created = await postList(caller, {
      name: 'Programmers',
      type: 'SMART',
      filters: { countries: ['FR'], activities: ['6201'] },
    });
    const next: Filters = { countries: ['FR'], activities: ['4719'], employees: { min: 250, max: 250 } };
    const { result: changed, calls } = await recordCalls(() =>
      patchList(caller, created.body.id, { filters: next }),
    );
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ amountOfCompanies: 12, newResults: 12 });
    // 15 NEW members checked by key, 12 entries under 4719.
    expect(profilesRead(calls)).toBeLessThanOrEqual(15 + 12);
    expect(await jobOf(caller.accountId, created.body.id)).toBeUndefined();
    expect(await membersOf(caller.accountId, created.body.id)).toEqual(await everyMatch(next));
  });
});

const RANGES = ['employees', 'totalAssets', 'healthIndicator'] as const;

/** A range of these values (band edges, the tails, the profiles' own): min only, max only, or both. */
const rangeOf = (...values: number[]) =>
  fc
    .record({ min: fc.constantFrom(...values), max: fc.constantFrom(...values) }, { requiredKeys: [] })
    .filter((r) => r.min !== undefined || r.max !== undefined);

const filtersArb: fc.Arbitrary<Filters> = fc
  .record(
    {
      countries: fc.option(fc.constant(['FR'] as Country[]), { nil: undefined }),
      activities: fc.option(
        fc.uniqueArray(
          fc.constantFrom(
            '47',
            '471',
            '4711',
            '47111',
            '4719',
            '56',
            '5610',
            '62',
            '6201',
            '62020',
            '64',
            '6419',
          ),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        { nil: undefined },
      ),
      places: fc.option(
        fc.uniqueArray(fc.constantFrom('Lille', 'LILLE', ' lillé ', 'Liège', 'liege', 'PARIS', 'Lyon'), {
          minLength: 1,
          maxLength: 2,
        }),
        { nil: undefined },
      ),
      employees: fc.option(rangeOf(3, 8, 12, 40, 49, 50, 249, 250, 251, 500, 1_200, 2_000), {
        nil: undefined,
      }),
      totalAssets: fc.option(rangeOf(80_000, 9_999_999.99, 1e7, 19_999_999.99, 2e7), { nil: undefined }),
      healthIndicator: fc.option(rangeOf(0, 3, 9, 10), { nil: undefined }),
    },
    { requiredKeys: [] },
  )
  .map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as Filters)
  .filter(
    (f) =>
      Object.keys(f).length > 0 && RANGES.every((r) => (f[r]?.min ?? -Infinity) <= (f[r]?.max ?? Infinity)),
  );

describe('at once and in the background', () => {
  it('always give a full evaluation of every profile, and at once when the filter is narrow', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(filtersArb, filtersArb, async (first, second) => {
        const caller = callerOf(`collide-${run++}`);
        const created = await postList(caller, { name: 'Colliding', type: 'SMART', filters: first });
        expect(created.status).toBe(201);
        const id = created.body.id as number;
        const firstMatches = await everyMatch(first);
        // Few matches among candidates the request may read: complete in the answer.
        if (firstMatches.length <= BUDGET && readWhole(first, PROFILES)) {
          expect(created.body.amountOfCompanies).toBe(firstMatches.length);
          expect(await jobOf(caller.accountId, id)).toBeUndefined();
        }
        await workerDone();
        expect(await membersOf(caller.accountId, id)).toEqual(firstMatches);
        // A company read under two of the filter's codes (in the request and a turn) counted once.
        expect((await getOne(caller, id)).body).toMatchObject({ amountOfCompanies: firstMatches.length });

        const changed = await patchList(caller, id, { filters: second });
        expect(changed.status).toBe(200);
        const secondMatches = await everyMatch(second);
        if (firstMatches.length <= BUDGET && secondMatches.length <= BUDGET && readWhole(second, PROFILES))
          expect(changed.body.amountOfCompanies).toBe(secondMatches.length);
        await workerDone();
        expect(await membersOf(caller.accountId, id)).toEqual(secondMatches);
        expect((await getOne(caller, id)).body).toMatchObject({ amountOfCompanies: secondMatches.length });
      }),
      { numRuns: 30, seed: 3604 },
    );
  }, 900_000);
});
