/**
 * Bounded work per account and per request (contract §2.1, §7.2, §7.6), with real REST proxy events
 * against DynamoDB Local: at most 200 lists per account (409 LIMIT_REACHED, race-safe, a delete frees a
 * place); list ids drawn at random, unique, telling nothing of other accounts; a smart list whose
 * countries hold more than 10,000 filter profiles answers at once with the matches among the first
 * 10,000, and the background worker adds the rest, the counters growing until it is done; a filter change
 * reads each member it writes once; a range in a figure's tail over such a country reads only its range
 * entries and is complete in the answer.
 */
import { handler as evaluateSmartLists } from '../../functions/evaluate-smart-lists';
import type { Filters } from '../../lib/lists/filters';
import { createOneList, updateOneList } from '../../lib/lists/manage';
import { EVALUATE_AT_ONCE } from '../../lib/lists/smart-bounds';
import { DRAWN_LIST_IDS, MAX_LISTS_PER_ACCOUNT } from '../../lib/lists/store/list-ids';
import { getItem, queryAll } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import {
  callerOf,
  deleteOne,
  everyMatch,
  getOne,
  membersOf,
  postList,
  profilesRead,
  putProfiles,
} from '../support/smart-lists';
import { useFreshTable } from '../support/table';
import { recordCalls } from '../support/dynamodb-calls';

useFreshTable();

const staticList = (name: string) => ({ name, type: 'STATIC' });

describe('at most 200 lists per account', () => {
  const initech = callerOf('initech');

  it('refuses the 201st with 409 LIMIT_REACHED, also when creates race, and takes one again after a delete', async () => {
    for (let n = 0; n < MAX_LISTS_PER_ACCOUNT - 5; n++) {
      expect((await postList(initech, staticList(`List ${n}`))).status).toBe(201);
    }
    // Ten side by side for the last five places: exactly five get one.
    const racing = await Promise.all(
      Array.from({ length: 10 }, (_, n) => postList(initech, staticList(`Racing ${n}`))),
    );
    expect(racing.filter((a) => a.status === 201)).toHaveLength(5);
    const refused = racing.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(5);
    for (const answer of refused) {
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({
        code: 'LIMIT_REACHED',
        message: 'An account can have at most 200 lists',
      });
    }
    // Nothing of a refused create stays: its name is free, no list holds it.
    const names = (
      await queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': 'ACCOUNT#initech', ':prefix': 'LIST#' },
      })
    ).map((item) => item['name']);
    expect(names).toHaveLength(MAX_LISTS_PER_ACCOUNT);

    // Another account is not counted with this one.
    expect((await postList(callerOf('umbrella'), staticList('Mine'))).status).toBe(201);

    const victim = racing.find((a) => a.status === 201)!.body.id as number;
    const deleted = await deleteOne(initech, victim);
    expect(deleted.status).toBe(204);
    expect((await postList(initech, staticList('After the delete'))).status).toBe(201);
    expect((await postList(initech, staticList('One too many'))).status).toBe(409);
  });

  it('counts the lists an account had before the count existed', async () => {
    const globex = callerOf('globex');
    const ids: number[] = [];
    for (let n = 0; n < 3; n++) ids.push((await postList(globex, staticList(`Old ${n}`))).body.id);
    // As if these lists predated the count: the count item is gone.
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamodb } = await import('../../lib/storage/client');
    await dynamodb().send(new DeleteCommand({ TableName: tableName(), Key: keys.listCount('globex') }));
    expect((await postList(globex, staticList('New'))).status).toBe(201);
    expect((await getItem(tableName(), keys.listCount('globex')))?.['lists']).toBe(4);
  });
});

describe('list ids', () => {
  it('are drawn at random, unique across the service, each claimed, never a sequence', async () => {
    const ids: number[] = [];
    for (const account of ['a1', 'a2', 'a1', 'a2', 'a1', 'a2']) {
      const created = await postList(callerOf(account), staticList(`L${ids.length}`));
      ids.push(created.body.id);
    }
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(Number.isInteger(id)).toBe(true);
      expect(id).toBeGreaterThanOrEqual(DRAWN_LIST_IDS.min);
      expect(id).toBeLessThanOrEqual(DRAWN_LIST_IDS.max);
      expect(await getItem(tableName(), keys.listIdClaim(id))).toBeDefined();
    }
    // Consecutive creates do not get consecutive ids (a sequence would tell how many lists exist).
    const steps = ids.slice(1).map((id, i) => id - ids[i]!);
    expect(steps.every((step) => step === 1)).toBe(false);
  });
});

describe('a smart list matching more than 10,000 companies', () => {
  const hooli = callerOf('hooli');
  const MATCHING = EVALUATE_AT_ONCE + 37;

  beforeAll(async () => {
    // Filter profiles as the import keeps them: MATCHING companies in NL with NACE 62, and others that do not match.
    await putProfiles('NL', 10_000_000, MATCHING, ['6201']);
    await putProfiles('NL', 10_000_000 + MATCHING, 20, ['4711']);
  }, 120_000);

  it('answers at once with what the first 10,000 profiles hold; the worker adds the rest and the counters grow', async () => {
    // The use case itself, not the handler: on this shared machine writing 10,000 members to DynamoDB
    // Local may take longer than the handler's 10 s (a 503), which is not what this test is about.
    const created = await createOneList(hooli, {
      name: 'Dutch software',
      type: 'SMART',
      filters: { countries: ['NL'], activities: ['62'] },
    });
    // The request read 10,000 of the 10,057 Dutch profiles: at most 20 of them are shops.
    const now = created.body.amountOfCompanies as number;
    expect(now).toBeGreaterThanOrEqual(EVALUATE_AT_ONCE - 20);
    expect(now).toBeLessThanOrEqual(EVALUATE_AT_ONCE);
    expect(created.body.newResults).toBe(now);
    const id = created.body.id as number;
    expect(await getItem(tableName(), keys.smartListEvaluation('hooli', id))).toBeDefined();

    expect(await evaluateSmartLists()).toEqual({ lists: 1, entered: MATCHING - now });
    expect((await getOne(hooli, id)).body).toMatchObject({
      amountOfCompanies: MATCHING,
      newResults: MATCHING,
    });
    expect(await getItem(tableName(), keys.smartListEvaluation('hooli', id))).toBeUndefined();
    // Done: a further run finds nothing to do.
    expect(await evaluateSmartLists()).toEqual({ lists: 0, entered: 0 });
  }, 120_000);

  it('bounds a filter change the same way', async () => {
    const created = await postList(hooli, {
      name: 'Shops',
      type: 'SMART',
      filters: { activities: ['4711'] },
    });
    await evaluateSmartLists();
    const id = created.body.id as number;
    expect((await getOne(hooli, id)).body).toMatchObject({ amountOfCompanies: 20 });
    // The use case itself, as above: 10,000 companies entering a visible list take about 1,000 DynamoDB
    // Local calls (800 BatchWriteItem of members and order items, 100 BatchGetItem of members).
    const { result: changed, calls } = await recordCalls(() =>
      updateOneList(hooli, id, { filters: { countries: ['NL'] } }),
    );
    // The 20 shops stay (their NEW members read and kept); of the first 9,980 profiles, those not in
    // the list already enter now, the rest in the background.
    expect(changed.amountOfCompanies).toBeGreaterThanOrEqual(EVALUATE_AT_ONCE - 20);
    expect(changed.amountOfCompanies).toBeLessThanOrEqual(EVALUATE_AT_ONCE + 20);
    expect((await evaluateSmartLists()).entered).toBe(MATCHING + 20 - changed.amountOfCompanies);
    expect((await getOne(hooli, id)).body.amountOfCompanies).toBe(MATCHING + 20);
    // Each member the change writes is read once (its 20 claims of 500 read their own part): the 20
    // NEW members and the companies entering, by key.
    const membersRead = calls
      .filter((c) => c.command === 'BatchGetItem')
      .reduce((n, c) => n + (JSON.stringify(c.input).match(/"COMPANY#/g) ?? []).length, 0);
    expect(membersRead).toBeGreaterThanOrEqual(changed.amountOfCompanies - 20);
    expect(membersRead).toBeLessThanOrEqual(EVALUATE_AT_ONCE + 20);
  }, 120_000);
});

describe('a range in a tail over a country of more than 10,000 companies', () => {
  const pied = callerOf('pied-piper');
  const LARGE = 300;

  beforeAll(async () => {
    // Beside the 10,077 Dutch companies above (no figures), 300 with 800 employees: the recount writes
    // their range entries.
    await putProfiles('NL', 20_000_000, LARGE, ['6420'], { employees: 800 });
  }, 120_000);

  it('reads only its range entries and is complete in the answer', async () => {
    const filters: Filters = { countries: ['NL'], employees: { min: 500 } };
    const { result: created, calls } = await recordCalls(() =>
      postList(pied, { name: 'Large Dutch', type: 'SMART', filters }),
    );
    expect(created.status).toBe(201);
    const matched = await everyMatch(filters);
    expect(matched).toHaveLength(LARGE);
    expect(created.body).toMatchObject({ amountOfCompanies: LARGE, newResults: LARGE });
    expect(profilesRead(calls)).toBe(LARGE);
    expect(
      await getItem(tableName(), keys.smartListEvaluation('pied-piper', created.body.id)),
    ).toBeUndefined();
    expect(await membersOf('pied-piper', created.body.id)).toEqual(matched);
  }, 120_000);
});
