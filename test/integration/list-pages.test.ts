/**
 * What a list page costs whatever the offset (issue 8: ≤ 3 round trips; a deep offset must not read
 * every order item before it). A STATIC list of 10,000 companies, read at offset 9,000.
 */
import { handler as getListCompanies } from '../../functions/get-list-companies';
import { handler as getListContacts } from '../../functions/get-list-contacts';
import { belgianCheckDigits, type CompanyRef } from '../../lib/companies/identifiers';
import { createList } from '../../lib/lists/store/lists';
import { addMembers } from '../../lib/lists/store/members';
import { batchPut } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { recordCalls, queriedItems } from '../support/dynamodb-calls';
import { ALICE, call } from '../support/events';
import { useFreshTable } from '../support/table';

useFreshTable();

const SIZE = 10_000;
const ref = (i: number): CompanyRef => {
  const firstEight = `05${String(i).padStart(6, '0')}`;
  return { country: 'BE', companyNumber: firstEight + belgianCheckDigits(firstEight) };
};
/** Company i has 1 + i mod 3 contacts, numbered from 100,000 + 10 i. */
const contactsOf = (i: number) =>
  Array.from({ length: 1 + (i % 3) }, (_, k) => ({
    contactId: 100_000 + 10 * i + k,
    firstName: 'Ann',
    lastName: `Member${String(i).padStart(5, '0')}`,
    jobTitle: null,
  }));

let listId = 0;

beforeAll(async () => {
  // The company items a page reads (name, place, contacts), as the import stores them.
  await batchPut(
    tableName(),
    Array.from({ length: SIZE }, (_, i) => ({
      ...keys.company(ref(i)),
      entity: 'Company',
      name: `Member ${i} BV`,
      place: 'Gent',
      contacts: JSON.stringify(contactsOf(i)),
    })),
  );
  const list = await createList({
    accountId: ALICE.accountId,
    name: 'Ten thousand',
    type: 'STATIC',
    columns: [],
    shared: false,
    notificationsEnabled: false,
    createdBy: ALICE.userEmail,
    createdAt: new Date().toISOString(),
    filters: null,
  });
  listId = list.id;
  await addMembers(
    ALICE.accountId,
    listId,
    Array.from({ length: SIZE }, (_, i) => ({ ref: ref(i), contacts: contactsOf(i).length })),
    { state: 'SAVED', now: new Date('2026-11-21T10:00:00.000Z') },
  );
}, 120_000);

const page = (handler: typeof getListCompanies, resource: string, query: Record<string, string>) =>
  call(handler, { resource, pathParameters: { id: String(listId) }, query, caller: ALICE });

describe('a page of a 10,000-company list', () => {
  it('at offset 9,000 costs 3 round trips and reads the 1,000 order items after it, not the 9,000 before', async () => {
    for (const type of ['ALL', 'SAVED']) {
      const { result, calls } = await recordCalls(() =>
        page(getListCompanies, '/v1/lists/{id}/companies', { type, offset: '9000', limit: '4' }),
      );
      const body = result.body as { data: Array<{ identifier: CompanyRef }>; pagination: unknown };
      // Same matchedSince for all: by number, so positions 9,000–9,003 are companies 9,000–9,003.
      expect(body.data.map((d) => d.identifier.companyNumber)).toEqual(
        [9000, 9001, 9002, 9003].map((i) => ref(i).companyNumber),
      );
      expect(body.pagination).toEqual({ limit: 4, offset: 9000, total: SIZE });
      expect(calls).toHaveLength(3);
      expect(queriedItems(calls)).toBe(1000);
    }
  });

  it('at offset 100 reads the 104 order items up to the page', async () => {
    const { result, calls } = await recordCalls(() =>
      page(getListCompanies, '/v1/lists/{id}/companies', { offset: '100', limit: '4' }),
    );
    const body = result.body as { data: Array<{ identifier: CompanyRef }> };
    expect(body.data.map((d) => d.identifier.companyNumber)).toEqual(
      [100, 101, 102, 103].map((i) => ref(i).companyNumber),
    );
    expect(calls).toHaveLength(3);
    expect(queriedItems(calls)).toBe(104);
  });

  it('of contacts at the deepest offset costs 3 round trips and reads from the nearer end', async () => {
    // Contacts: company i holds 1 + i mod 3 of them, 19,999 in all; offset 10,000 (the contract's largest)
    // is read from the end: the companies of the last 9,999 contacts, about 5,000, each holding ≥ 1.
    const total = Array.from({ length: SIZE }, (_, i) => 1 + (i % 3)).reduce((a, b) => a + b, 0);
    const { result, calls } = await recordCalls(() =>
      page(getListContacts, '/v1/lists/{id}/contacts', { offset: '10000', limit: '5' }),
    );
    const body = result.body as { data: Array<{ identifier: { contactId: number } }>; pagination: unknown };
    expect(result.status).toBe(200);
    const all = Array.from({ length: SIZE }, (_, i) => contactsOf(i).map((c) => c.contactId)).flat();
    expect(body.data.map((d) => d.identifier.contactId)).toEqual(all.slice(10000, 10005));
    expect(body.pagination).toEqual({ limit: 5, offset: 10000, total });
    expect(calls).toHaveLength(3);
    expect(queriedItems(calls)).toBeLessThanOrEqual(total - 10000);
  });
});
