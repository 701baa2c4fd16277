/**
 * The watched lists the import derives events for (contract §12), on DynamoDB Local: the index
 * (`WATCHED_LISTS`) follows every path that turns notifications on or off (create, a pending create,
 * PATCH, delete); lists older than the index are filed by the backfill, which is idempotent and
 * records its run; and a company added to an already watched list is watched from that moment — its
 * very next update is an event (no cache of the lists' companies outlives a change of their members).
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { CompanyRef } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { backfillRan, backfillWatchedLists } from '../../lib/events/backfill';
import { getEvents } from '../../lib/events/feed';
import { watchedLists } from '../../lib/events/watched';
import type { BatchDerivation } from '../../lib/derivation/change';
import { deriveBatch } from '../../lib/import/derive';
import { importPartitionStorage } from '../../lib/import/storage-access';
import { withDeclaredAccess } from '../../lib/storage/access';
import { addCompanies } from '../../lib/lists/add-companies';
import { createOneList, deleteOneList, updateOneList } from '../../lib/lists/manage';
import { createList } from '../../lib/lists/store/lists';
import { dynamodb, tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import type { Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';
import { bareCompany, importRecords, withPeriod } from '../support/records';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(120_000);

const caller = (accountId: string): Caller => ({
  accountId,
  userEmail: `ops@${accountId}.example`,
  scopes: [...SCOPES],
});
const filed = async () => (await watchedLists()).lists;
const staticList = async (who: Caller, name: string, enabled: boolean) =>
  (await createOneList(who, { name, type: 'STATIC', notifications: { enabled } })).body.id;
const unfile = (accountId: string, listId: number) =>
  dynamodb().send(new DeleteCommand({ TableName: tableName(), Key: keys.watchedList(accountId, listId) }));

let number = 73_000_000;
const records = (n: number) => Array.from({ length: n }, () => bareCompany(number++));
const load = (rs: CompanyRecordInput[], derive?: BatchDerivation) =>
  importRecords(rs, derive ? { deriveBatch: derive } : {});
const refOf = (r: CompanyRecordInput) => ({ country: 'NL', companyNumber: r.companyNumber });
async function feed(who: Caller, after?: string) {
  return JSON.parse((await getEvents(who, { after, limit: 500 })).text) as {
    data: Array<{ data: { company: CompanyRef; lists: number[] } }>;
    next: string;
  };
}

describe('the index follows every path that turns notifications on or off', () => {
  it('files a list created watched, a pending one, one enabled by PATCH; unfiles on disable and delete', async () => {
    const ann = caller('paths');
    const created = await staticList(ann, 'Created watched', true);
    const off = await staticList(ann, 'Created off', false);
    const pending = await createList(
      {
        accountId: ann.accountId,
        name: 'Pending watched',
        type: 'STATIC',
        columns: [],
        shared: false,
        notificationsEnabled: true,
        createdBy: ann.userEmail,
        createdAt: new Date().toISOString(),
        filters: null,
      },
      { pending: true },
    );
    const smart = (
      await createOneList(ann, { name: 'Smart', type: 'SMART', filters: { countries: ['NL'] } } as never)
    ).body.id;
    const key = (id: number) => `${ann.accountId}#${id}`;
    expect(await filed()).toEqual(new Set([key(created), key(pending.id)]));

    await updateOneList(ann, off, { notifications: { enabled: true } });
    expect((await filed()).has(key(off))).toBe(true);
    await updateOneList(ann, created, { notifications: { enabled: false } });
    expect((await filed()).has(key(created))).toBe(false);
    await deleteOneList(ann, off);
    expect(await filed()).toEqual(new Set([key(pending.id)]));
    expect((await filed()).has(key(smart))).toBe(false);
  });
});

describe('the backfill of lists older than the index', () => {
  it('files every watched list missing, once, records its run, and their companies then have events', async () => {
    // This file's table was created by ensureTable, as every new table: no list there predates the index.
    expect(await backfillRan()).toBe(true);
    const bea = caller('older');
    const companies = records(3);
    await load(companies);
    const [a, b, off] = [
      await staticList(bea, 'Older one', true),
      await staticList(bea, 'Older two', true),
      await staticList(bea, 'Older, off', false),
    ];
    await addCompanies(bea, a, [refOf(companies[0]!)]);
    await addCompanies(bea, b, [refOf(companies[1]!)]);
    await addCompanies(bea, off, [refOf(companies[2]!)]);
    // As a stage from before the index: the entries and the record of a run are not there.
    await unfile(bea.accountId, a);
    await unfile(bea.accountId, b);
    await dynamodb().send(new DeleteCommand({ TableName: tableName(), Key: keys.watchedListsBackfill() }));
    expect(await backfillRan()).toBe(false);
    const start = await feed(bea);
    await load(withPeriod(companies, 2022));
    expect((await feed(bea, start.next)).data).toEqual([]);

    const first = await backfillWatchedLists();
    const again = await backfillWatchedLists();

    expect(first.added).toBe(2);
    expect(again.added).toBe(0);
    expect(again.watched).toBeGreaterThanOrEqual(2);
    expect(await backfillRan()).toBe(true);
    const lists = await filed();
    expect([a, b, off].map((id) => lists.has(`${bea.accountId}#${id}`))).toEqual([true, true, false]);
    const before = await feed(bea, start.next);
    await load(withPeriod(companies, 2023));
    const { data } = await feed(bea, before.next);
    expect(data.map((e) => [e.data.company.companyNumber, e.data.lists])).toEqual([
      [companies[0]!.companyNumber, [a]],
      [companies[1]!.companyNumber, [b]],
    ]);
  });
});

describe('a company added to a list already watched', () => {
  it('is in the event of its very next update', async () => {
    const cy = caller('added');
    const [first, second] = records(2);
    await load([first!, second!]);
    const id = await staticList(cy, 'Watched, growing', true);
    await addCompanies(cy, id, [refOf(first!)]);
    const start = await feed(cy);
    // The import has just read the list's companies (only the first).
    await load(withPeriod([first!], 2022));

    await addCompanies(cy, id, [refOf(second!)]);
    // The batch derivations under the import's storage declaration (its IAM policy on AWS).
    await load(withPeriod([second!], 2022), (changes) =>
      withDeclaredAccess(importPartitionStorage, () => deriveBatch(changes)),
    );

    const { data } = await feed(cy, start.next);
    expect(data.map((e) => e.data.company.companyNumber)).toEqual([
      first!.companyNumber,
      second!.companyNumber,
    ]);
  });
});
