/**
 * What the list store's tests (smart-list flips, contact-count folds) share: lists and members written
 * straight through lib/lists/store as ALICE, and the check that a list's counters, order items and
 * flips in flight agree with its members.
 */
import { belgianCheckDigits, companyKey, type CompanyRef } from '../../lib/companies/identifiers';
import { INTENT, intentOf } from '../../lib/lists/store/flip-intents';
import { createList, getList } from '../../lib/lists/store/lists';
import { addMembers, getAllMembers } from '../../lib/lists/store/members';
import { MEMBER_STATES, type MemberState } from '../../lib/lists/store/model';
import { getItem, queryAll } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { listOrderOfKey } from '../../lib/storage/keys';
import { ALICE } from './events';

/** Belgian company n (06000000 + n, with its check digits). */
export const company = (n: number): CompanyRef => {
  const firstEight = `06${String(n).padStart(6, '0')}`;
  return { country: 'BE', companyNumber: firstEight + belgianCheckDigits(firstEight) };
};

/** A new list of ALICE's, shared, without notifications; a smart one filters on Belgium. */
export async function newList(type: 'SMART' | 'STATIC' = 'SMART'): Promise<number> {
  const list = await createList({
    accountId: ALICE.accountId,
    name: `${type} ${Math.random()}`,
    type,
    columns: [],
    shared: true,
    notificationsEnabled: false,
    createdBy: ALICE.userEmail,
    createdAt: new Date().toISOString(),
    filters: type === 'SMART' ? { countries: ['BE'] } : null,
  });
  return list.id;
}

/** Companies n… in the list as NEW, with `contacts` each. */
export async function withNew(listId: number, numbers: number[], contacts = 2) {
  await addMembers(
    ALICE.accountId,
    listId,
    numbers.map((n) => ({ ref: company(n), contacts })),
    { state: 'NEW', now: new Date() },
  );
}

/**
 * The list's counters against its members and order items, read one by one: companies per state,
 * contacts of the non-archived ones (a `cc` entry counting instead of the member's own), every member
 * with exactly one order item in its state's partition, holding its count, and no order item without
 * a member, no flips in flight. Returns the members' states by company.
 */
export async function expectExact(listId: number): Promise<Map<string, MemberState>> {
  const list = (await getList(ALICE.accountId, listId))!;
  const members = await getAllMembers(ALICE.accountId, listId);
  const counts = Object.fromEntries(
    MEMBER_STATES.map((s) => [s, members.filter((m) => m.state === s).length]),
  );
  const contacts = members
    .filter((m) => m.state !== 'ARCHIVED')
    .reduce((n, m) => n + (list.contactCounts[companyKey(m.ref)] ?? m.storedContacts), 0);
  expect({ counts: list.counts, contacts: list.contacts }).toEqual({ counts, contacts });
  for (const state of MEMBER_STATES) {
    const order = await orderItems(listId, state);
    // Each with the count its member holds.
    expect(
      order
        .map((item) => `${companyKey(listOrderOfKey(item['sk'] as string).ref)}:${String(item['contacts'])}`)
        .sort(),
    ).toEqual(
      members
        .filter((m) => m.state === state)
        .map((m) => `${companyKey(m.ref)}:${m.storedContacts}`)
        .sort(),
    );
  }
  expect(await intentOn(listId)).toBeNull();
  return new Map(members.map((m) => [companyKey(m.ref), m.state]));
}

/** The list's order items in `state`'s partition. */
export const orderItems = (listId: number, state: MemberState) =>
  queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.listOrderPartition(ALICE.accountId, listId, state) },
  });

/** The flips in flight on the list (its intent), read consistently; null when none. */
export async function intentOn(listId: number) {
  return intentOf(
    await getItem(tableName(), keys.list(ALICE.accountId, listId), {
      projection: [INTENT],
      consistent: true,
    }),
  );
}
