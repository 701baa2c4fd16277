/**
 * The list endpoints (contract §7) called with real REST proxy events, as the list tests call them:
 * as ALICE unless told, beside BOB (her colleague at acme) and CAROL (of another account); lists made
 * straight in the store, and the import run as its workers run it.
 */
import { handler as addListCompanies } from '../../functions/add-list-companies';
import { handler as createList } from '../../functions/create-list';
import { handler as deleteList } from '../../functions/delete-list';
import { handler as getList } from '../../functions/get-list';
import { handler as getListCompanies } from '../../functions/get-list-companies';
import { handler as getListContacts } from '../../functions/get-list-contacts';
import { handler as getLists } from '../../functions/get-lists';
import { handler as moveListCompanies } from '../../functions/move-list-companies';
import { handler as updateList } from '../../functions/update-list';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { createList as storeList } from '../../lib/lists/store/lists';
import type { ListType } from '../../lib/lists/store/model';
import type { Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';
import { ALICE, call } from './events';
import { asImportWorkers } from './import-access';
import { importRecords } from './records';
import { useFreshTable } from './table';

export const BOB: Caller = { accountId: 'acme', userEmail: 'bob@acme.example', scopes: [...SCOPES] };
export const CAROL: Caller = { accountId: 'globex', userEmail: 'carol@globex.example', scopes: [...SCOPES] };

/** A parsed answer's body, read field by field as the contract names them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;

/** Imports the records as the import's workers would (their declared storage access), none rejected. */
export async function importAsWorkers(records: CompanyRecordInput[]): Promise<void> {
  const summary = await asImportWorkers(() => importRecords(records));
  expect(summary.rejected).toBe(0);
}

/** A fresh table for the test file (`useFreshTable`) holding these companies, imported before its tests. */
export function useTableWith(records: CompanyRecordInput[]): void {
  useFreshTable();
  beforeAll(() => importAsWorkers(records));
}

/** A list of `type` made in the store (no smart list evaluated), shared unless told; its id. */
export async function newList(type: ListType, createdBy: Caller = ALICE, shared = true): Promise<number> {
  const list = await storeList({
    accountId: createdBy.accountId,
    name: `${type} list ${Math.random()}`,
    type,
    columns: ['country', 'vatNumber', 'activities'],
    shared,
    notificationsEnabled: false,
    createdBy: createdBy.userEmail,
    createdAt: new Date().toISOString(),
    filters: type === 'SMART' ? { countries: ['BE'] } : null,
  });
  return list.id;
}

/** A list name no other test uses. */
export const uniqueName = () => `List ${Math.random()}`;

/** `POST /v1/lists`. */
export const postList = (body: unknown, caller: Caller = ALICE) =>
  call(createList, { method: 'POST', resource: '/v1/lists', body, caller });

/** A call on one list: `resource` with the list's id as its path parameter. */
const onList = (id: number | string, resource: string, caller: Caller) => ({
  resource,
  pathParameters: { id: String(id) },
  caller,
});

/** `GET /v1/lists/{id}`. */
export const fetchList = (id: number | string, caller: Caller = ALICE) =>
  call(getList, onList(id, '/v1/lists/{id}', caller));

/** `PATCH /v1/lists/{id}`. */
export const patchList = (id: number | string, body: unknown, caller: Caller = ALICE) =>
  call(updateList, { method: 'PATCH', body, ...onList(id, '/v1/lists/{id}', caller) });

/** `DELETE /v1/lists/{id}`. */
export const removeList = (id: number | string, caller: Caller = ALICE) =>
  call(deleteList, { method: 'DELETE', ...onList(id, '/v1/lists/{id}', caller) });

/** `PUT /v1/lists/{id}/companies`, with these headers if given. */
export const putCompanies = (
  id: number | string,
  companies: unknown,
  caller: Caller = ALICE,
  headers?: Record<string, string>,
) =>
  call(addListCompanies, {
    method: 'PUT',
    body: { companies },
    ...onList(id, '/v1/lists/{id}/companies', caller),
    ...(headers ? { headers } : {}),
  });

/** `PATCH /v1/lists/{id}/companies`. */
export const moveCompanies = (id: number | string, companies: unknown, caller: Caller = ALICE) =>
  call(moveListCompanies, {
    method: 'PATCH',
    body: { companies },
    ...onList(id, '/v1/lists/{id}/companies', caller),
  });

/** `GET /v1/lists/{id}/companies`, with this query if given. */
export const listCompanies = (id: number | string, query?: Record<string, string>, caller: Caller = ALICE) =>
  call(getListCompanies, { ...(query ? { query } : {}), ...onList(id, '/v1/lists/{id}/companies', caller) });

/** `GET /v1/lists/{id}/contacts` with this query. */
export const listContacts = (
  id: number | string,
  query: Record<string, string> = {},
  caller: Caller = ALICE,
) => call(getListContacts, { query, ...onList(id, '/v1/lists/{id}/contacts', caller) });

/** `GET /v1/lists` with this query. */
export const listsOverview = (query: Record<string, string> = {}, caller: Caller = ALICE) =>
  call(getLists, { resource: '/v1/lists', query, caller });

/** The company numbers of the list's companies in state `type` (every state: ALL), sorted. */
export async function memberNumbers(id: number, type = 'ALL', caller: Caller = ALICE): Promise<string[]> {
  const body = (await listCompanies(id, { type, limit: '500' }, caller)).body as Body;
  return (body.data as Body[]).map((d) => d.identifier.companyNumber as string).sort();
}
