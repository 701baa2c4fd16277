/**
 * Contact counts folded into a list's members (lib/lists/store/contact-counts.ts) against DynamoDB
 * Local, beside what else writes them: smart-list flips in flight, a user's addition to a static list,
 * a `cc` map past its limit. The map itself: list-contact-counts.test.ts.
 */
import { MAP_LIMIT, updateContactCounts } from '../../lib/lists/store/contact-counts';
import { getList } from '../../lib/lists/store/lists';
import { addMembers, getAllMembers } from '../../lib/lists/store/members';
import { flipMembers } from '../../lib/lists/store/smart-flips';
import { beforeFirstCall, firstCallSent, recordCalls } from '../support/dynamodb-calls';
import { ALICE } from '../support/events';
import { company, expectExact, newList, withNew } from '../support/list-store';
import { useFreshTable } from '../support/table';

useFreshTable();

describe("a list's contact-count folds", () => {
  it('counts contacts anew only once the flips in flight have landed', async () => {
    const listId = await newList();
    await withNew(listId, [1, 2], 1);
    let counting: Promise<number> | undefined;
    const stop = beforeFirstCall(/^BatchWriteItem/, async () => {
      // Company 1 is leaving, company 3 entering with 1 contact: both now have 7.
      counting = updateContactCounts(ALICE.accountId, listId, [
        { ref: company(1), contacts: 7 },
        { ref: company(3), contacts: 7 },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
    try {
      await flipMembers(
        ALICE.accountId,
        listId,
        [{ ref: company(3), contacts: 1 }],
        [company(1)],
        new Date(),
      );
    } finally {
      stop();
    }
    expect(await counting).toBe(1);
    await expectExact(listId);
    expect(await getList(ALICE.accountId, listId)).toMatchObject({ contacts: 8, counts: { NEW: 2 } });
  });

  it('writes counts into members holding 0 contacts and folds a full map back, without a transaction', async () => {
    const listId = await newList();
    await withNew(listId, [1, 2, 3], 0);
    const zero = [1, 2, 3].map((n) => ({ ref: company(n), contacts: 5 }));
    const { result, calls } = await recordCalls(() => updateContactCounts(ALICE.accountId, listId, zero));
    expect(result).toBe(3);
    expect(calls.map((c) => c.command)).not.toContain('TransactWriteItems');
    expect((await getAllMembers(ALICE.accountId, listId)).map((m) => m.storedContacts)).toEqual([5, 5, 5]);
    await expectExact(listId);
    // Past MAP_LIMIT entries, every count of the list goes back into its member.
    const many = Array.from({ length: MAP_LIMIT + 10 }, (_, i) => 100 + i);
    await withNew(listId, many, 1);
    await updateContactCounts(
      ALICE.accountId,
      listId,
      many.slice(0, MAP_LIMIT - 5).map((n) => ({ ref: company(n), contacts: 2 })),
    );
    expect(Object.keys((await getList(ALICE.accountId, listId))!.contactCounts)).toHaveLength(MAP_LIMIT - 5);
    const folding = await recordCalls(() =>
      updateContactCounts(
        ALICE.accountId,
        listId,
        many.slice(MAP_LIMIT - 5).map((n) => ({ ref: company(n), contacts: 3 })),
      ),
    );
    expect(folding.result).toBe(15);
    expect(folding.calls.map((c) => c.command)).not.toContain('TransactWriteItems');
    expect((await getList(ALICE.accountId, listId))!.contactCounts).toEqual({});
    await expectExact(listId);
    expect(await getList(ALICE.accountId, listId)).toMatchObject({
      contacts: 15 + 2 * (MAP_LIMIT - 5) + 3 * 15,
    });
  });

  it('holds an addition to a static list while counts are folded into its members, then adds', async () => {
    const list = { id: await newList('STATIC') };
    await addMembers(ALICE.accountId, list.id, [{ ref: company(1), contacts: 0 }], {
      state: 'SAVED',
      now: new Date(),
    });
    let adding: ReturnType<typeof addMembers> | undefined;
    const stop = beforeFirstCall(/^BatchWriteItem/, async () => {
      const writing = firstCallSent(/^TransactWriteItems/);
      adding = addMembers(ALICE.accountId, list.id, [{ ref: company(2), contacts: 3 }], {
        state: 'SAVED',
        now: new Date(),
        onlyType: 'STATIC',
      });
      await writing;
    });
    try {
      // Company 1 holds 0 contacts: its new count is written into its member (a fold).
      expect(await updateContactCounts(ALICE.accountId, list.id, [{ ref: company(1), contacts: 4 }])).toBe(1);
    } finally {
      stop();
    }
    expect((await adding)!.added).toEqual([company(2)]);
    await expectExact(list.id);
    expect(await getList(ALICE.accountId, list.id)).toMatchObject({ contacts: 7, counts: { SAVED: 2 } });
  });
});
