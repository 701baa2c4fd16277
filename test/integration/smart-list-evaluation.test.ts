/**
 * A smart list's evaluation bounded in the request and finished by the worker (contract §7.6), against
 * DynamoDB Local with small bounds set through the configuration: a create or filter change reads at
 * most SMART_LISTS_EVALUATE_AT_ONCE items (NEW members and filter profiles) however many profiles its
 * countries hold, the worker's turns then complete the list to exactly the companies an evaluation of
 * every profile gives, and the account's bound holds exactly when creates race, even on estimates
 * that fall short.
 */
import fc from 'fast-check';
import type { Country } from '../../lib/companies/identifiers';
import { packProfile, unpackProfile, type Filters } from '../../lib/lists/filters';
import { recountMatchCounts } from '../../lib/lists/match-recount';
import { moveListCompanies } from '../../lib/lists/manage';
import { filterProfileItem, profileEntryItems } from '../../lib/lists/store/profiles';
import { SMART_COMPANIES } from '../../lib/lists/store/smart-holds';
import { batchPut, getItem, queryAll } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { recordCalls, type Call } from '../support/dynamodb-calls';
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

const BUDGET = 25;
withEnv({ SMART_LISTS_EVALUATE_AT_ONCE: String(BUDGET), SMART_LISTS_TURN_COMPANIES: '40' });

const PLACES = ['gent', 'liege', 'lille', null];
const CODES = [['6201'], ['62020', '4711'], ['4711'], ['7022'], []];

beforeAll(async () => {
  // FR: 300 companies, the "large country" (12 times what a request reads); NL: 40. Their facts cycle,
  // so filters collide on them in many ways. Then their match counts, recounted from them.
  const profiles = (country: Country, count: number) =>
    Array.from({ length: count }, (_, n) =>
      filterProfileItem(
        { country, companyNumber: numberOf(country, 1_000_000 + n) },
        packProfile({
          country,
          activities: CODES[n % CODES.length]!,
          place: PLACES[n % PLACES.length]!,
          employees: n % 7 === 0 ? null : (n * 13) % 200,
          totalAssets: null,
          healthIndicator: n % 11,
        }),
        1,
      ),
    );
  await batchPut(tableName(), [...profiles('FR', 300), ...profiles('NL', 40)]);
  await recountMatchCounts(['FR', 'NL']);
}, 120_000);

const heldBy = async (accountId: string) =>
  Number((await getItem(tableName(), keys.listCount(accountId), { consistent: true }))?.[SMART_COMPANIES]);

describe('the request', () => {
  it('creates a list over a large country reading at most the bound of its filter profiles', async () => {
    const acme = callerOf('acme-large');
    const { result: created, calls } = await recordCalls(() =>
      postList(acme, { name: 'All of France', type: 'SMART', filters: { countries: ['FR'] } }),
    );
    expect(created.status).toBe(201);
    // 300 French profiles, BUDGET read: the counters say what is evaluated so far.
    expect(profilesRead(calls)).toBeLessThanOrEqual(BUDGET);
    expect(created.body).toMatchObject({ amountOfCompanies: BUDGET, newResults: BUDGET });
    // The account holds the estimate (300, from the counts) while the worker fills the list.
    expect(await heldBy('acme-large')).toBe(300);
    await workerDone();
    expect((await getOne(acme, created.body.id)).body).toMatchObject({ amountOfCompanies: 300 });
    expect(await heldBy('acme-large')).toBe(300);
  });

  it('changes the filters of a large list reading at most the bound of its members and profiles', async () => {
    const acme = callerOf('acme-change');
    const created = await postList(acme, { name: 'France', type: 'SMART', filters: { countries: ['FR'] } });
    await workerDone();
    const id = created.body.id as number;
    const { result: changed, calls } = await recordCalls(() =>
      patchList(acme, id, { filters: { countries: ['FR'], activities: ['4711'] } }),
    );
    expect(changed.status).toBe(200);
    const readNew = calls
      .filter((c) => c.command === 'Query' && JSON.stringify(c.input).includes('#NEW'))
      .reduce((n, c) => n + c.items, 0);
    expect(readNew + profilesRead(calls)).toBeLessThanOrEqual(2 * BUDGET);
    expect(readNew).toBeLessThanOrEqual(BUDGET);
    // At most BUDGET of the 300 left in the request.
    expect(changed.body.amountOfCompanies).toBeGreaterThanOrEqual(300 - BUDGET);
    await workerDone();
    expect(await membersOf('acme-change', id)).toEqual(
      await everyMatch({ countries: ['FR'], activities: ['4711'] }),
    );
  });
});

describe('a filter change of a list of more NEW companies than the bound', () => {
  it('is bounded in the request, complete after the worker, and reads each NEW member once', async () => {
    const acme = callerOf('acme-many-new');
    const created = await postList(acme, { name: 'France', type: 'SMART', filters: { countries: ['FR'] } });
    await workerDone();
    const id = created.body.id as number;
    const next: Filters = { countries: ['FR'], activities: ['4711'] };
    const matched = await everyMatch(next);
    // 300 NEW members (12 times the bound): 120 under 4711 stay, 180 leave.
    expect(matched).toHaveLength(120);
    const request = await recordCalls(() => patchList(acme, id, { filters: next }));
    expect(request.result.status).toBe(200);
    // The request checks BUDGET of them (their NEW order, then their profiles by key) and enters none.
    expect(newOrderRead(request.calls)).toBe(BUDGET);
    expect(profilesRead(request.calls)).toBe(BUDGET);
    // The account's bound stays held for at least what the list holds while the worker goes on.
    expect(await heldBy('acme-many-new')).toBeGreaterThanOrEqual(request.result.body.amountOfCompanies);
    const worker = await recordCalls(() => workerDone());
    const calls = [...request.calls, ...worker.calls];
    // Request and turns together: each NEW member once from the NEW order and its profile once by key,
    // the entries under 4711 once, and each member item once (read as it leaves, or as it is found
    // among the entering candidates, in the list already).
    expect(newOrderRead(calls)).toBe(300);
    const byKey = calls.filter((c) => c.command === 'BatchGetItem');
    expect(
      byKey.filter((c) => JSON.stringify(c.input).includes('FILTER_PROFILES#FR#')).reduce(items, 0),
    ).toBe(300);
    expect(byKey.filter((c) => JSON.stringify(c.input).includes('"COMPANY#FR#')).reduce(items, 0)).toBe(300);
    expect(
      calls
        .filter((c) => c.command === 'Query' && JSON.stringify(c.input).includes('FILTER_PROFILES#FR#ACT#47'))
        .reduce(items, 0),
    ).toBe(120);
    expect(await membersOf('acme-many-new', id)).toEqual(matched);
    expect((await getOne(acme, id)).body).toMatchObject({ amountOfCompanies: 120, newResults: 120 });
    expect(await heldBy('acme-many-new')).toBe(120);
  });
});

const items = (n: number, call: Call) => n + call.items;
/** Items read of lists' NEW order. */
const newOrderRead = (calls: Call[]) =>
  calls.filter((c) => c.command === 'Query' && JSON.stringify(c.input).includes('#NEW')).reduce(items, 0);

const countries = fc.option(fc.subarray(['NL', 'FR'] as Country[], { minLength: 1 }), { nil: undefined });
const filtersArb: fc.Arbitrary<Filters> = fc
  .record(
    {
      countries,
      activities: fc.option(
        fc.uniqueArray(fc.constantFrom('62', '6202', '47', '4711', '70'), { minLength: 1, maxLength: 2 }),
        { nil: undefined },
      ),
      places: fc.option(
        fc.uniqueArray(fc.constantFrom('Gent', 'Liège', 'LILLE'), { minLength: 1, maxLength: 2 }),
        { nil: undefined },
      ),
      employees: fc.option(fc.record({ min: fc.integer({ min: 0, max: 100 }) }), { nil: undefined }),
      healthIndicator: fc.option(fc.record({ max: fc.integer({ min: 0, max: 10 }) }), { nil: undefined }),
    },
    { requiredKeys: [] },
  )
  .map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as Filters)
  .filter((f) => Object.keys(f).length > 0);

describe('the worker completes what the request began', () => {
  it('to the companies an evaluation of every profile gives, after a create and a filter change', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(filtersArb, filtersArb, fc.nat(), async (first, second, saved) => {
        const caller = callerOf(`prop-${run++}`);
        const created = await postList(caller, { name: 'Property', type: 'SMART', filters: first });
        expect(created.status).toBe(201);
        const id = created.body.id as number;
        await workerDone();
        const matched = await everyMatch(first);
        expect(await membersOf(caller.accountId, id)).toEqual(matched);
        expect((await getOne(caller, id)).body).toMatchObject({ amountOfCompanies: matched.length });

        // One company kept (SAVED): it stays whatever the new filters; the NEW ones follow them.
        const keptKey = matched.length > 0 ? matched[saved % matched.length]! : undefined;
        if (keptKey) {
          const [country, companyNumber] = keptKey.split('#') as [Country, string];
          const moved = await moveListCompanies(caller, id, [
            { raw: { country, companyNumber }, state: 'SAVED' },
          ]);
          expect(moved).toEqual({ updated: 1, failed: [] });
        }
        const changed = await patchList(caller, id, { filters: second });
        expect(changed.status).toBe(200);
        await workerDone();
        const expected = [...new Set([...(await everyMatch(second)), ...(keptKey ? [keptKey] : [])])].sort();
        expect(await membersOf(caller.accountId, id)).toEqual(expected);
        expect((await getOne(caller, id)).body.amountOfCompanies).toBe(expected.length);
        // The job's end trued the account's hold to what the list holds.
        expect(await heldBy(caller.accountId)).toBe(expected.length);
      }),
      { numRuns: 12, seed: 36 },
    );
  }, 600_000);
});

describe('the bound when creates race', () => {
  withEnv({ SMART_LISTS_MAX_COMPANIES: '400' });

  it('lets one of two creates of 300 companies through, the other 409, nothing of it stored', async () => {
    const racer = callerOf('racer');
    const answers = await Promise.all(
      [1, 2].map((n) =>
        postList(racer, { name: `France ${n}`, type: 'SMART', filters: { countries: ['FR'] } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(answers.find((a) => a.status === 409)!.body).toMatchObject({ code: 'LIMIT_REACHED' });
    await workerDone();
    expect(await heldBy('racer')).toBe(300);
  });

  it('holds it exactly when the estimates fall short of what the lists fill', async () => {
    // 200 more French companies the counts do not know of (their profiles and entries written without
    // them): the estimate of every French filter says 300, the lists fill to 500 each.
    const consultancy = unpackProfile('FR', '[["7022"],null,null,null,null]');
    await batchPut(
      tableName(),
      Array.from({ length: 200 }, (_, n) => {
        const ref = { country: 'FR' as const, companyNumber: numberOf('FR', 2_000_000 + n) };
        const packed = packProfile(consultancy);
        return [filterProfileItem(ref, packed, 1), ...profileEntryItems(ref, consultancy, packed, 1)];
      }).flat(),
    );
    const racer = callerOf('racer-short');
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const answers = await Promise.all(
        [1, 2].map((n) =>
          postList(racer, {
            name: `Consultancies ${n}`,
            type: 'SMART',
            filters: { countries: ['FR'], activities: ['70'] },
          }),
        ),
      );
      // Each estimate (60) fits beside the other: both accepted, then filled by the worker up to the bound.
      expect(answers.map((a) => a.status)).toEqual([201, 201]);
      await workerDone();
    } finally {
      warn.mockRestore();
    }
    const lists = await Promise.all(
      (
        await queryAll({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': 'ACCOUNT#racer-short', ':prefix': 'LIST#' },
          ConsistentRead: true,
        })
      ).map((list) => membersOf('racer-short', Number((list['sk'] as string).slice('LIST#'.length)))),
    );
    const together = lists.reduce((n, members) => n + members.length, 0);
    // 260 consultancies each: together they would be 520; the bound lets exactly 400 in.
    expect(together).toBe(400);
    expect(await heldBy('racer-short')).toBe(400);
  });
});
