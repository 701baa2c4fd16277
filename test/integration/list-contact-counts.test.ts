/**
 * Contact counts the import changes live in the list item's `cc` map (store/contact-counts.ts): one
 * update per list, counted once when applied again, exact beside a user's moves, and the contacts
 * page answers from the map exactly as from the members.
 */
import { handler as getListContacts } from '../../functions/get-list-contacts';
import { belgianCheckDigits, companyKey, type CompanyRef } from '../../lib/companies/identifiers';
import { applyContactChanges } from '../../lib/lists/derive';
import { contactsChangedItem, updateContactCounts } from '../../lib/lists/store/contact-counts';
import { createList, getList } from '../../lib/lists/store/lists';
import { addMembers, getMembers } from '../../lib/lists/store/members';
import { moveMembers } from '../../lib/lists/store/moves';
import { batchPut } from '../../lib/storage/batch';
import { dynamodb, tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { beforeFirstCall, recordCalls } from '../support/dynamodb-calls';
import { ALICE, call } from '../support/events';
import { useFreshTable } from '../support/table';

useFreshTable();

const SIZE = 12;
const ref = (i: number): CompanyRef => {
  const firstEight = `07${String(i).padStart(6, '0')}`;
  return { country: 'BE', companyNumber: firstEight + belgianCheckDigits(firstEight) };
};
/** Contacts when the members were written, and now: some grow, some fall to 0, some rise from 0. */
const before = (i: number) => [1, 2, 0, 3][i % 4]!;
const now = (i: number) => [3, 0, 2, 3][i % 4]!;
const contactsOf = (i: number) =>
  Array.from({ length: now(i) }, (_, k) => ({
    contactId: 200_000 + 10 * i + k,
    firstName: 'Ann',
    lastName: `Member${String(i).padStart(2, '0')}`,
    jobTitle: null,
  }));
const refs = Array.from({ length: SIZE }, (_, i) => ref(i));

beforeAll(async () => {
  await batchPut(
    tableName(),
    refs.map((r, i) => ({
      ...keys.company(r),
      entity: 'Company',
      name: `Member ${i} BV`,
      place: 'Gent',
      contacts: JSON.stringify(contactsOf(i)),
    })),
  );
});

async function listWithMembers(others = 0): Promise<number> {
  const list = await createList({
    accountId: ALICE.accountId,
    name: `Counted ${Math.random()}`,
    type: 'STATIC',
    columns: [],
    shared: false,
    notificationsEnabled: false,
    createdBy: ALICE.userEmail,
    createdAt: new Date().toISOString(),
    filters: null,
  });
  await addMembers(
    ALICE.accountId,
    list.id,
    [
      ...refs.map((r, i) => ({ ref: r, contacts: before(i) })),
      ...Array.from({ length: others }, (_, i) => ({ ref: ref(1000 + i), contacts: 1 })),
    ],
    { state: 'SAVED', now: new Date('2026-11-21T10:00:00.000Z') },
  );
  return list.id;
}

const countsNow = refs.map((r, i) => ({ ref: r, contacts: now(i) }));
const sum = (n: (i: number) => number) => refs.reduce((total, _, i) => total + n(i), 0);

describe('contact counts in the list item', () => {
  it("writes a list's new counts in one update of its item, and counts them once when applied again", async () => {
    const listId = await listWithMembers();
    // Only members holding contacts: a member holding 0 is written itself (the page skips 0s).
    const counted = countsNow.filter((_, i) => before(i) > 0);
    const { result, calls } = await recordCalls(() => updateContactCounts(ALICE.accountId, listId, counted));
    expect(result).toBe(counted.filter((c) => c.contacts !== before(refs.indexOf(c.ref))).length);
    expect(calls.map((c) => c.command)).toEqual(['BatchGetItem', 'BatchGetItem', 'UpdateItem']);
    const list = (await getList(ALICE.accountId, listId))!;
    expect(list.contacts).toBe(sum((i) => (before(i) > 0 ? now(i) : 0)));
    // Members keep what they held; the list item's map says what counts.
    expect(list.contactCounts[companyKey(ref(1))]).toBe(0);
    const members = await getMembers(ALICE.accountId, listId, [ref(1)]);
    expect(members.get(companyKey(ref(1)))).toMatchObject({ contacts: 0, storedContacts: 2, mapped: true });
    // A resumed run applies the same notes again: nothing is written, nothing counted twice.
    const again = await recordCalls(() => updateContactCounts(ALICE.accountId, listId, counted));
    expect(again.result).toBe(0);
    expect(again.calls.map((c) => c.command)).toEqual(['BatchGetItem', 'BatchGetItem']);
    expect((await getList(ALICE.accountId, listId))!.contacts).toBe(list.contacts);
  });

  it('answers every contacts page of a list whose counts are in its map exactly, in 3 round trips', async () => {
    const listId = await listWithMembers();
    await updateContactCounts(ALICE.accountId, listId, countsNow);
    const list = (await getList(ALICE.accountId, listId))!;
    expect(Object.keys(list.contactCounts).length).toBeGreaterThan(0);
    // Same matchedSince for all: the list's order is by number, so company i's contacts come i-th.
    const all = refs.flatMap((_, i) => contactsOf(i).map((c) => c.contactId));
    expect(list.contacts).toBe(all.length);
    for (let offset = 0; offset <= all.length; offset++) {
      const { result, calls } = await recordCalls(() =>
        call(getListContacts, {
          resource: '/v1/lists/{id}/contacts',
          pathParameters: { id: String(listId) },
          query: { offset: String(offset), limit: '3' },
          caller: ALICE,
        }),
      );
      const body = result.body as { data: { identifier: { contactId: number } }[]; pagination: unknown };
      expect(body.data.map((d) => d.identifier.contactId)).toEqual(all.slice(offset, offset + 3));
      expect(body.pagination).toEqual({ limit: 3, offset, total: all.length });
      expect(calls.length).toBeLessThanOrEqual(3);
    }
  });

  it('keeps the counters exact when a user archives a member while its count changes', async () => {
    const listId = await listWithMembers();
    const target = ref(0); // 1 contact, 3 now
    let moved = false;
    const stop = beforeFirstCall(/^(UpdateItem|TransactWrite)/, async () => {
      moved = true;
      const member = (await getMembers(ALICE.accountId, listId, [target])).get(companyKey(target))!;
      await moveMembers(ALICE.accountId, listId, [{ member, to: 'ARCHIVED' }], new Date());
    });
    try {
      await updateContactCounts(ALICE.accountId, listId, countsNow);
    } finally {
      stop();
    }
    expect(moved).toBe(true);
    expect((await getList(ALICE.accountId, listId))!.contacts).toBe(sum(now) - now(0));
    // Back from ARCHIVED, it counts its number now.
    const member = (await getMembers(ALICE.accountId, listId, [target])).get(companyKey(target))!;
    expect(member).toMatchObject({ state: 'ARCHIVED', contacts: now(0) });
    await moveMembers(ALICE.accountId, listId, [{ member, to: 'SAVED' }], new Date());
    expect(await getList(ALICE.accountId, listId)).toMatchObject({
      contacts: sum(now),
      counts: { NEW: 0, SAVED: SIZE, ARCHIVED: 0 },
    });
  });

  it("the import's completion reads a small list's members by one Query and a large one's by key, exact beside a user's move", async () => {
    const small = await listWithMembers();
    // 12 changed among 112: cheaper by key (store/contact-counts.ts PARTITION_READ_FACTOR).
    const large = await listWithMembers(100);
    const target = ref(0); // 1 contact, 3 now
    const notes = () =>
      batchPut(tableName(), [
        ...refs.map((r) => contactsChangedItem(r, 'change-1')),
        ...refs.map((r, i) => ({ ...keys.filterProfile(r), c: now(i) })),
      ]);
    await notes();
    const [smallPartition] = keys.listPartitions(ALICE.accountId, small, []);
    const [largePartition] = keys.listPartitions(ALICE.accountId, large, []);
    const queried: string[] = [];
    let moved = false;
    const name = `move-after-partition-read-${Math.random()}`;
    // Between the Query of the small list's members and its update, a user archives one of them.
    dynamodb().middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const input = args.input as { ExpressionAttributeValues?: Record<string, { S?: string }> };
        const pk = input.ExpressionAttributeValues?.[':pk']?.S;
        if (context.commandName === 'QueryCommand' && pk) queried.push(pk);
        if (!moved && context.commandName === 'QueryCommand' && pk === smallPartition) {
          moved = true;
          const member = (await getMembers(ALICE.accountId, small, [target])).get(companyKey(target))!;
          await moveMembers(ALICE.accountId, small, [{ member, to: 'ARCHIVED' }], new Date());
        }
        return result;
      },
      { step: 'build', name },
    );
    try {
      await applyContactChanges();
    } finally {
      dynamodb().middlewareStack.remove(name);
    }
    expect(moved).toBe(true);
    // The small list's members by one Query (read again by key after the move), the large one's by key.
    expect(queried.filter((pk) => pk === smallPartition)).toHaveLength(1);
    expect(queried).not.toContain(largePartition);
    expect(await getList(ALICE.accountId, small)).toMatchObject({
      contacts: sum(now) - now(0),
      counts: { NEW: 0, SAVED: SIZE - 1, ARCHIVED: 1 },
    });
    expect((await getList(ALICE.accountId, large))!.contacts).toBe(sum(now) + 100);
    // The same notes again (a run cut off before it deleted them): nothing counted twice.
    await notes();
    expect(await applyContactChanges()).toBe(0);
    expect((await getList(ALICE.accountId, small))!.contacts).toBe(sum(now) - now(0));
    expect((await getList(ALICE.accountId, large))!.contacts).toBe(sum(now) + 100);
  });
});
