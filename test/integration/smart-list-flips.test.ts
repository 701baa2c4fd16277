/**
 * Smart-list flips and contact-count folds (lib/lists/store/flip-intents.ts) against DynamoDB Local:
 * members written in batches, counters moved once per list, exact whatever lands in between (a
 * user's move or addition, a second evaluation, a crash between claim and member writes, a deletion).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { belgianCheckDigits, companyKey, type CompanyRef } from '../../lib/companies/identifiers';
import { MAP_LIMIT, updateContactCounts } from '../../lib/lists/store/contact-counts';
import { cleanUpDeletedLists } from '../../lib/lists/store/clean-up';
import { INTENT, intentOf } from '../../lib/lists/store/flip-intents';
import { moveListCompanies } from '../../lib/lists/manage';
import { createList, deleteList, getList } from '../../lib/lists/store/lists';
import { addMembers, getAllMembers, getMembers } from '../../lib/lists/store/members';
import { MEMBER_STATES, type MemberState } from '../../lib/lists/store/model';
import { moveMembers } from '../../lib/lists/store/moves';
import { flipLists, flipMembers } from '../../lib/lists/store/smart-flips';
import { ensureSmartCount } from '../../lib/lists/store/smart-holds';
import { getItem, queryAll } from '../../lib/storage/batch';
import { dynamodb, tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { listOrderOfKey } from '../../lib/storage/keys';
import { recordCalls } from '../support/dynamodb-calls';
import { ALICE } from '../support/events';
import { useFreshTable } from '../support/table';

useFreshTable();

const company = (n: number): CompanyRef => {
  const firstEight = `06${String(n).padStart(6, '0')}`;
  return { country: 'BE', companyNumber: firstEight + belgianCheckDigits(firstEight) };
};
const key = companyKey;

async function newList(type: 'SMART' | 'STATIC' = 'SMART'): Promise<number> {
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
async function withNew(listId: number, numbers: number[], contacts = 2) {
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
async function expectExact(listId: number): Promise<Map<string, MemberState>> {
  const list = (await getList(ALICE.accountId, listId))!;
  const members = await getAllMembers(ALICE.accountId, listId);
  const counts = Object.fromEntries(
    MEMBER_STATES.map((s) => [s, members.filter((m) => m.state === s).length]),
  );
  const contacts = members
    .filter((m) => m.state !== 'ARCHIVED')
    .reduce((n, m) => n + (list.contactCounts[key(m.ref)] ?? m.storedContacts), 0);
  expect({ counts: list.counts, contacts: list.contacts }).toEqual({ counts, contacts });
  for (const state of MEMBER_STATES) {
    const order = await orderItems(listId, state);
    // Each with the count its member holds.
    expect(
      order
        .map((item) => `${key(listOrderOfKey(item['sk'] as string).ref)}:${String(item['contacts'])}`)
        .sort(),
    ).toEqual(
      members
        .filter((m) => m.state === state)
        .map((m) => `${key(m.ref)}:${m.storedContacts}`)
        .sort(),
    );
  }
  expect(await intentOn(listId)).toBeNull();
  return new Map(members.map((m) => [key(m.ref), m.state]));
}

const orderItems = (listId: number, state: MemberState) =>
  queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.listOrderPartition(ALICE.accountId, listId, state) },
  });

async function intentOn(listId: number) {
  return intentOf(
    await getItem(tableName(), keys.list(ALICE.accountId, listId), {
      projection: [INTENT],
      consistent: true,
    }),
  );
}

/** Runs `act` once, just before the first call of `command` is sent (the call then goes on). */
function before(command: RegExp, act: () => Promise<unknown>) {
  let done = false;
  const name = `before-${Math.random()}`;
  dynamodb().middlewareStack.add(
    (next, context) => async (args) => {
      if (!done && command.test(context.commandName ?? '')) {
        done = true;
        await act();
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => dynamodb().middlewareStack.remove(name);
}

/** Resolves when the first call of `command` is sent. */
function firstSent(command: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const stop = before(command, async () => {
      stop();
      resolve();
    });
  });
}

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
    const stop = before(/^(UpdateItem|TransactWriteItems)/, async () => {
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
    const stop = before(/^BatchWriteItem/, async () => {
      const writing = firstSent(/^TransactWriteItems/);
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
    const stop = before(/^BatchWriteItem/, () => Promise.reject(new Error('killed')));
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
    const stop = before(/^BatchWriteItem/, async () => {
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

  it('counts contacts anew only once the flips in flight have landed', async () => {
    const listId = await newList();
    await withNew(listId, [1, 2], 1);
    let counting: Promise<number> | undefined;
    const stop = before(/^BatchWriteItem/, async () => {
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
    const stop = before(/^BatchWriteItem/, async () => {
      const writing = firstSent(/^TransactWriteItems/);
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
