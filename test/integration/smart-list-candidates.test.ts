/**
 * A smart filter evaluated at once from its candidates (contract §7.6), against DynamoDB Local with a
 * small bound set through the configuration: over a country of many more filter profiles than the
 * bound, a create or filter change whose filter has a selective NACE code or place reads only the
 * entries of that criterion (counted from the recorded calls) and answers with the counters of a full
 * evaluation, no job left; whatever the filters, what the request does and what the worker completes
 * is a full evaluation of every profile; the import keeps a company's entries where its profile is,
 * and writes none when its profile did not change.
 */
import fc from 'fast-check';
import { type Country } from '../../lib/companies/identifiers';
import { packProfile, placeKey, type FilterProfile, type Filters } from '../../lib/lists/filters';
import { codesOf } from '../../lib/lists/match-estimate';
import { recountMatchCounts } from '../../lib/lists/match-recount';
import { readAtOnce } from '../../lib/lists/smart-bounds';
import { filterProfileItem } from '../../lib/lists/store/profiles';
import { batchPut, getItem, queryAll } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { recordCalls } from '../support/dynamodb-calls';
import { bareCompany, importRecords, period } from '../support/records';
import {
  callerOf,
  everyMatch,
  getOne,
  membersOf,
  numberOf,
  patchList,
  postList,
  profilesRead,
  withEnv,
  workerDone,
} from '../support/smart-lists';
import { useFreshTable } from '../support/table';

useFreshTable();

const BUDGET = 20;
withEnv({ SMART_LISTS_EVALUATE_AT_ONCE: String(BUDGET), SMART_LISTS_TURN_COMPANIES: '60' });

/** French companies: many shops in Paris (20 times the bound), and a few of other trades and places. */
const GROUPS: {
  count: number;
  profile: Omit<FilterProfile, 'country' | 'healthIndicator' | 'totalAssets'>;
}[] = [
  { count: 400, profile: { activities: ['4711'], place: 'paris', employees: 3 } },
  { count: 15, profile: { activities: ['6201'], place: 'lille', employees: 40 } },
  { count: 12, profile: { activities: ['62020', '4719'], place: placeKey('Liège'), employees: 250 } },
  { count: 10, profile: { activities: ['47111'], place: 'lille', employees: 251 } },
  { count: 6, profile: { activities: ['471'], place: null, employees: 249 } },
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
  ] as [string, Filters, number][])(
    'is evaluated whole reading only its candidates: %s',
    async (_, filters, candidates) => {
      const caller = callerOf(`narrow-${candidates}`);
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

const filtersArb: fc.Arbitrary<Filters> = fc
  .record(
    {
      countries: fc.option(fc.constant(['FR'] as Country[]), { nil: undefined }),
      activities: fc.option(
        fc.uniqueArray(fc.constantFrom('47', '471', '4711', '47111', '4719', '62', '6201', '62020'), {
          minLength: 1,
          maxLength: 3,
        }),
        { nil: undefined },
      ),
      places: fc.option(
        fc.uniqueArray(fc.constantFrom('Lille', 'LILLE', ' lillé ', 'Liège', 'liege', 'PARIS'), {
          minLength: 1,
          maxLength: 2,
        }),
        { nil: undefined },
      ),
      employees: fc.option(
        fc
          .record({ min: fc.constantFrom(3, 40, 249, 250, 251) }, { requiredKeys: [] })
          .chain((r) =>
            fc.record({ max: fc.constantFrom(3, 40, 249, 250, 251) }).map((m) => ({ ...r, ...m })),
          ),
        { nil: undefined },
      ),
    },
    { requiredKeys: [] },
  )
  .map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as Filters)
  .filter((f) => Object.keys(f).length > 0 && (f.employees?.min ?? 0) <= (f.employees?.max ?? Infinity));

/** How many entries the counts put under the filter's best criterion in France (the request's reads). */
function fewestCandidates(filters: Filters): number {
  const active = PROFILES;
  const byCodes = filters.activities
    ? codesOf(filters.activities).reduce(
        (n, code) => n + active.filter((p) => p.activities.some((a) => a.startsWith(code))).length,
        0,
      )
    : Infinity;
  const places = new Set((filters.places ?? []).map(placeKey));
  const byPlaces = filters.places
    ? active.filter((p) => p.place !== null && places.has(p.place)).length
    : Infinity;
  return Math.min(byCodes, byPlaces, active.length);
}

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
        if (firstMatches.length <= BUDGET && fewestCandidates(first) <= readAtOnce()) {
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
        if (
          firstMatches.length <= BUDGET &&
          secondMatches.length <= BUDGET &&
          fewestCandidates(second) <= readAtOnce()
        )
          expect(changed.body.amountOfCompanies).toBe(secondMatches.length);
        await workerDone();
        expect(await membersOf(caller.accountId, id)).toEqual(secondMatches);
        expect((await getOne(caller, id)).body).toMatchObject({ amountOfCompanies: secondMatches.length });
      }),
      { numRuns: 15, seed: 3604 },
    );
  }, 900_000);
});

describe('the import keeps the entries', () => {
  const ref = { country: 'FR' as Country, companyNumber: numberOf('FR', 9_000) };
  const record = (overrides: Parameters<typeof bareCompany>[1]) =>
    bareCompany(0, { country: 'FR', companyNumber: ref.companyNumber, name: 'Moving SAS', ...overrides });

  /** The entries of the company, as `<pk>|<sk>`, in the partitions it could have them. */
  async function entriesOf(): Promise<string[]> {
    const found: string[] = [];
    for (const pk of [
      keys.filterProfilesByActivity('FR', '62'),
      keys.filterProfilesByActivity('FR', '47'),
      keys.filterProfilesByPlace('FR', 'lille'),
      keys.filterProfilesByPlace('FR', 'liege'),
    ]) {
      const items = await queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      });
      for (const item of items)
        if ((item['sk'] as string).endsWith(ref.companyNumber)) found.push(`${pk}|${item['sk'] as string}`);
    }
    return found.sort();
  }

  it('moves a changed profile, writes nothing for an unchanged one, and leaves a stopped company none', async () => {
    await importRecords([record({ activities: ['6201'], place: 'Lille' })], { asOf: '2026-11-20' });
    expect(await entriesOf()).toEqual([
      `${keys.filterProfilesByActivity('FR', '62')}|6201#${ref.companyNumber}`,
      `${keys.filterProfilesByPlace('FR', 'lille')}|${ref.companyNumber}`,
    ]);

    await importRecords([record({ activities: ['4711'], place: 'Liège' })], { asOf: '2026-11-21' });
    expect(await entriesOf()).toEqual([
      `${keys.filterProfilesByActivity('FR', '47')}|4711#${ref.companyNumber}`,
      `${keys.filterProfilesByPlace('FR', 'liege')}|${ref.companyNumber}`,
    ]);
    const caller = callerOf('import-moves');
    const found = await postList(caller, {
      name: 'Moved',
      type: 'SMART',
      filters: { countries: ['FR'], activities: ['4711'], places: ['liège'] },
    });
    expect(await membersOf(caller.accountId, found.body.id)).toContain(`FR#${ref.companyNumber}`);

    // A new name, the same profile: neither the profile nor its entries are written.
    const { calls } = await recordCalls(() =>
      importRecords([record({ activities: ['4711'], place: 'Liège', name: 'Renamed SAS' })], {
        asOf: '2026-11-22',
      }),
    );
    const writes = calls.filter((c) => /Write|Put|Update|Delete/.test(c.command));
    expect(writes.length).toBeGreaterThan(0);
    expect(JSON.stringify(writes.map((c) => c.input))).not.toContain('FILTER_PROFILES#');

    await importRecords(
      [
        record({
          activities: ['4711'],
          place: 'Liège',
          name: 'Renamed SAS',
          stoppedOn: '2026-11-01',
          financials: [period(2021)],
        }),
      ],
      { asOf: '2026-11-23' },
    );
    expect(await entriesOf()).toEqual([]);
    await workerDone();
    expect(await membersOf(caller.accountId, found.body.id)).not.toContain(`FR#${ref.companyNumber}`);
  }, 120_000);
});
