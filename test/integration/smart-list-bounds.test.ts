/**
 * Smart lists bounded and fair (contract §7.6, §2.1), with real REST proxy events against DynamoDB
 * Local and small bounds set through the configuration: an account's smart lists hold at most
 * SMART_LISTS_MAX_COMPANIES companies together (409 LIMIT_REACHED past it, nothing stored, creates that
 * race cannot pass it); a request reads (and so flips) at most SMART_LISTS_EVALUATE_AT_ONCE companies,
 * leaving included; the worker takes turns between accounts under a lease, from a cursor.
 */
import { handler as evaluateSmartLists } from '../../functions/evaluate-smart-lists';
import {
  evaluateDeferredSmartLists,
  evaluateSmartListsStorage,
  LEASE_MS,
} from '../../lib/lists/smart-background';
import { flipMembers } from '../../lib/lists/store/smart-flips';
import { HELD, SMART_COMPANIES } from '../../lib/lists/store/smart-holds';
import { getJobs, takeLease } from '../../lib/lists/store/smart-jobs';
import { withDeclaredAccess } from '../../lib/storage/access';
import { getItem, queryAll } from '../../lib/storage/batch';
import { dynamodb, tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import {
  callerOf,
  deleteOne,
  getOne,
  patchList,
  postList,
  putProfiles,
  withEnv,
} from '../support/smart-lists';
import { useFreshTable } from '../support/table';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';

useFreshTable();

const turn = () =>
  withDeclaredAccess(evaluateSmartListsStorage, () => evaluateDeferredSmartLists({ turns: 1 }));

/** The account's count of smart-list companies. */
const held = async (accountId: string) =>
  Number((await getItem(tableName(), keys.listCount(accountId), { consistent: true }))?.[SMART_COMPANIES]);

/** The list's member items, every state. */
const members = async (accountId: string, listId: number) =>
  queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.listPartitions(accountId, listId, [])[0] },
    ConsistentRead: true,
  });

beforeAll(async () => {
  // NL: 20 software companies (62), 15 shops (4711); FR: 60 consultancies (7022).
  await putProfiles('NL', 10_000_000, 20, ['6201']);
  await putProfiles('NL', 20_000_000, 15, ['4711']);
  await putProfiles('FR', 90_000_000, 60, ['7022']);
}, 60_000);

describe("an account's smart lists hold at most SMART_LISTS_MAX_COMPANIES companies together", () => {
  withEnv({ SMART_LISTS_MAX_COMPANIES: '30' });
  const LIMIT = {
    code: 'LIMIT_REACHED',
    message: "An account's smart lists can hold at most 30 companies",
  };

  it('refuses a create or a filter change that would pass it, with 409 and nothing changed', async () => {
    const initech = callerOf('initech');
    const software = await postList(initech, {
      name: 'Software',
      type: 'SMART',
      filters: { activities: ['62'] },
    });
    expect(software.status).toBe(201);
    expect(software.body).toMatchObject({ amountOfCompanies: 20, newResults: 20 });
    expect(await held('initech')).toBe(20);

    const shops = await postList(initech, {
      name: 'Shops',
      type: 'SMART',
      filters: { activities: ['4711'] },
    });
    expect(shops.status).toBe(409);
    expect(shops.body).toEqual({ ...LIMIT, requestId: expect.any(String) });
    // Nothing stored: no list, the name free, the count as it was.
    const lists = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': 'ACCOUNT#initech', ':prefix': 'LIST#' },
    });
    expect(lists.map((l) => l['name'])).toEqual(['Software']);
    expect(await held('initech')).toBe(20);
    expect((await postList(initech, { name: 'Shops', type: 'STATIC' })).status).toBe(201);

    // Another account is not counted with this one.
    expect(
      (
        await postList(callerOf('umbrella'), {
          name: 'Shops',
          type: 'SMART',
          filters: { activities: ['4711'] },
        })
      ).status,
    ).toBe(201);

    // A filter change to 35 companies: refused, the list as it was.
    const id = software.body.id as number;
    const wider = await patchList(initech, id, { filters: { countries: ['NL'] } });
    expect(wider.status).toBe(409);
    expect(wider.body).toEqual({ ...LIMIT, requestId: expect.any(String) });
    expect((await getOne(initech, id)).body).toEqual(software.body);
    expect(await members('initech', id)).toHaveLength(20);
    expect(await held('initech')).toBe(20);

    // To the 15 shops: the 20 NEW ones leave, 15 enter, and the account holds 15.
    const narrower = await patchList(initech, id, { filters: { activities: ['4711'] } });
    expect(narrower.status).toBe(200);
    expect(narrower.body).toMatchObject({ amountOfCompanies: 15, newResults: 15 });
    expect(await held('initech')).toBe(15);
    expect((await getItem(tableName(), keys.list('initech', id)))?.[HELD]).toBeUndefined();
    expect(await getItem(tableName(), keys.smartListEvaluation('initech', id))).toBeUndefined();

    // A delete gives its place back at once.
    const deleted = await deleteOne(initech, id);
    expect(deleted.status).toBe(204);
    expect(await held('initech')).toBe(0);
    expect(
      (await postList(initech, { name: 'Software again', type: 'SMART', filters: { activities: ['62'] } }))
        .status,
    ).toBe(201);
  });

  it('lets creates that race take only the places there are', async () => {
    const hooli = callerOf('hooli');
    const racing = await Promise.all(
      [1, 2, 3].map((n) =>
        postList(hooli, { name: `Shops ${n}`, type: 'SMART', filters: { activities: ['4711'] } }),
      ),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 409]);
    expect(racing.find((r) => r.status === 409)!.body).toMatchObject(LIMIT);
    expect(await held('hooli')).toBe(30);

    // An import's new matches into a full account: none enters, and the log says so.
    const listId = racing.find((r) => r.status === 201)!.body.id as number;
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const entering = [1, 2].map((n) => ({
        ref: { country: 'NL' as const, companyNumber: String(30_000_000 + n) },
        contacts: 1,
      }));
      expect(await flipMembers('hooli', listId, entering, [], new Date())).toEqual({ entered: 0, left: 0 });
      expect(warn.mock.calls.map(([line]) => JSON.parse(line as string))).toContainEqual(
        expect.objectContaining({ level: 'WARN', accountId: 'hooli', listId, leftOut: 2, bound: 30 }),
      );
    } finally {
      warn.mockRestore();
    }
    expect(await held('hooli')).toBe(30);
    expect(await members('hooli', listId)).toHaveLength(15);
  });
});

describe('a request reads at most SMART_LISTS_EVALUATE_AT_ONCE companies; the worker the rest', () => {
  withEnv({ SMART_LISTS_EVALUATE_AT_ONCE: '5', SMART_LISTS_TURN_COMPANIES: '100' });

  it('reads and takes out at most that many companies in the request, and the rest in the background', async () => {
    const acme = callerOf('acme-flips');
    const created = await postList(acme, {
      name: 'Software',
      type: 'SMART',
      filters: { activities: ['62'] },
    });
    // The request reads 5 filter profiles: the software companies among them enter now.
    expect(created.body.amountOfCompanies).toBeLessThanOrEqual(5);
    const id = created.body.id as number;
    await evaluateSmartLists();
    expect((await getOne(acme, id)).body).toMatchObject({ amountOfCompanies: 20, newResults: 20 });
    expect(await held('acme-flips')).toBe(20);

    // To the shops: 5 of the 20 leave in the request (none enters yet), the rest in the background.
    const changed = await patchList(acme, id, { filters: { activities: ['4711'] } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ amountOfCompanies: 15 });
    expect(await getItem(tableName(), keys.smartListEvaluation('acme-flips', id))).toBeDefined();
    expect(await evaluateSmartLists()).toEqual({ lists: 1, entered: 15 });
    expect((await getOne(acme, id)).body).toMatchObject({ amountOfCompanies: 15, newResults: 15 });
    const states = (await members('acme-flips', id)).map((m) => m['sk'] as string);
    expect(states.every((sk) => sk.startsWith('COMPANY#NL#2'))).toBe(true);
    expect(await held('acme-flips')).toBe(15);
    expect(await getItem(tableName(), keys.smartListEvaluation('acme-flips', id))).toBeUndefined();
  });

  it('loses and double-counts nothing when two filter changes race', async () => {
    const acme = callerOf('acme-race');
    const id = (await postList(acme, { name: 'Racing', type: 'SMART', filters: { countries: ['FR'] } })).body
      .id as number;
    const answers = await Promise.all([
      patchList(acme, id, { filters: { activities: ['62'] } }),
      patchList(acme, id, { filters: { activities: ['4711'] } }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    for (let run = 0; run < 10 && (await evaluateSmartLists()).lists > 0; run++);
    const list = (await getOne(acme, id)).body;
    const filters = JSON.parse(
      (await getItem(tableName(), keys.list('acme-race', id)))!['filters'] as string,
    );
    // The list holds exactly the companies of the filters that won, counted once.
    const expected = filters.activities[0] === '62' ? 20 : 15;
    expect(list).toMatchObject({ amountOfCompanies: expected, newResults: expected });
    expect(await members('acme-race', id)).toHaveLength(expected);
    expect(await held('acme-race')).toBe(expected);
  });
});

describe('the worker takes turns between accounts, under a lease', () => {
  withEnv({ SMART_LISTS_EVALUATE_AT_ONCE: '5', SMART_LISTS_TURN_COMPANIES: '40' });

  /** Runs one turn and answers whose it was: the account whose job moved on or ended. */
  async function whoseTurn(): Promise<string | undefined> {
    const before = new Map((await getJobs()).map((j) => [`${j.accountId}#${j.listId}`, j.turnAt]));
    await turn();
    const after = new Map((await getJobs()).map((j) => [`${j.accountId}#${j.listId}`, j.turnAt]));
    const moved = [...before.keys()].find((job) => after.get(job) !== before.get(job));
    return moved?.slice(0, moved.indexOf('#'));
  }

  it("evaluates a small list of one account after at most one turn of another's huge list", async () => {
    // The huge list: 60 French companies, 40 profiles a turn. The small one: 15 Dutch shops.
    const huge = await postList(callerOf('big-corp'), {
      name: 'All of France',
      type: 'SMART',
      filters: { countries: ['FR'] },
    });
    const small = await postList(callerOf('small-co'), {
      name: 'Shops',
      type: 'SMART',
      filters: { countries: ['NL'], activities: ['4711'] },
    });
    // Each request read 5 profiles: every French one matches, some of the Dutch ones are shops.
    expect(huge.body.amountOfCompanies).toBe(5);
    expect(small.body.amountOfCompanies).toBeLessThanOrEqual(5);

    // The older job's turn first, then the other account's, which ends the small list.
    expect(await whoseTurn()).toBe('big-corp');
    expect((await getOne(callerOf('big-corp'), huge.body.id)).body.amountOfCompanies).toBe(45);
    expect(await whoseTurn()).toBe('small-co');
    expect((await getOne(callerOf('small-co'), small.body.id)).body).toMatchObject({
      amountOfCompanies: 15,
      newResults: 15,
    });
    expect((await getJobs()).map((j) => j.accountId)).toEqual(['big-corp']);

    // Another list of the small account goes before the huge list's next turn, and then they alternate.
    const again = await postList(callerOf('small-co'), {
      name: 'Software',
      type: 'SMART',
      filters: { activities: ['62'] },
    });
    const order: (string | undefined)[] = [];
    while (order.length < 10 && (await getJobs()).length > 0) order.push(await whoseTurn());
    expect(order[0]).toBe('small-co');
    const smallLast = order.lastIndexOf('small-co');
    for (let n = 1; n <= smallLast; n++)
      expect([order[n - 1], order[n]]).not.toEqual(['big-corp', 'big-corp']);
    expect((await getOne(callerOf('small-co'), again.body.id)).body.amountOfCompanies).toBe(20);
    expect((await getOne(callerOf('big-corp'), huge.body.id)).body).toMatchObject({
      amountOfCompanies: 60,
      newResults: 60,
    });
    expect(await held('big-corp')).toBe(60);
    expect(await held('small-co')).toBe(35);
  });

  it("skips a job another worker holds, takes it over when that worker's lease expired, and never evaluates one list twice at once", async () => {
    const initrode = callerOf('initrode');
    const created = await postList(initrode, {
      name: 'France',
      type: 'SMART',
      filters: { countries: ['FR'] },
    });
    const id = created.body.id as number;
    // A worker took the job and crashed: its lease holds, so nobody else evaluates the list.
    const [job] = (await getJobs()).filter((j) => j.accountId === 'initrode');
    expect(await takeLease(job!, LEASE_MS)).not.toBeNull();
    expect(await takeLease(job!, LEASE_MS)).toBeNull();
    expect(await turn()).toEqual({ lists: 0, entered: 0 });
    // Past its lease, the job is taken over; two workers side by side share the turns, never a list.
    await dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.smartListEvaluation('initrode', id),
        UpdateExpression: 'SET leaseUntil = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1 },
      }),
    );
    const runs = await Promise.all([evaluateSmartLists(), evaluateSmartLists()]);
    expect(runs.reduce((n, r) => n + r.entered, 0)).toBe(55);
    expect((await getOne(initrode, id)).body).toMatchObject({ amountOfCompanies: 60, newResults: 60 });
    expect(await members('initrode', id)).toHaveLength(60);
    expect(await held('initrode')).toBe(60);
  });
});
