/**
 * Managing lists (contract §7.6) with real REST proxy events, against DynamoDB Local: create, change
 * and delete, a smart list evaluated at creation and on a filter change. State moves and smart lists
 * following the import: list-membership.test.ts.
 */
import { cleanUpDeletedLists as cleanUpAnyhow, cleanUpListsStorage } from '../../lib/lists/store/clean-up';
import { getList as storedList } from '../../lib/lists/store/lists';
import { withDeclaredAccess } from '../../lib/storage/access';
import { queryAll } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { LIST_KEYS } from '../support/contract';
import { ALICE } from '../support/events';
import {
  BOB,
  CAROL,
  removeList,
  fetchList,
  useTableWith,
  listCompanies,
  memberNumbers,
  moveCompanies,
  patchList,
  postList,
  type Body,
  uniqueName,
} from '../support/list-calls';
import { COMPANIES, numbers } from '../support/list-companies';

/** The clean-up as its Lambda runs it: every call checked against the worker's declaration. */
const cleanUpDeletedLists = () => withDeclaredAccess(cleanUpListsStorage, cleanUpAnyhow);

useTableWith(COMPANIES);

describe('POST /v1/lists', () => {
  it('creates a static list with the defaults, answers 201 with its Location', async () => {
    const response = await postList({ name: '  Prospects  ', type: 'STATIC' });
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
    expect((await fetchList(list.id)).body).toEqual(list);
  });

  it('gives one of two concurrent creates with one name (any case) the list, the other 409', async () => {
    const name = uniqueName();
    const answers = await Promise.all([
      postList({ name, type: 'STATIC' }),
      postList({ name: ` ${name.toUpperCase()} `, type: 'STATIC' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const refused = answers.find((a) => a.status === 409)!.body as Body;
    expect(refused).toMatchObject({ code: 'LIST_NAME_TAKEN' });
    // Another account may use the name.
    expect((await postList({ name, type: 'STATIC' }, CAROL)).status).toBe(201);
  });

  it('holds the companies matching a smart list’s filters at once, as NEW', async () => {
    const response = await postList({
      name: uniqueName(),
      type: 'SMART',
      shared: true,
      filters: { countries: ['be'], activities: ['62'], places: ['gent'] },
    });
    expect(response.status).toBe(201);
    const list = response.body as Body;
    expect(list).toMatchObject({ amountOfCompanies: 6, newResults: 6, notifications: { enabled: false } });
    expect(await memberNumbers(list.id, 'NEW')).toEqual(numbers(0, 1, 2, 3, 4, 5));
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
    const response = await postList(body);
    expect(response.status).toBe(400);
    expect((response.body as Body).details).toEqual([expect.objectContaining({ path })]);
  });
});

describe('PATCH /v1/lists/{id}', () => {
  it('changes what is sent, moves updatedAt, and keeps names unique', async () => {
    const taken = uniqueName();
    await postList({ name: taken, type: 'STATIC' });
    const list = (await postList({ name: uniqueName(), type: 'STATIC', shared: true })).body as Body;
    const changed = await patchList(list.id, {
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
    expect((await patchList(list.id, { name: taken.toLowerCase() })).body).toMatchObject({
      code: 'LIST_NAME_TAKEN',
    });
    // The old name is free again, the new one taken.
    expect((await postList({ name: list.name, type: 'STATIC' })).status).toBe(201);
    expect((await postList({ name: 'renamed', type: 'STATIC' })).status).toBe(409);
    // Only a case change: the same list keeps its name.
    expect((await patchList(list.id, { name: 'RENAMED' })).body).toMatchObject({ name: 'RENAMED' });
  });

  it('lets only the creator change shared; the same value is not a change', async () => {
    const list = (await postList({ name: uniqueName(), type: 'STATIC', shared: true })).body as Body;
    expect((await patchList(list.id, { shared: true, columns: ['url'] }, BOB)).status).toBe(200);
    const refused = await patchList(list.id, { shared: false }, BOB);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'FORBIDDEN', message: "Only the list's creator may do this" });
    expect((await patchList(list.id, { shared: false })).body).toMatchObject({ shared: false });
    // Now private: bob cannot see it at all.
    expect((await patchList(list.id, { columns: ['url'] }, BOB)).status).toBe(404);
  });

  it('refuses filters on a static list, notifications on a smart one, a type, and an empty change', async () => {
    const staticList = (await postList({ name: uniqueName(), type: 'STATIC' })).body as Body;
    const smart = (await postList({ name: uniqueName(), type: 'SMART', filters: { places: ['Brugge'] } }))
      .body as Body;
    expect((await patchList(staticList.id, { filters: { countries: ['BE'] } })).status).toBe(400);
    expect((await patchList(smart.id, { notifications: { enabled: true } })).status).toBe(400);
    expect((await patchList(smart.id, { type: 'STATIC' })).body).toMatchObject({
      details: [{ path: 'type' }],
    });
    expect((await patchList(smart.id, {})).status).toBe(400);
  });

  it('re-evaluates changed filters: new matches enter NEW, NEW ones that stop matching leave, dismissed ones stay', async () => {
    const list = (
      await postList({ name: uniqueName(), type: 'SMART', filters: { activities: ['62'], places: ['Gent'] } })
    ).body as Body;
    await moveCompanies(list.id, [
      { country: 'BE', companyNumber: COMPANIES[0]!.companyNumber, state: 'SAVED' },
      { country: 'BE', companyNumber: COMPANIES[1]!.companyNumber, state: 'ARCHIVED' },
    ]);
    // Now construction and Brugge software: 2–5 leave (NEW), 0 and 1 stay, 6–9 enter.
    const changed = await patchList(list.id, { filters: { activities: ['41', '6202'] } });
    expect(changed.body).toMatchObject({ amountOfCompanies: 5, newResults: 4 });
    expect(await memberNumbers(list.id, 'NEW')).toEqual(numbers(6, 7, 8, 9));
    expect(await memberNumbers(list.id, 'SAVED')).toEqual(numbers(0));
    expect(await memberNumbers(list.id, 'ARCHIVED')).toEqual(numbers(1));
    const stored = (await storedList(ALICE.accountId, list.id))!;
    expect(stored.contacts).toBe(0 + 1); // company 0 has none, 9 has one; 1 (one contact) is ARCHIVED
  });
});

describe('DELETE /v1/lists/{id}', () => {
  it('meets changes of the same list at the same moment without a 500: deleted once, the change 200 or 404', async () => {
    for (let i = 0; i < 10; i++) {
      const list = (await postList({ name: uniqueName(), type: 'STATIC' })).body as Body;
      const columns = i % 2 === 0 ? ['country'] : ['place'];
      const [deleted, changed, again] = await Promise.all([
        removeList(list.id),
        patchList(list.id, { columns, name: uniqueName() }),
        removeList(list.id),
      ]);
      expect([deleted.status, again.status].sort()).toEqual([204, 404]);
      expect([200, 404]).toContain(changed.status);
      expect((await fetchList(list.id)).status).toBe(404);
    }
  });

  it('answers 204, the list is gone at once, and the clean-up leaves nothing behind', async () => {
    const list = (await postList({ name: uniqueName(), type: 'SMART', filters: { countries: ['BE'] } }))
      .body as Body;
    expect(list.amountOfCompanies).toBe(10);
    const response = await removeList(list.id);
    expect(response.status).toBe(204);
    expect(response.raw).toBe('');
    expect((await fetchList(list.id)).status).toBe(404);
    expect((await listCompanies(list.id)).status).toBe(404);
    // The name is free at once.
    expect((await postList({ name: list.name, type: 'STATIC' })).status).toBe(201);
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
    const shared = (await postList({ name: uniqueName(), type: 'STATIC', shared: true })).body as Body;
    expect((await removeList(shared.id, BOB)).body).toMatchObject({ code: 'FORBIDDEN' });
    expect((await removeList(shared.id, CAROL)).status).toBe(404);
    expect((await fetchList(shared.id)).status).toBe(200);
  });

  it('answers every method on an invisible or unknown list exactly like a missing one', async () => {
    const privateList = (await postList({ name: uniqueName(), type: 'STATIC' })).body as Body;
    for (const id of [privateList.id, 999_999]) {
      const answers = [
        await fetchList(id, BOB),
        await patchList(id, { columns: ['url'] }, BOB),
        await removeList(id, BOB),
        await moveCompanies(
          id,
          [{ country: 'BE', companyNumber: COMPANIES[0]!.companyNumber, state: 'SAVED' }],
          BOB,
        ),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(404);
        expect(answer.body).toMatchObject({ code: 'NOT_FOUND', message: 'List not found' });
      }
    }
  });
});
