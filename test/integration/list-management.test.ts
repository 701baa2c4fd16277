/**
 * Managing lists and smart lists (contract §7.6) with real REST proxy events, against DynamoDB Local:
 * create, change, delete, state moves, and smart lists evaluated at creation, on a filter change and
 * on import.
 */
import { handler as createList } from '../../functions/create-list';
import { handler as deleteList } from '../../functions/delete-list';
import { handler as getList } from '../../functions/get-list';
import { handler as getListCompanies } from '../../functions/get-list-companies';
import { handler as moveListCompanies } from '../../functions/move-list-companies';
import { handler as updateList } from '../../functions/update-list';
import { belgianCheckDigits } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import type { Caller } from '../../lib/tokens/caller';
import { importCompanies } from '../../lib/import/import';
import { applySmartListFlips } from '../../lib/lists/smart';
import { cleanUpDeletedLists as cleanUpAnyhow, cleanUpListsStorage } from '../../lib/lists/store/clean-up';
import { getList as storedList } from '../../lib/lists/store/lists';
import { withDeclaredAccess } from '../../lib/storage/access';
import { asImportWorkers } from '../support/import-access';

import { queryAll } from '../../lib/storage/batch';
import { dynamodb, tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { SCOPES } from '../../lib/tokens/scopes';
import { LIST_KEYS } from '../support/contract';
import { ALICE, call } from '../support/events';
import { useFreshTable } from '../support/table';

/** The clean-up as its Lambda runs it: every call checked against the worker's declaration. */
const cleanUpDeletedLists = () => withDeclaredAccess(cleanUpListsStorage, cleanUpAnyhow);

useFreshTable();

const BOB: Caller = { accountId: 'acme', userEmail: 'bob@acme.example', scopes: [...SCOPES] };
const CAROL: Caller = { accountId: 'globex', userEmail: 'carol@globex.example', scopes: [...SCOPES] };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

const be = (firstEight: string) => firstEight + belgianCheckDigits(firstEight);
const company = (i: number, activities: string[], place: string, contacts = 0): CompanyRecordInput => ({
  country: 'BE',
  companyNumber: be(`07${String(i).padStart(6, '0')}`),
  name: `Company ${i} BV`,
  place,
  activities,
  contacts: Array.from({ length: contacts }, (_, k) => ({
    contactId: 700_000 + 10 * i + k,
    firstName: 'An',
    lastName: `Person${i}`,
    jobTitle: 'CEO',
  })),
});
/** Software companies in Gent (0–5), construction in Gent (6–8), software in Brugge (9). */
const COMPANIES = [
  ...[0, 1, 2, 3, 4, 5].map((i) => company(i, ['62010'], 'Gent', i % 2)),
  ...[6, 7, 8].map((i) => company(i, ['41201'], 'Gent')),
  company(9, ['62020'], 'Brugge', 1),
];

async function importRecords(records: CompanyRecordInput[]) {
  async function* lines() {
    for (const record of records) yield JSON.stringify(record);
  }
  const summary = await asImportWorkers(() => importCompanies(lines(), { asOf: '2026-11-21' }));
  expect(summary.rejected).toBe(0);
}

const post = (body: unknown, caller: Caller = ALICE) =>
  call(createList, { method: 'POST', resource: '/v1/lists', body, caller });
const get = (id: number | string, caller: Caller = ALICE) =>
  call(getList, { resource: '/v1/lists/{id}', pathParameters: { id: String(id) }, caller });
const patch = (id: number | string, body: unknown, caller: Caller = ALICE) =>
  call(updateList, {
    method: 'PATCH',
    resource: '/v1/lists/{id}',
    pathParameters: { id: String(id) },
    body,
    caller,
  });
const remove = (id: number | string, caller: Caller = ALICE) =>
  call(deleteList, {
    method: 'DELETE',
    resource: '/v1/lists/{id}',
    pathParameters: { id: String(id) },
    caller,
  });
const move = (id: number | string, companies: unknown, caller: Caller = ALICE) =>
  call(moveListCompanies, {
    method: 'PATCH',
    resource: '/v1/lists/{id}/companies',
    pathParameters: { id: String(id) },
    body: { companies },
    caller,
  });
const members = async (id: number, type = 'ALL', caller: Caller = ALICE) => {
  const body = (
    await call(getListCompanies, {
      resource: '/v1/lists/{id}/companies',
      pathParameters: { id: String(id) },
      query: { type, limit: '500' },
      caller,
    })
  ).body as Body;
  return (body.data as Body[]).map((d) => d.identifier.companyNumber as string).sort();
};
const numbers = (...indexes: number[]) => indexes.map((i) => COMPANIES[i]!.companyNumber).sort();
const uniqueName = () => `List ${Math.random()}`;

beforeAll(async () => {
  await importRecords(COMPANIES);
});

describe('POST /v1/lists', () => {
  it('creates a static list with the defaults, answers 201 with its Location', async () => {
    const response = await post({ name: '  Prospects  ', type: 'STATIC' });
    expect(response.status).toBe(201);
    const list = response.body as Body;
    expect(Object.keys(list)).toEqual([...LIST_KEYS]);
    expect(response.headers['Location']).toBe(`/v1/lists/${list.id}`);
    expect(list).toMatchObject({
      name: 'Prospects',
      type: 'STATIC',
      columns: ['country', 'vatNumber', 'activities'],
      shared: false,
      notifications: { enabled: false },
      amountOfCompanies: 0,
      newResults: null,
      createdBy: ALICE.userEmail,
    });
    expect(list.updatedAt).toBe(list.createdAt);
    expect((await get(list.id)).body).toEqual(list);
  });

  it('gives one of two concurrent creates with one name (any case) the list, the other 409', async () => {
    const name = uniqueName();
    const answers = await Promise.all([
      post({ name, type: 'STATIC' }),
      post({ name: ` ${name.toUpperCase()} `, type: 'STATIC' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const refused = answers.find((a) => a.status === 409)!.body as Body;
    expect(refused).toMatchObject({ code: 'LIST_NAME_TAKEN' });
    // Another account may use the name.
    expect((await post({ name, type: 'STATIC' }, CAROL)).status).toBe(201);
  });

  it('holds the companies matching a smart list’s filters at once, as NEW', async () => {
    const response = await post({
      name: uniqueName(),
      type: 'SMART',
      shared: true,
      filters: { countries: ['be'], activities: ['62'], places: ['gent'] },
    });
    expect(response.status).toBe(201);
    const list = response.body as Body;
    expect(list).toMatchObject({ amountOfCompanies: 6, newResults: 6, notifications: { enabled: false } });
    expect(await members(list.id, 'NEW')).toEqual(numbers(0, 1, 2, 3, 4, 5));
  });

  it.each([
    [{ name: 'x', type: 'STATIC', filters: { countries: ['BE'] } }, 'filters'],
    [{ name: 'x', type: 'SMART' }, 'filters'],
    [{ name: 'x', type: 'SMART', filters: {} }, 'filters'],
    [{ name: 'x', type: 'SMART', filters: { employees: { min: 5, max: 1 } } }, 'filters.employees'],
    [{ name: 'x', type: 'SMART', filters: { activities: ['X1'] } }, 'filters.activities[0]'],
    [{ name: 'x', type: 'SMART', filters: { sector: 'IT' } }, 'filters.sector'],
    [
      { name: 'x', type: 'SMART', filters: { countries: ['BE'] }, notifications: { enabled: true } },
      'notifications.enabled',
    ],
    [{ name: '   ', type: 'STATIC' }, 'name'],
    [{ name: 'x'.repeat(201), type: 'STATIC' }, 'name'],
    [{ name: 'x', type: 'DYNAMIC' }, 'type'],
    [{ name: 'x', type: 'STATIC', columns: ['turnover'] }, 'columns[0]'],
    [{ name: 'x', type: 'STATIC', shared: 'yes' }, 'shared'],
  ])('refuses %j with 400 on %s', async (body, path) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect((response.body as Body).details).toEqual([expect.objectContaining({ path })]);
  });
});

describe('PATCH /v1/lists/{id}', () => {
  it('changes what is sent, moves updatedAt, and keeps names unique', async () => {
    const taken = uniqueName();
    await post({ name: taken, type: 'STATIC' });
    const list = (await post({ name: uniqueName(), type: 'STATIC', shared: true })).body as Body;
    const changed = await patch(list.id, {
      name: 'Renamed',
      columns: ['place'],
      notifications: { enabled: true },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      name: 'Renamed',
      columns: ['place'],
      notifications: { enabled: true },
    });
    expect((changed.body as Body).updatedAt > list.updatedAt).toBe(true);
    expect((await patch(list.id, { name: taken.toLowerCase() })).body).toMatchObject({
      code: 'LIST_NAME_TAKEN',
    });
    // The old name is free again, the new one taken.
    expect((await post({ name: list.name, type: 'STATIC' })).status).toBe(201);
    expect((await post({ name: 'renamed', type: 'STATIC' })).status).toBe(409);
    // Only a case change: the same list keeps its name.
    expect((await patch(list.id, { name: 'RENAMED' })).body).toMatchObject({ name: 'RENAMED' });
  });

  it('lets only the creator change shared; the same value is not a change', async () => {
    const list = (await post({ name: uniqueName(), type: 'STATIC', shared: true })).body as Body;
    expect((await patch(list.id, { shared: true, columns: ['url'] }, BOB)).status).toBe(200);
    const refused = await patch(list.id, { shared: false }, BOB);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'FORBIDDEN', message: "Only the list's creator may do this" });
    expect((await patch(list.id, { shared: false })).body).toMatchObject({ shared: false });
    // Now private: bob cannot see it at all.
    expect((await patch(list.id, { columns: ['url'] }, BOB)).status).toBe(404);
  });

  it('refuses filters on a static list, notifications on a smart one, a type, and an empty change', async () => {
    const staticList = (await post({ name: uniqueName(), type: 'STATIC' })).body as Body;
    const smart = (await post({ name: uniqueName(), type: 'SMART', filters: { places: ['Brugge'] } }))
      .body as Body;
    expect((await patch(staticList.id, { filters: { countries: ['BE'] } })).status).toBe(400);
    expect((await patch(smart.id, { notifications: { enabled: true } })).status).toBe(400);
    expect((await patch(smart.id, { type: 'STATIC' })).body).toMatchObject({ details: [{ path: 'type' }] });
    expect((await patch(smart.id, {})).status).toBe(400);
  });

  it('re-evaluates changed filters: new matches enter NEW, NEW ones that stop matching leave, dismissed ones stay', async () => {
    const list = (
      await post({ name: uniqueName(), type: 'SMART', filters: { activities: ['62'], places: ['Gent'] } })
    ).body as Body;
    await move(list.id, [
      { country: 'BE', companyNumber: COMPANIES[0]!.companyNumber, state: 'SAVED' },
      { country: 'BE', companyNumber: COMPANIES[1]!.companyNumber, state: 'ARCHIVED' },
    ]);
    // Now construction and Brugge software: 2–5 leave (NEW), 0 and 1 stay, 6–9 enter.
    const changed = await patch(list.id, { filters: { activities: ['41', '6202'] } });
    expect(changed.body).toMatchObject({ amountOfCompanies: 5, newResults: 4 });
    expect(await members(list.id, 'NEW')).toEqual(numbers(6, 7, 8, 9));
    expect(await members(list.id, 'SAVED')).toEqual(numbers(0));
    expect(await members(list.id, 'ARCHIVED')).toEqual(numbers(1));
    const stored = (await storedList(ALICE.accountId, list.id))!;
    expect(stored.contacts).toBe(0 + 1); // company 0 has none, 9 has one; 1 (one contact) is ARCHIVED
  });
});

describe('PATCH /v1/lists/{id}/companies', () => {
  it('moves companies between states with counters in the same write, and fails the others per item', async () => {
    const list = (await post({ name: uniqueName(), type: 'SMART', filters: { activities: ['62'] } }))
      .body as Body;
    const [a, b, c] = [COMPANIES[1]!, COMPANIES[3]!, COMPANIES[5]!];
    const response = await move(list.id, [
      { state: 'SAVED', companyNumber: a.companyNumber, country: 'be' },
      { country: 'BE', companyNumber: b.companyNumber, state: 'ARCHIVED' },
      { country: 'BE', companyNumber: c.companyNumber, state: 'SAVED', note: 'ignored' },
      { country: 'BE', companyNumber: c.companyNumber, state: 'SAVED' },
      { country: 'BE', companyNumber: COMPANIES[6]!.companyNumber, state: 'SAVED' },
      { country: 'BE', companyNumber: '0403170702', state: 'SAVED' },
      { country: 'DE', companyNumber: '1', state: 'ARCHIVED' },
    ]);
    expect(response.status).toBe(200);
    expect(response.raw.startsWith('{"updated":3,"failed":[')).toBe(true);
    expect((response.body as Body).failed).toEqual([
      {
        parameters: { country: 'BE', companyNumber: COMPANIES[6]!.companyNumber, state: 'SAVED' },
        message: 'Company not in list',
      },
      {
        parameters: { country: 'BE', companyNumber: '0403170702', state: 'SAVED' },
        message: 'Invalid company number',
      },
      {
        parameters: { country: 'DE', companyNumber: '1', state: 'ARCHIVED' },
        message: 'Invalid country code',
      },
    ]);
    expect((await get(list.id)).body).toMatchObject({ amountOfCompanies: 6, newResults: 4 });
    // A move to the state it has is neither counted nor failed; SAVED ↔ ARCHIVED both ways.
    const again = await move(list.id, [
      { country: 'BE', companyNumber: a.companyNumber, state: 'SAVED' },
      { country: 'BE', companyNumber: b.companyNumber, state: 'SAVED' },
      { country: 'BE', companyNumber: c.companyNumber, state: 'ARCHIVED' },
    ]);
    expect(again.body).toEqual({ updated: 2, failed: [] });
    expect(await members(list.id, 'ARCHIVED')).toEqual([c.companyNumber]);
    const stored = (await storedList(ALICE.accountId, list.id))!;
    expect(stored.counts).toEqual({ NEW: 4, SAVED: 2, ARCHIVED: 1 });
    // Contacts of non-archived companies: 1, 3, 5 and 9 each have one; 5 is archived.
    expect(stored.contacts).toBe(3);
  });

  it('answers 503 rather than leave a company out when it changes under every attempt', async () => {
    const list = (await post({ name: uniqueName(), type: 'SMART', filters: { activities: ['62'] } }))
      .body as Body;
    // Every move's member condition fails, as when an import counts its contacts anew each time.
    const name = `stale-${Math.random()}`;
    dynamodb().middlewareStack.add(
      (next, context) => async (args) => {
        if (!/^TransactWrite/.test(context.commandName ?? '')) return next(args);
        const actions = (args.input as { TransactItems: unknown[] }).TransactItems;
        throw Object.assign(new Error('Transaction cancelled'), {
          name: 'TransactionCanceledException',
          CancellationReasons: actions.map((_, i) => ({ Code: i === 0 ? 'ConditionalCheckFailed' : 'None' })),
        });
      },
      { step: 'initialize', name },
    );
    try {
      const response = await move(list.id, [
        { country: 'BE', companyNumber: COMPANIES[1]!.companyNumber, state: 'SAVED' },
      ]);
      expect(response.status).toBe(503);
      expect((response.body as Body).code).toBe('UNAVAILABLE');
      expect(response.headers['Retry-After']).toMatch(/^\d+$/);
    } finally {
      dynamodb().middlewareStack.remove(name);
    }
    expect((await storedList(ALICE.accountId, list.id))!.counts).toMatchObject({ SAVED: 0 });
  });

  it.each([
    [[{ country: 'BE', companyNumber: '0403170701', state: 'NEW' }], 'companies[0].state'],
    [[{ country: 'BE', companyNumber: '0403170701' }], 'companies[0].state'],
    [[], 'companies'],
    [Array.from({ length: 101 }, () => ({ state: 'SAVED' })), 'companies'],
  ])('refuses a bad request with 400 (%#)', async (companies, path) => {
    const list = (await post({ name: uniqueName(), type: 'STATIC' })).body as Body;
    const response = await move(list.id, companies);
    expect(response.status).toBe(400);
    expect((response.body as Body).details[0].path).toBe(path);
  });
});

describe('DELETE /v1/lists/{id}', () => {
  it('meets changes of the same list at the same moment without a 500: deleted once, the change 200 or 404', async () => {
    for (let i = 0; i < 10; i++) {
      const list = (await post({ name: uniqueName(), type: 'STATIC' })).body as Body;
      const columns = i % 2 === 0 ? ['country'] : ['place'];
      const [deleted, changed, again] = await Promise.all([
        remove(list.id),
        patch(list.id, { columns, name: uniqueName() }),
        remove(list.id),
      ]);
      expect([deleted.status, again.status].sort()).toEqual([204, 404]);
      expect([200, 404]).toContain(changed.status);
      expect((await get(list.id)).status).toBe(404);
    }
  });

  it('answers 204, the list is gone at once, and the clean-up leaves nothing behind', async () => {
    const list = (await post({ name: uniqueName(), type: 'SMART', filters: { countries: ['BE'] } }))
      .body as Body;
    expect(list.amountOfCompanies).toBe(10);
    const response = await remove(list.id);
    expect(response.status).toBe(204);
    expect(response.raw).toBe('');
    expect((await get(list.id)).status).toBe(404);
    const page = await call(getListCompanies, {
      resource: '/v1/lists/{id}/companies',
      pathParameters: { id: String(list.id) },
    });
    expect(page.status).toBe(404);
    // The name is free at once.
    expect((await post({ name: list.name, type: 'STATIC' })).status).toBe(201);
    expect(await cleanUpDeletedLists()).toBeGreaterThanOrEqual(1);
    for (const pk of keys.listPartitions(ALICE.accountId, list.id, ['NEW', 'SAVED', 'ARCHIVED'])) {
      const left = await queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
      });
      expect(left).toEqual([]);
    }
    expect(await cleanUpDeletedLists()).toBe(0);
  });

  it('lets only the creator delete: 403 for another who sees it, 404 for one who does not', async () => {
    const shared = (await post({ name: uniqueName(), type: 'STATIC', shared: true })).body as Body;
    expect((await remove(shared.id, BOB)).body).toMatchObject({ code: 'FORBIDDEN' });
    expect((await remove(shared.id, CAROL)).status).toBe(404);
    expect((await get(shared.id)).status).toBe(200);
  });

  it('answers every method on an invisible or unknown list exactly like a missing one', async () => {
    const privateList = (await post({ name: uniqueName(), type: 'STATIC' })).body as Body;
    for (const id of [privateList.id, 999_999]) {
      const answers = [
        await get(id, BOB),
        await patch(id, { columns: ['url'] }, BOB),
        await remove(id, BOB),
        await move(id, [{ country: 'BE', companyNumber: COMPANIES[0]!.companyNumber, state: 'SAVED' }], BOB),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(404);
        expect(answer.body).toMatchObject({ code: 'NOT_FOUND', message: 'List not found' });
      }
    }
  });
});

describe('smart lists follow imported data', () => {
  it('lets a changed company enter as NEW and leave while NEW; a SAVED one stays', async () => {
    const list = (await post({ name: uniqueName(), type: 'SMART', filters: { places: ['Oostende'] } }))
      .body as Body;
    expect(list.amountOfCompanies).toBe(0);
    // Companies 2 and 4 move to Oostende: they enter as NEW.
    await importRecords([
      { ...COMPANIES[2]!, place: 'Oostende' },
      { ...COMPANIES[4]!, place: 'Oostende' },
    ]);
    expect(await members(list.id, 'NEW')).toEqual(numbers(2, 4));
    expect((await get(list.id)).body).toMatchObject({ amountOfCompanies: 2, newResults: 2 });
    await move(list.id, [{ country: 'BE', companyNumber: COMPANIES[2]!.companyNumber, state: 'SAVED' }]);
    // Both move back to Gent: the NEW one leaves, the SAVED one stays.
    await importRecords([COMPANIES[2]!, COMPANIES[4]!]);
    expect(await members(list.id)).toEqual(numbers(2));
    expect((await get(list.id)).body).toMatchObject({ amountOfCompanies: 1, newResults: 0 });
    // The same file again derives nothing: no change.
    await importRecords([COMPANIES[2]!, COMPANIES[4]!]);
    expect((await get(list.id)).body).toMatchObject({ amountOfCompanies: 1, newResults: 0 });
  });

  it('leaves the flips of a run cut off before its end to the next run, applied once', async () => {
    const list = (await post({ name: uniqueName(), type: 'SMART', filters: { places: ['Knokke'] } }))
      .body as Body;
    async function* lines() {
      yield JSON.stringify({ ...COMPANIES[3]!, place: 'Knokke' });
    }
    // The run ends before its completion (as if killed there): the flip waits.
    await asImportWorkers(() =>
      importCompanies(lines(), { asOf: '2026-11-21', complete: async () => undefined }),
    );
    expect((await get(list.id)).body).toMatchObject({ amountOfCompanies: 0 });
    // The next run (here, of nothing new) applies it; a third finds nothing left.
    await importRecords([COMPANIES[3]!].map((c) => ({ ...c, place: 'Knokke' })));
    expect((await get(list.id)).body).toMatchObject({ amountOfCompanies: 1, newResults: 1 });
    expect(await asImportWorkers(applySmartListFlips)).toEqual({ entered: 0, left: 0 });
  });

  it('evaluates new companies against the smart lists they could touch', async () => {
    const list = (await post({ name: uniqueName(), type: 'SMART', filters: { activities: ['4399'] } }))
      .body as Body;
    await importRecords([company(50, ['43999'], 'Gent', 2), company(51, ['43210'], 'Gent')]);
    expect((await get(list.id)).body).toMatchObject({ amountOfCompanies: 1, newResults: 1 });
    expect((await storedList(ALICE.accountId, list.id))!.contacts).toBe(2);
  });
});
