/**
 * Smart-list flips (lib/lists/store/flip-intents.ts) against DynamoDB Local: members written in
 * batches, counters moved once per list, exact whatever lands in between (a user's move, a second
 * evaluation, a crash between claim and member writes, a deletion). The contact-count folds beside
 * them: list-contact-folds.test.ts.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { companyKey } from '../../lib/companies/identifiers';
import { cleanUpDeletedLists } from '../../lib/lists/store/clean-up';
import { INTENT } from '../../lib/lists/store/flip-intents';
import { moveListCompanies } from '../../lib/lists/manage';
import { deleteList, getList } from '../../lib/lists/store/lists';
import { getAllMembers, getMembers } from '../../lib/lists/store/members';
import { moveMembers } from '../../lib/lists/store/moves';
import { flipLists, flipMembers } from '../../lib/lists/store/smart-flips';
import { ensureSmartCount } from '../../lib/lists/store/smart-holds';
import { dynamodb, tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { beforeFirstCall, firstCallSent, recordCalls } from '../support/dynamodb-calls';
import { ALICE } from '../support/events';
import { company, expectExact, intentOn, newList, orderItems, withNew } from '../support/list-store';
import { useFreshTable } from '../support/table';

useFreshTable();

const key = companyKey;

describe("a smart list's flips", () => {
  it("writes the flips of several lists in shared batches, each list's counters moved by one update", async () => {
    const [first, second] = [await newList(), await newList()];
    await withNew(first, [4, 5], 1);
    await ensureSmartCount(ALICE.accountId); // else the first claim sums the account's lists first
    const entering = [1, 2, 3].map((n) => ({ ref: company(n), contacts: n }));
    const { result, calls } = await recordCalls(() =>
      flipLists(
        [
          // Named twice: one batch may not write an item twice.
          {
            accountId: ALICE.accountId,
            listId: first,
            entering: [...entering, entering[0]!],
            stopping: [company(4), company(5), company(4)],
          },
          { accountId: ALICE.accountId, listId: second, entering, stopping: [] },
        ],
        new Date(),
      ),
    );
    expect(result).toEqual({ entered: 6, left: 2 });
    // Lists read, then members; a claim per list (with its account's count, one after the other); 16
    // member and order items in one batch; a release per list.
    expect(calls.map((c) => c.command).join(' ')).toBe(
      'BatchGetItem BatchGetItem TransactWriteItems TransactWriteItems BatchWriteItem UpdateItem UpdateItem',
    );
    expect(await getList(ALICE.accountId, first)).toMatchObject({ contacts: 6, counts: { NEW: 3 } });
    await expectExact(first);
    await expectExact(second);
  });

  it('counts the flips of an evaluation applied again (a resumed import) once', async () => {
    const listId = await newList();
    const entering = [1, 2].map((n) => ({ ref: company(n), contacts: n }));
    expect(await flipMembers(ALICE.accountId, listId, entering, [], new Date())).toEqual({
      entered: 2,
      left: 0,
    });
    expect(await flipMembers(ALICE.accountId, listId, entering, [], new Date())).toEqual({
      entered: 0,
      left: 0,
    });
    await flipMembers(ALICE.accountId, listId, [], [company(2)], new Date());
    expect(await flipMembers(ALICE.accountId, listId, [], [company(2)], new Date())).toEqual({
      entered: 0,
      left: 0,
    });
    expect(await getList(ALICE.accountId, listId)).toMatchObject({ contacts: 1, counts: { NEW: 1 } });
    await expectExact(listId);
  });

  it('keeps a company a user saved between the read of the members and the claim', async () => {
    const listId = await newList();
    const [saved, leaving] = [company(1), company(2)];
    await withNew(listId, [1, 2]);
    const stop = beforeFirstCall(/^(UpdateItem|TransactWriteItems)/, async () => {
      const member = (await getMembers(ALICE.accountId, listId, [saved])).get(key(saved))!;
      await moveMembers(ALICE.accountId, listId, [{ member, to: 'SAVED' }], new Date());
    });
    try {
      expect(await flipMembers(ALICE.accountId, listId, [], [saved, leaving], new Date())).toEqual({
        entered: 0,
        left: 1,
      });
    } finally {
      stop();
    }
    expect([...(await expectExact(listId))]).toEqual([[key(saved), 'SAVED']]);
  });

  it("holds a user's move while the flips are written, then moves what is still in the list", async () => {
    const listId = await newList();
    await withNew(listId, [1, 2, 3]);
    let move: ReturnType<typeof moveListCompanies> | undefined;
    // The move reads the members before the flips land: company 1 is leaving, company 3 stays NEW.
    const stop = beforeFirstCall(/^BatchWriteItem/, async () => {
      const writing = firstCallSent(/^TransactWriteItems/);
      move = moveListCompanies(
        ALICE,
        listId,
        [1, 3].map((n) => ({ raw: { ...company(n) }, state: 'SAVED' as const })),
      );
      // Its first write meets the flips in flight on the list, and it waits.
      await writing;
    });
    try {
      expect(
        await flipMembers(
          ALICE.accountId,
          listId,
          [{ ref: company(4), contacts: 5 }],
          [company(1)],
          new Date(),
        ),
      ).toEqual({ entered: 1, left: 1 });
    } finally {
      stop();
    }
    expect(await move).toEqual({ updated: 1, failed: [] });
    const states = await expectExact(listId);
    expect(Object.fromEntries(states)).toEqual({
      [key(company(2))]: 'NEW',
      [key(company(3))]: 'SAVED',
      [key(company(4))]: 'NEW',
    });
  });

  it('finishes flips cut off between the claim and the member writes once their lease is over', async () => {
    const listId = await newList();
    await withNew(listId, [1, 2]);
    const entering = [{ ref: company(3), contacts: 4 }];
    // The process dies as it sends the member writes: counters moved, members not.
    const stop = beforeFirstCall(/^BatchWriteItem/, () => Promise.reject(new Error('killed')));
    try {
      await expect(flipMembers(ALICE.accountId, listId, entering, [company(1)], new Date())).rejects.toThrow(
        'killed',
      );
    } finally {
      stop();
    }
    const intent = (await intentOn(listId))!;
    expect(intent.entering.map((m) => key(m.ref))).toEqual([key(company(3))]);
    expect((await getList(ALICE.accountId, listId))!.counts.NEW).toBe(2);
    // The lease runs out (it is set back here rather than waited for).
    await dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.list(ALICE.accountId, listId),
        UpdateExpression: `SET ${INTENT}.u = :past`,
        ExpressionAttributeValues: { ':past': Date.now() - 1 },
      }),
    );
    // A user's move meets it first: it finishes the flips, then moves.
    const member = (await getMembers(ALICE.accountId, listId, [company(2)])).get(key(company(2)))!;
    expect(
      (await moveMembers(ALICE.accountId, listId, [{ member, to: 'ARCHIVED' }], new Date())).moved,
    ).toHaveLength(1);
    // The resumed import evaluates the same flips: nothing is left to do.
    expect(await flipMembers(ALICE.accountId, listId, entering, [company(1)], new Date())).toEqual({
      entered: 0,
      left: 0,
    });
    expect(Object.fromEntries(await expectExact(listId))).toEqual({
      [key(company(2))]: 'ARCHIVED',
      [key(company(3))]: 'NEW',
    });
  });

  it('counts each company once when two evaluations flip the same list at the same moment', async () => {
    const listId = await newList();
    await withNew(listId, [1, 2, 3]);
    const entering = (numbers: number[]) => numbers.map((n) => ({ ref: company(n), contacts: n }));
    const results = await Promise.all([
      flipMembers(ALICE.accountId, listId, entering([10, 11, 12, 13]), [company(1), company(2)], new Date()),
      flipMembers(ALICE.accountId, listId, entering([12, 13, 14]), [company(2), company(3)], new Date()),
    ]);
    expect(results.reduce((n, r) => n + r.entered, 0)).toBe(5);
    expect(results.reduce((n, r) => n + r.left, 0)).toBe(3);
    expect([...(await expectExact(listId)).keys()].sort()).toEqual(
      [10, 11, 12, 13, 14].map((n) => key(company(n))).sort(),
    );
  });

  it('leaves nothing behind of a list deleted and cleaned up while its flips are written', async () => {
    const listId = await newList();
    const stop = beforeFirstCall(/^BatchWriteItem/, async () => {
      await deleteList((await getList(ALICE.accountId, listId))!);
      await cleanUpDeletedLists();
    });
    try {
      await flipMembers(
        ALICE.accountId,
        listId,
        [1, 2].map((n) => ({ ref: company(n), contacts: 1 })),
        [],
        new Date(),
      );
    } finally {
      stop();
    }
    expect(await getAllMembers(ALICE.accountId, listId)).toEqual([]);
    expect(await orderItems(listId, 'NEW')).toEqual([]);
  });
});
