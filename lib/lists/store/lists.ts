/**
 * A list itself: reading one or an account's lists, creating one under a fresh id with its name claimed
 * (and, for a new SMART list, its hidden first members and its reveal), changing its settings,
 * deleting it. Its members' items are left to the clean-up worker (clean-up.ts).
 */
import { TransactWriteItemsCommand, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { AGAIN, batchPut, getItem, queryAll, retrying } from '../../storage/batch';
import { cancellationReasons, dynamodb, send, tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { sendTransaction } from '../../storage/transactions';
import { ListLimitReached, SmartListLimitReached } from '../../errors';
import {
  accountHoldUpdate,
  ensureSmartCount,
  HELD,
  heldOf,
  holdOf,
  maxSmartCompanies,
  withHold,
} from './smart-holds';
import {
  drawListId,
  ensureListCount,
  LIST_COUNT_ATTRIBUTE,
  listIdClaimItem,
  MAX_LISTS_PER_ACCOUNT,
} from './list-ids';
import {
  CONFLICT_RETRIES,
  ListChangedError,
  listItem,
  memberItem,
  orderItem,
  companiesOf,
  toList,
  type Item,
  type MemberState,
  type NewMember,
  type StoredList,
} from './model';

export async function getList(
  accountId: string,
  listId: number,
  { consistent = false } = {},
): Promise<StoredList | null> {
  const item = await getItem(tableName(), keys.list(accountId, listId), { consistent });
  return item ? toList(item) : null;
}

/** Every list of the account: one Query (a page holds about 3,000 lists). */
export async function getAccountLists(accountId: string): Promise<StoredList[]> {
  const { pk, skPrefix } = keys.accountLists(accountId);
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
  });
  return items.map(toList);
}

export type ListDraft = Omit<
  StoredList,
  'id' | 'counts' | 'contacts' | 'contactCounts' | 'updatedAt' | 'pending'
>;

/** The name a list holds in its account: trimmed, compared without letter case (§7.6). */
export const nameKeyOf = (name: string) => name.trim().normalize('NFC').toLowerCase();

/** Why a create or rename was refused: the account has a list of that name. */
export class NameTakenError extends Error {
  override readonly name = 'NameTakenError';
}

/** A pending list older than this was abandoned by a create that died: its name may be taken over. */
const ABANDONED_AFTER_MS = 15 * 60_000;

/**
 * Stores a new list under a fresh id drawn at random (or the given one: the demo's fixed ids), with in
 * the same transaction its id and name claimed (so of two creates with one name exactly one succeeds),
 * the account's count of lists moved (refused at MAX_LISTS_PER_ACCOUNT: ListLimitReached) and, for a
 * SMART list, its entry among the smart lists. With `pending` the list is invisible until `revealList`
 * (its first members are written first). `held`: the companies a SMART list's filters reach, taken from
 * the account's bound in the same transaction (smart-holds.ts; SmartListLimitReached past it).
 */
export async function createList(
  draft: ListDraft,
  { pending = false, id, held }: { pending?: boolean; id?: number; held?: number } = {},
): Promise<StoredList> {
  await ensureListCount(draft.accountId);
  if (held !== undefined) await ensureSmartCount(draft.accountId);
  const list: StoredList = {
    ...draft,
    id: id ?? drawListId(),
    updatedAt: draft.createdAt,
    counts: { NEW: 0, SAVED: 0, ARCHIVED: 0 },
    contacts: 0,
    contactCounts: {},
    pending,
  };
  const nameKey = nameKeyOf(list.name);
  const put = (Item: Item) => ({
    Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' },
  });
  // Cancellation reasons come in this order: list, name, id claim, counts, smart-list entry.
  const write = () =>
    send(() =>
      dynamodb().send(
        new TransactWriteItemsCommand({
          TransactItems: marshalledActions([
            put({ ...listItem(list), ...(held === undefined ? {} : { [HELD]: held }) }),
            put(nameItem(list.accountId, nameKey, list.id)),
            put(listIdClaimItem(list.id)),
            counted(
              {
                Update: {
                  TableName: tableName(),
                  Key: keys.listCount(list.accountId),
                  UpdateExpression: 'ADD #n :one',
                  ConditionExpression: '#n < :max',
                  ExpressionAttributeNames: { '#n': LIST_COUNT_ATTRIBUTE },
                  ExpressionAttributeValues: { ':one': 1, ':max': MAX_LISTS_PER_ACCOUNT },
                },
              },
              held,
            ),
            ...(list.type === 'SMART'
              ? [{ Put: { TableName: tableName(), Item: smartListItem(list) } }]
              : []),
            ...(list.type === 'STATIC' && list.notificationsEnabled ? [watchedPut(list)] : []),
          ]),
        }),
      ),
    );
  await retrying(async (attempt) => {
    try {
      await write();
      return true;
    } catch (error) {
      const reasons = cancellationReasons(error);
      const failed = (i: number) => reasons?.[i] === 'ConditionalCheckFailed';
      if (failed(1)) {
        if (attempt === 0 && (await releaseAbandonedName(list.accountId, nameKey))) return AGAIN;
        throw new NameTakenError();
      }
      if (failed(3)) {
        const count = await getItem(tableName(), keys.listCount(list.accountId), { consistent: true });
        if (held === undefined || Number(count?.[LIST_COUNT_ATTRIBUTE] ?? 0) >= MAX_LISTS_PER_ACCOUNT)
          throw new ListLimitReached(MAX_LISTS_PER_ACCOUNT);
        throw new SmartListLimitReached(maxSmartCompanies());
      }
      // Another list drew the same id (one chance in about two billion per list): draw again.
      if ((failed(0) || failed(2)) && id === undefined) {
        list.id = drawListId();
        return AGAIN;
      }
      if (reasons && !reasons.includes('ConditionalCheckFailed')) return AGAIN;
      throw error;
    }
  }, CONFLICT_RETRIES);
  return list;
}

/** A transaction action's parts that hold values, marshalled as the document client would marshall them. */
const MARSHALLED_PARTS = ['Item', 'Key', 'ExpressionAttributeValues'] as const;

/**
 * The create's actions for the low-level TransactWriteItems: their items, keys and values marshalled
 * (`removeUndefinedValues`, as the document client is configured in lib/storage/client.ts). A create is
 * the first write of a cold createList, and the document client's TransactWriteCommand would compile
 * its own command and marshalling code there (docs/benchmarks.md).
 */
function marshalledActions(actions: object[]): TransactWriteItem[] {
  return actions.map((action) => {
    const [[kind, parts]] = Object.entries(action) as [[string, Record<string, unknown>]];
    const converted: Record<string, unknown> = { ...parts };
    for (const part of MARSHALLED_PARTS) {
      const values = parts[part] as Item | undefined;
      if (values !== undefined) converted[part] = marshall(values, { removeUndefinedValues: true });
    }
    return { [kind]: converted } as TransactWriteItem;
  });
}

/** A STATIC list with notifications enabled, filed where the import finds it (lib/events/derive.ts). */
export function watchedPut(list: StoredList) {
  return { Put: { TableName: tableName(), Item: watchedListItem(list.accountId, list.id) } };
}

/** The watched-list entry of a list (also written by the backfill, lib/events/backfill.ts). */
export function watchedListItem(accountId: string, listId: number) {
  return { ...keys.watchedList(accountId, listId), entity: 'WatchedList', accountId, listId };
}

/**
 * Makes a pending list visible, with the counters of the members written for it, and files it among
 * the smart lists the import follows — in one transaction. `settle`: its evaluation is complete, so
 * its hold (smart-holds.ts) gives way to its companies in the same transaction.
 */
export async function revealList(
  list: StoredList,
  counts: Record<MemberState, number>,
  contacts: number,
  settle?: { held: number },
) {
  const companies = counts.NEW + counts.SAVED + counts.ARCHIVED;
  const released = settle ? companies - settle.held : 0;
  await sendTransaction([
    {
      Update: {
        TableName: tableName(),
        Key: keys.list(list.accountId, list.id),
        UpdateExpression: `SET nNew = :new, nSaved = :saved, nArchived = :archived, nContacts = :contacts REMOVE pending${settle ? `, ${HELD}` : ''}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: {
          ':new': counts.NEW,
          ':saved': counts.SAVED,
          ':archived': counts.ARCHIVED,
          ':contacts': contacts,
        },
      },
    },
    ...(list.type === 'SMART' ? [{ Put: { TableName: tableName(), Item: smartListItem(list) } }] : []),
    ...(released === 0 ? [] : [accountHoldUpdate(list.accountId, released)]),
  ]);
}

/**
 * Members of a list that nobody can see yet (pending): written in BatchWriteItem requests, 25 items a
 * request, in parallel — no transaction is needed while no one else can reach the list, and its
 * counters are set once, by `revealList`.
 */
export async function writeHiddenMembers(
  list: StoredList,
  members: NewMember[],
  state: MemberState,
  now: Date,
): Promise<void> {
  if (!list.pending) throw new Error('writeHiddenMembers: the list is visible');
  const matchedSince = now.toISOString();
  await batchPut(
    tableName(),
    members.flatMap((m) => [
      memberItem(list.accountId, list.id, m.ref, state, matchedSince, m.contacts),
      orderItem(list.accountId, list.id, state, now.getTime(), m.ref, m.contacts),
    ]),
    HIDDEN_WRITES_IN_FLIGHT,
  );
}

/** BatchWriteItem requests in flight for a new list's members: 5,000 members are 400 requests. */
const HIDDEN_WRITES_IN_FLIGHT = 16;

/** The list holding a name, if it is pending since long ago (its create died): deleted, and true. */
async function releaseAbandonedName(accountId: string, nameKey: string): Promise<boolean> {
  const { Item: claim } = await send(() =>
    dynamodb().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.listName(accountId, nameKey),
        ConsistentRead: true,
      }),
    ),
  );
  if (!claim) return true;
  const holder = await getList(accountId, Number(claim['listId']));
  if (!holder?.pending || Date.now() - Date.parse(holder.createdAt) < ABANDONED_AFTER_MS) return false;
  await deleteList(holder);
  return true;
}

export function nameItem(accountId: string, nameKey: string, listId: number): Item {
  return { ...keys.listName(accountId, nameKey), entity: 'ListName', listId };
}

export function smartListItem(list: StoredList): Item {
  return {
    ...keys.smartList(list.accountId, list.id),
    entity: 'SmartList',
    filters: JSON.stringify(list.filters),
  };
}

/** The account's count item's update, its count of smart-list companies moved by `delta` too (if given). */
const counted = <T extends Parameters<typeof withHold>[0]>(update: T, delta: number | undefined) =>
  delta === undefined ? update : withHold(update, delta);

/** A smart list's item as stored now (counters, hold), and what it holds of its account's bound. */
async function holdingOf(list: StoredList) {
  await ensureSmartCount(list.accountId);
  const item = await getItem(tableName(), keys.list(list.accountId, list.id), {
    consistent: true,
    projection: ['nNew', 'nSaved', 'nArchived', HELD],
  });
  if (!item) return null;
  const held = heldOf(item);
  return { item, held, hold: holdOf(companiesOf(item), held) };
}

/**
 * Deletes a list at once: the list item, its name, its smart-list entry go in one transaction with a
 * clean-up entry, so the list is gone for every reader immediately; its members and order items are
 * deleted by the clean-up worker (`cleanUpDeletedLists`). `createdBy` (when given) must still be the
 * list's creator.
 */
export async function deleteList(list: StoredList, createdBy?: string): Promise<void> {
  // A list older than the account's count is counted before the count moves down.
  await ensureListCount(list.accountId);
  // A smart list gives back what it holds of its account's bound, as read: the delete is conditional
  // on the list's counters and hold being still those.
  const holding = list.type === 'SMART' ? await holdingOf(list) : null;
  const asRead = holding && {
    condition: ` AND nNew = :new AND nSaved = :saved AND nArchived = :archived AND ${holding.held === null ? `attribute_not_exists(${HELD})` : `${HELD} = :held`}`,
    values: {
      ':new': holding.item['nNew'] ?? 0,
      ':saved': holding.item['nSaved'] ?? 0,
      ':archived': holding.item['nArchived'] ?? 0,
      ...(holding.held === null ? {} : { ':held': holding.held }),
    },
  };
  const me = createdBy === undefined ? {} : { ':me': createdBy };
  try {
    await send(() =>
      dynamodb().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: tableName(),
                Key: keys.list(list.accountId, list.id),
                ConditionExpression: `attribute_exists(pk)${createdBy === undefined ? '' : ' AND createdBy = :me'}${asRead?.condition ?? ''}`,
                ...(createdBy === undefined && !asRead
                  ? {}
                  : { ExpressionAttributeValues: { ...me, ...asRead?.values } }),
              },
            },
            {
              Delete: {
                TableName: tableName(),
                Key: keys.listName(list.accountId, nameKeyOf(list.name)),
                ConditionExpression: 'attribute_not_exists(pk) OR listId = :id',
                ExpressionAttributeValues: { ':id': list.id },
              },
            },
            { Delete: { TableName: tableName(), Key: keys.smartList(list.accountId, list.id) } },
            { Delete: { TableName: tableName(), Key: keys.watchedList(list.accountId, list.id) } },
            {
              Put: {
                TableName: tableName(),
                Item: { ...keys.listCleanup(list.accountId, list.id), entity: 'ListCleanup' },
              },
            },
            // The account may have one more list again. Its id stays claimed: ids are never reused.
            counted(
              {
                Update: {
                  TableName: tableName(),
                  Key: keys.listCount(list.accountId),
                  UpdateExpression: 'ADD #n :minusOne',
                  ExpressionAttributeNames: { '#n': LIST_COUNT_ATTRIBUTE },
                  ExpressionAttributeValues: { ':minusOne': -1 },
                },
              },
              holding ? -holding.hold : undefined,
            ),
          ],
        }),
      ),
    );
  } catch (error) {
    if (cancellationReasons(error)) throw new ListChangedError();
    throw error;
  }
}
