/**
 * Where lists live in the table (key patterns in lib/storage/keys.ts). Every list key carries the
 * account, so a caller's account is part of every lookup: a list of another account is simply absent.
 *
 * - List: one item per list, with its counters: companies per state (`nNew`, `nSaved`, `nArchived`) and
 *   `nContacts` (contacts of its non-archived companies). Counters move with `ADD` in the same
 *   TransactWriteItems as the members they count.
 * - Member: one item per company in a list (state, matchedSince, its contact count), keyed by the
 *   company: "add only if absent" is a conditional put. Its gsi1 entry lists a company's lists, which
 *   the import uses to keep contact counts right when a company's contacts change.
 * - Order: one small item per member in a partition per state, keyed in the contract's order
 *   (matchedSince descending, country, number). A page is one Query with Limit offset + limit, reading
 *   keys only (about 70 bytes an item, so even an offset of 10,000 fits the 1 MB a Query returns).
 *
 * Adding members (`addMembers`): a transaction holds at most 100 actions, and each new member takes
 * two (member, order) besides the list item's counter update, so members go in chunks of 49, each
 * chunk one transaction with its own counter update. Counters are therefore exact after every
 * transaction, and nothing is ever half-applied: a chunk is all in or all out. A member whose put is
 * cancelled by its condition was already there (another call added it first): it is dropped from the
 * chunk, which is retried without it. Concurrent calls on one list conflict on the list item
 * (TransactionConflict) and retry with backoff. A call that fails between chunks (storage gone) keeps
 * the chunks it committed; counted exactly, and a retry adds the rest.
 */
import {
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { companyKey, type CompanyRef, type Country } from '../companies/identifiers';
import {
  AGAIN,
  batchDelete,
  batchGet,
  batchPut,
  chunk,
  getItem,
  projection,
  queryAll,
  queryPartitions,
  retrying,
} from '../storage/batch';
import { cancellationReasons, dynamodb, send, tableName } from '../storage/client';
import {
  companyOfKey,
  CONTACTS_CHANGED_SHARDS,
  FILTER_PROFILE_SHARDS,
  filterProfileOfKey,
  keys,
  SMART_FLIP_SHARDS,
  listOfKey,
  listOrderOfKey,
  matchIndexTextOfKey,
  partitions,
  type MatchKind,
} from '../storage/keys';
import type { StorageAccess } from '../storage/access';
import { tableDefinition } from '../storage/table';
import type { Filters } from './filters';

export type ListType = 'STATIC' | 'SMART';
export const MEMBER_STATES = ['NEW', 'SAVED', 'ARCHIVED'] as const;
export type MemberState = (typeof MEMBER_STATES)[number];

export interface StoredList {
  accountId: string;
  id: number;
  name: string;
  type: ListType;
  columns: string[];
  shared: boolean;
  notificationsEnabled: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  /** Companies per state. */
  counts: Record<MemberState, number>;
  /** Contacts of the companies that are not ARCHIVED. */
  contacts: number;
  /** A SMART list's filters (§7.6), validated; null on a STATIC list. */
  filters: Filters | null;
  /**
   * A new SMART list whose first members are still being written: not visible to anyone yet (and
   * holding its name), so it appears whole, with exact counters (see `createList`).
   */
  pending: boolean;
}

export interface NewMember {
  ref: CompanyRef;
  /** How many contacts the company has now (it counts towards the list's contacts unless ARCHIVED). */
  contacts: number;
}

export interface OrderEntry {
  ref: CompanyRef;
  matchedSinceMs: number;
  contacts: number;
}

type Item = Record<string, unknown>;
const GSI1 = tableDefinition.indexes[0];
const COUNTER: Record<MemberState, string> = { NEW: 'nNew', SAVED: 'nSaved', ARCHIVED: 'nArchived' };
/** Two actions per member (member, order) + the list item: 2 × 49 + 1 ≤ 100. */
const MEMBERS_PER_TRANSACTION = 49;
/** Transactions on one list conflict on its item while others write it: retried this often, with jitter. */
const CONFLICT_RETRIES = { maxAttempts: 12, baseMs: 20, maxMs: 800 };

// ---- Lists --------------------------------------------------------------------------------------

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

/** The next list id, unique across the service (an atomic counter). */
async function allocateListId(): Promise<number> {
  const { Attributes } = await send(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.listSequence(),
        UpdateExpression: 'ADD lastId :one SET entity = :entity',
        ExpressionAttributeValues: { ':one': 1, ':entity': 'ListSequence' },
        ReturnValues: 'UPDATED_NEW',
      }),
    ),
  );
  return Number(Attributes!['lastId']);
}

export type ListDraft = Omit<StoredList, 'id' | 'counts' | 'contacts' | 'updatedAt' | 'pending'>;

/** The name a list holds in its account: trimmed, compared without letter case (§7.6). */
export const nameKeyOf = (name: string) => name.trim().normalize('NFC').toLowerCase();

/** Why a create or rename was refused: the account has a list of that name. */
export class NameTakenError extends Error {
  override readonly name = 'NameTakenError';
}

/** A pending list older than this was abandoned by a create that died: its name may be taken over. */
const ABANDONED_AFTER_MS = 15 * 60_000;

/**
 * Stores a new list under a fresh id, with its name claimed in the same transaction (so of two
 * creates with one name exactly one succeeds) and, for a SMART list, its entry among the smart lists.
 * With `pending` the list is invisible until `revealList` (its first members are written first).
 */
export async function createList(draft: ListDraft, { pending = false } = {}): Promise<StoredList> {
  const id = await allocateListId();
  const list: StoredList = {
    ...draft,
    id,
    updatedAt: draft.createdAt,
    counts: { NEW: 0, SAVED: 0, ARCHIVED: 0 },
    contacts: 0,
    pending,
  };
  const nameKey = nameKeyOf(list.name);
  const write = () =>
    send(() =>
      dynamodb().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName(),
                Item: listItem(list),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: tableName(),
                Item: nameItem(list.accountId, nameKey, id),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            ...(list.type === 'SMART'
              ? [{ Put: { TableName: tableName(), Item: smartListItem(list) } }]
              : []),
          ],
        }),
      ),
    );
  await retrying(async (attempt) => {
    try {
      await write();
      return true;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.[1] !== 'ConditionalCheckFailed') {
        if (reasons && !reasons.includes('ConditionalCheckFailed')) return AGAIN;
        throw error;
      }
      if (attempt === 0 && (await releaseAbandonedName(list.accountId, nameKey))) return AGAIN;
      throw new NameTakenError();
    }
  }, CONFLICT_RETRIES);
  return list;
}

/**
 * Makes a pending list visible, with the counters of the members written for it, and files it among
 * the smart lists the import follows — in one transaction.
 */
export async function revealList(list: StoredList, counts: Record<MemberState, number>, contacts: number) {
  await send(() =>
    dynamodb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: keys.list(list.accountId, list.id),
              UpdateExpression:
                'SET nNew = :new, nSaved = :saved, nArchived = :archived, nContacts = :contacts REMOVE pending',
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
        ],
      }),
    ),
  );
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

function nameItem(accountId: string, nameKey: string, listId: number): Item {
  return { ...keys.listName(accountId, nameKey), entity: 'ListName', listId };
}

function smartListItem(list: StoredList): Item {
  return {
    ...keys.smartList(list.accountId, list.id),
    entity: 'SmartList',
    filters: JSON.stringify(list.filters),
  };
}

export interface ListChanges {
  name?: string;
  columns?: string[];
  shared?: boolean;
  notificationsEnabled?: boolean;
  filters?: Filters;
}

/**
 * Changes a list's settings in one transaction, conditional on the list being as read (`list`): a
 * rename moves its name claim (409 when the new name is taken), new filters move its smart-list
 * entry. Returns the list as changed; ListChangedError when it changed or went meanwhile.
 */
export async function updateList(list: StoredList, changes: ListChanges, now: Date): Promise<StoredList> {
  const next: StoredList = { ...list, ...changes, updatedAt: now.toISOString() };
  const sets = ['#updatedAt = :now'];
  const values: Item = { ':now': next.updatedAt, ':was': list.updatedAt };
  const names: Record<string, string> = { '#updatedAt': 'updatedAt' };
  const field = (name: string, value: unknown) => {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  };
  if (changes.name !== undefined) field('name', next.name);
  if (changes.columns !== undefined) field('columns', next.columns);
  if (changes.shared !== undefined) field('shared', next.shared);
  if (changes.notificationsEnabled !== undefined) field('notificationsEnabled', next.notificationsEnabled);
  if (changes.filters !== undefined) field('filters', JSON.stringify(next.filters));
  const oldKey = nameKeyOf(list.name);
  const newKey = nameKeyOf(next.name);
  const renamed = oldKey !== newKey;
  const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
    {
      Update: {
        TableName: tableName(),
        Key: keys.list(list.accountId, list.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk) AND #updatedAt = :was',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    ...(renamed
      ? [
          {
            Put: {
              TableName: tableName(),
              Item: nameItem(list.accountId, newKey, list.id),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          { Delete: { TableName: tableName(), Key: keys.listName(list.accountId, oldKey) } },
        ]
      : []),
    ...(changes.filters !== undefined && list.type === 'SMART'
      ? [{ Put: { TableName: tableName(), Item: smartListItem(next) } }]
      : []),
  ];
  try {
    await send(() => dynamodb().send(new TransactWriteCommand({ TransactItems: items })));
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    if (renamed && reasons[1] === 'ConditionalCheckFailed') throw new NameTakenError();
    throw new ListChangedError();
  }
  return next;
}

/**
 * Deletes a list at once: the list item, its name, its smart-list entry go in one transaction with a
 * clean-up entry, so the list is gone for every reader immediately; its members and order items are
 * deleted by the clean-up worker (`cleanUpDeletedLists`). `createdBy` (when given) must still be the
 * list's creator.
 */
export async function deleteList(list: StoredList, createdBy?: string): Promise<void> {
  try {
    await send(() =>
      dynamodb().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: tableName(),
                Key: keys.list(list.accountId, list.id),
                ConditionExpression:
                  createdBy === undefined
                    ? 'attribute_exists(pk)'
                    : 'attribute_exists(pk) AND createdBy = :me',
                ...(createdBy === undefined ? {} : { ExpressionAttributeValues: { ':me': createdBy } }),
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
            {
              Put: {
                TableName: tableName(),
                Item: { ...keys.listCleanup(list.accountId, list.id), entity: 'ListCleanup' },
              },
            },
          ],
        }),
      ),
    );
  } catch (error) {
    if (cancellationReasons(error)) throw new ListChangedError();
    throw error;
  }
}

/** What the clean-up worker touches: the pending clean-ups, and a deleted list's members and order items. */
export const cleanUpListsStorage = {
  Query: [partitions.listCleanups, partitions.listMembers, partitions.listOrder],
  BatchWriteItem: [partitions.listCleanups, partitions.listMembers, partitions.listOrder],
} as const satisfies StorageAccess;

/**
 * The clean-up worker's work (contract §7.6: a deleted list leaves nothing behind): for each deleted
 * list, every member and order item, then its clean-up entry. Safe to run twice or side by side
 * (deletes of absent items are no error). Returns how many lists it cleaned.
 */
export async function cleanUpDeletedLists(): Promise<number> {
  const pending = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.listCleanups() },
  });
  for (const entry of pending) {
    const { accountId, listId } = listOfKey(entry['sk'] as string);
    for (const partition of keys.listPartitions(accountId, listId, MEMBER_STATES)) {
      const items = await queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        ProjectionExpression: 'pk, sk',
      });
      await batchDelete(
        tableName(),
        items.map((item) => ({ pk: item['pk'], sk: item['sk'] })),
      );
    }
    await batchDelete(tableName(), [keys.listCleanup(accountId, listId)]);
  }
  return pending.length;
}

function listItem(list: StoredList): Item {
  return {
    ...keys.list(list.accountId, list.id),
    entity: 'List',
    accountId: list.accountId,
    id: list.id,
    name: list.name,
    type: list.type,
    columns: list.columns,
    shared: list.shared,
    notificationsEnabled: list.notificationsEnabled,
    createdBy: list.createdBy,
    createdAt: list.createdAt,
    updatedAt: list.updatedAt,
    nNew: list.counts.NEW,
    nSaved: list.counts.SAVED,
    nArchived: list.counts.ARCHIVED,
    nContacts: list.contacts,
    ...(list.filters === null ? {} : { filters: JSON.stringify(list.filters) }),
    ...(list.pending ? { pending: true } : {}),
  };
}

function toList(item: Item): StoredList {
  return {
    accountId: item['accountId'] as string,
    id: Number(item['id']),
    name: item['name'] as string,
    type: item['type'] as ListType,
    columns: (item['columns'] as string[] | undefined) ?? [],
    shared: item['shared'] === true,
    notificationsEnabled: item['notificationsEnabled'] === true,
    createdBy: item['createdBy'] as string,
    createdAt: item['createdAt'] as string,
    updatedAt: item['updatedAt'] as string,
    counts: {
      NEW: Number(item['nNew'] ?? 0),
      SAVED: Number(item['nSaved'] ?? 0),
      ARCHIVED: Number(item['nArchived'] ?? 0),
    },
    contacts: Number(item['nContacts'] ?? 0),
    filters: typeof item['filters'] === 'string' ? (JSON.parse(item['filters']) as Filters) : null,
    pending: item['pending'] === true,
  };
}

// ---- Members ------------------------------------------------------------------------------------

/** Why adding members stopped: the list is gone, or (with `onlyType`) it is of another type. */
export class ListChangedError extends Error {
  override readonly name = 'ListChangedError';
}

export interface AddOptions {
  state: MemberState;
  /** matchedSince of the new members. */
  now: Date;
  /** Refuse (ListChangedError) unless the list still exists and is of this type. */
  onlyType?: ListType;
  /**
   * Refuse (ListChangedError) unless this user may see the list (§7.1: shared, or created by them):
   * the write itself proves visibility, so a PUT needs no read of the list first.
   */
  visibleTo?: string;
}

export interface Added {
  added: CompanyRef[];
  /** Whether a write went through, which proves the list's conditions held. */
  committed: boolean;
}

/**
 * Adds the companies that are not in the list yet, in `state`, and returns those it added (each
 * once, whatever the races): see the module comment for the transactions.
 */
export async function addMembers(
  accountId: string,
  listId: number,
  members: NewMember[],
  options: AddOptions,
): Promise<Added> {
  const unique = [...new Map(members.map((m) => [companyKey(m.ref), m])).values()];
  const result: Added = { added: [], committed: false };
  for (const part of chunk(unique, MEMBERS_PER_TRANSACTION)) {
    const added = await addChunk(accountId, listId, part, options);
    if (added.length > 0) result.committed = true;
    result.added.push(...added);
  }
  return result;
}

async function addChunk(
  accountId: string,
  listId: number,
  members: NewMember[],
  options: AddOptions,
): Promise<CompanyRef[]> {
  let pending = members;
  return retrying(async () => {
    // Dropping members that are already there is progress, not contention: no wait, no attempt spent.
    for (;;) {
      if (pending.length === 0) return [];
      try {
        await send(() =>
          dynamodb().send(new TransactWriteCommand(addTransaction(accountId, listId, pending, options))),
        );
        return pending.map((m) => m.ref);
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons) throw error;
        // The last action is the list item: its condition failing means the list changed under us.
        if (reasons[reasons.length - 1] === 'ConditionalCheckFailed') throw new ListChangedError();
        // A member's put (even index) cancelled by its condition: that company is already in the list.
        const present = new Set(
          pending.filter((_, i) => reasons[2 * i] === 'ConditionalCheckFailed').map((m) => companyKey(m.ref)),
        );
        if (present.size === 0) return AGAIN;
        pending = pending.filter((m) => !present.has(companyKey(m.ref)));
      }
    }
  }, CONFLICT_RETRIES);
}

function addTransaction(
  accountId: string,
  listId: number,
  members: NewMember[],
  { state, now, onlyType, visibleTo }: AddOptions,
): TransactWriteCommandInput {
  const table = tableName();
  const matchedSince = now.toISOString();
  const ms = now.getTime();
  const contacts = state === 'ARCHIVED' ? 0 : members.reduce((sum, m) => sum + m.contacts, 0);
  return {
    TransactItems: [
      ...members.flatMap((m) => [
        {
          Put: {
            TableName: table,
            Item: memberItem(accountId, listId, m.ref, state, matchedSince, m.contacts),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: table,
            Item: orderItem(accountId, listId, state, ms, m.ref, m.contacts),
          },
        },
      ]),
      {
        Update: {
          TableName: table,
          Key: keys.list(accountId, listId),
          UpdateExpression: `ADD ${COUNTER[state]} :n, nContacts :c SET updatedAt = :now`,
          ...listCondition(
            { onlyType, visibleTo },
            { ':n': members.length, ':c': contacts, ':now': matchedSince },
          ),
        },
      },
    ],
  };
}

/** The list item's condition: it exists (not deleted), and optionally has a type and is visible to a user. */
function listCondition(
  { onlyType, visibleTo }: { onlyType?: ListType | undefined; visibleTo?: string | undefined },
  values: Item = {},
) {
  const conditions = ['attribute_exists(pk)'];
  const names: Record<string, string> = {};
  const expressionValues: Item = { ...values };
  if (onlyType) {
    conditions.push('#type = :type');
    names['#type'] = 'type';
    expressionValues[':type'] = onlyType;
  }
  if (visibleTo !== undefined) {
    conditions.push('(#shared = :shared OR #createdBy = :me)');
    names['#shared'] = 'shared';
    names['#createdBy'] = 'createdBy';
    expressionValues[':shared'] = true;
    expressionValues[':me'] = visibleTo;
  }
  return {
    ConditionExpression: conditions.join(' AND '),
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(expressionValues).length > 0 ? { ExpressionAttributeValues: expressionValues } : {}),
  };
}

function memberItem(
  accountId: string,
  listId: number,
  ref: CompanyRef,
  state: MemberState,
  matchedSince: string,
  contacts: number,
): Item {
  return {
    ...keys.listMember(accountId, listId, ref),
    ...keys.listMembership(accountId, listId, ref),
    entity: 'ListMember',
    state,
    matchedSince,
    contacts,
  };
}

function orderItem(
  accountId: string,
  listId: number,
  state: MemberState,
  matchedSinceMs: number,
  ref: CompanyRef,
  contacts: number,
): Item {
  return {
    ...keys.listOrder(accountId, listId, state, matchedSinceMs, ref),
    ...keys.listOrderAll(accountId, listId, matchedSinceMs, ref),
    entity: 'ListOrder',
    state,
    contacts,
  };
}

// ---- Members: reading them, moving them between states, taking NEW ones out ----------------------

export interface Member extends OrderEntry {
  state: MemberState;
}

function toMember(item: Item): Member {
  return {
    ref: companyOfKey(`COMPANY#${(item['sk'] as string).slice('COMPANY#'.length)}`),
    state: item['state'] as MemberState,
    matchedSinceMs: Date.parse(item['matchedSince'] as string),
    contacts: Number(item['contacts'] ?? 0),
  };
}

const MEMBER_ATTRIBUTES = ['sk', 'state', 'matchedSince', 'contacts'];

/** These companies' members of the list (strongly consistent: read to be written), by `companyKey`. */
export async function getMembers(
  accountId: string,
  listId: number,
  refs: CompanyRef[],
): Promise<Map<string, Member>> {
  const items = await batchGet(
    tableName(),
    refs.map((ref) => keys.listMember(accountId, listId, ref)),
    { projection: MEMBER_ATTRIBUTES, consistent: true },
  );
  return new Map(items.map(toMember).map((m) => [companyKey(m.ref), m]));
}

/** Every member of the list (a filter change compares them with the new matches). */
export async function getAllMembers(accountId: string, listId: number): Promise<Member[]> {
  const [partition] = keys.listPartitions(accountId, listId, []);
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': partition },
    ...projection(MEMBER_ATTRIBUTES),
  });
  return items.map(toMember);
}

/** Three actions per move (member, old order item, new order item) + the list item: 3 × 33 + 1 ≤ 100. */
const MOVES_PER_TRANSACTION = 33;

export interface Move {
  member: Member;
  to: MemberState;
}

/**
 * Moves members between states (§7.6): each member's state, its order item (from the old state's
 * partition to the new one's, same position) and the list's counters in one transaction per 33
 * moves, each conditional on the member still being in the state (and having the contacts) it was
 * read with. Returns the moves that went through; a member that changed meanwhile is left out (the
 * caller reads it again).
 */
export async function moveMembers(
  accountId: string,
  listId: number,
  moves: Move[],
  now: Date,
): Promise<{ moved: Move[]; stale: Move[] }> {
  const moved: Move[] = [];
  const stale: Move[] = [];
  for (const part of chunk(moves, MOVES_PER_TRANSACTION)) {
    let pending = part;
    await retrying(async () => {
      if (pending.length === 0) return true;
      try {
        await send(() =>
          dynamodb().send(new TransactWriteCommand(moveTransaction(accountId, listId, pending, now))),
        );
        moved.push(...pending);
        return true;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons) throw error;
        if (reasons[reasons.length - 1] === 'ConditionalCheckFailed') throw new ListChangedError();
        const changed = pending.filter((_, i) => reasons[3 * i] === 'ConditionalCheckFailed');
        if (changed.length === 0) return AGAIN;
        stale.push(...changed);
        pending = pending.filter((move) => !changed.includes(move));
        return pending.length === 0 ? true : AGAIN;
      }
    }, CONFLICT_RETRIES);
  }
  return { moved, stale };
}

function moveTransaction(
  accountId: string,
  listId: number,
  moves: Move[],
  now: Date,
): TransactWriteCommandInput {
  const table = tableName();
  const counters = new Map<string, number>();
  const count = (name: string, n: number) => counters.set(name, (counters.get(name) ?? 0) + n);
  for (const { member, to } of moves) {
    count(COUNTER[member.state], -1);
    count(COUNTER[to], 1);
    // Contacts count for companies that are not ARCHIVED.
    if (member.state === 'ARCHIVED') count('nContacts', member.contacts);
    if (to === 'ARCHIVED') count('nContacts', -member.contacts);
  }
  const adds = [...counters].filter(([, n]) => n !== 0);
  return {
    TransactItems: [
      ...moves.flatMap(({ member, to }) => [
        {
          Update: {
            TableName: table,
            Key: keys.listMember(accountId, listId, member.ref),
            UpdateExpression: 'SET #state = :to',
            // Its contacts as read too: the counters move by them (an import may have counted anew).
            ConditionExpression: '#state = :from AND contacts = :contacts',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':to': to, ':from': member.state, ':contacts': member.contacts },
          },
        },
        {
          Delete: {
            TableName: table,
            Key: keys.listOrder(accountId, listId, member.state, member.matchedSinceMs, member.ref),
          },
        },
        {
          Put: {
            TableName: table,
            Item: orderItem(accountId, listId, to, member.matchedSinceMs, member.ref, member.contacts),
          },
        },
      ]),
      {
        Update: {
          TableName: table,
          Key: keys.list(accountId, listId),
          UpdateExpression: `SET updatedAt = :now${adds.length > 0 ? ` ADD ${adds.map(([name], i) => `${name} :c${i}`).join(', ')}` : ''}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: {
            ':now': now.toISOString(),
            ...Object.fromEntries(adds.map(([, n], i) => [`:c${i}`, n])),
          },
        },
      },
    ],
  };
}

/**
 * Takes members out of the list if they are still NEW (a smart list's company that stopped matching;
 * SAVED and ARCHIVED ones stay): member, order item and counters in one transaction per 49, each
 * conditional on the member still being NEW. Returns how many left.
 */
export async function removeNewMembers(
  accountId: string,
  listId: number,
  members: Member[],
): Promise<number> {
  let left = 0;
  for (const part of chunk(
    members.filter((m) => m.state === 'NEW'),
    MEMBERS_PER_TRANSACTION,
  )) {
    let pending = part;
    await retrying(async () => {
      if (pending.length === 0) return true;
      try {
        await send(() =>
          dynamodb().send(
            new TransactWriteCommand({
              TransactItems: [
                ...pending.flatMap((m) => [
                  {
                    Delete: {
                      TableName: tableName(),
                      Key: keys.listMember(accountId, listId, m.ref),
                      ConditionExpression: '#state = :new AND matchedSince = :since AND contacts = :contacts',
                      ExpressionAttributeNames: { '#state': 'state' },
                      ExpressionAttributeValues: {
                        ':new': 'NEW',
                        ':since': new Date(m.matchedSinceMs).toISOString(),
                        ':contacts': m.contacts,
                      },
                    },
                  },
                  {
                    Delete: {
                      TableName: tableName(),
                      Key: keys.listOrder(accountId, listId, 'NEW', m.matchedSinceMs, m.ref),
                    },
                  },
                ]),
                {
                  Update: {
                    TableName: tableName(),
                    Key: keys.list(accountId, listId),
                    UpdateExpression: 'ADD nNew :n, nContacts :c SET updatedAt = :now',
                    ConditionExpression: 'attribute_exists(pk)',
                    ExpressionAttributeValues: {
                      ':n': -pending.length,
                      ':c': -pending.reduce((n, m) => n + m.contacts, 0),
                      ':now': new Date().toISOString(),
                    },
                  },
                },
              ],
            }),
          ),
        );
        left += pending.length;
        return true;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons) throw error;
        if (reasons[reasons.length - 1] === 'ConditionalCheckFailed') throw new ListChangedError();
        // Changed meanwhile: read again. Moved or gone: not NEW any more, so it stays (or is gone
        // already); counted anew by an import: still NEW, it leaves with its contacts now.
        const changed = pending.filter((_, i) => reasons[2 * i] === 'ConditionalCheckFailed');
        const fresh =
          changed.length > 0
            ? await getMembers(
                accountId,
                listId,
                changed.map((m) => m.ref),
              )
            : new Map();
        pending = [
          ...pending.filter((m) => !changed.includes(m)),
          ...[...fresh.values()].filter((m) => m.state === 'NEW'),
        ];
        return AGAIN;
      }
    }, CONFLICT_RETRIES);
  }
  return left;
}

// ---- One company entering or leaving several lists (the import's smart-list flips) ---------------

export interface ListRef {
  accountId: string;
  listId: number;
}

/** Three actions per list (member, order item, the list's counters): 3 × 33 ≤ 100. */
const LISTS_PER_TRANSACTION = 33;

/**
 * One company entering several lists in `state` at once: one transaction per 33 lists, each list's
 * member (add only if absent), order item and counters. A list the company is already in, or that is
 * gone, is skipped. Returns how many lists it entered.
 */
export async function joinLists(
  member: NewMember,
  lists: ListRef[],
  state: MemberState,
  now: Date,
): Promise<number> {
  let entered = 0;
  const matchedSince = now.toISOString();
  const contacts = state === 'ARCHIVED' ? 0 : member.contacts;
  for (const part of chunk(lists, LISTS_PER_TRANSACTION)) {
    let pending = part;
    await retrying(async () => {
      for (;;) {
        if (pending.length === 0) return true;
        try {
          await send(() =>
            dynamodb().send(
              new TransactWriteCommand({
                TransactItems: pending.flatMap(({ accountId, listId }) => [
                  {
                    Put: {
                      TableName: tableName(),
                      Item: memberItem(accountId, listId, member.ref, state, matchedSince, member.contacts),
                      ConditionExpression: 'attribute_not_exists(pk)',
                    },
                  },
                  {
                    Put: {
                      TableName: tableName(),
                      Item: orderItem(accountId, listId, state, now.getTime(), member.ref, member.contacts),
                    },
                  },
                  {
                    Update: {
                      TableName: tableName(),
                      Key: keys.list(accountId, listId),
                      UpdateExpression: `ADD ${COUNTER[state]} :one, nContacts :c SET updatedAt = :now`,
                      ConditionExpression: 'attribute_exists(pk)',
                      ExpressionAttributeValues: { ':one': 1, ':c': contacts, ':now': matchedSince },
                    },
                  },
                ]),
              }),
            ),
          );
          entered += pending.length;
          return true;
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (!reasons) throw error;
          // Already in the list (its member's condition) or the list is gone (its item's): skipped.
          const refused = pending.filter(
            (_, i) =>
              reasons[3 * i] === 'ConditionalCheckFailed' || reasons[3 * i + 2] === 'ConditionalCheckFailed',
          );
          if (refused.length === 0) return AGAIN;
          pending = pending.filter((list) => !refused.includes(list));
        }
      }
    }, CONFLICT_RETRIES);
  }
  return entered;
}

/**
 * One company leaving the lists in which it is still NEW (SAVED and ARCHIVED ones stay): its members
 * read in one BatchGetItem, then one transaction per 33 lists (member, order item, counters), each
 * conditional on the member being as read. Returns how many lists it left.
 */
export async function leaveLists(ref: CompanyRef, lists: ListRef[]): Promise<number> {
  const leaving = await newMemberships(ref, lists);
  let left = 0;
  for (const part of chunk(leaving, LISTS_PER_TRANSACTION)) {
    let pending = part;
    await retrying(async () => {
      if (pending.length === 0) return true;
      try {
        await send(() =>
          dynamodb().send(
            new TransactWriteCommand({
              TransactItems: pending.flatMap(({ accountId, listId, member }) => [
                {
                  Delete: {
                    TableName: tableName(),
                    Key: keys.listMember(accountId, listId, ref),
                    ConditionExpression: '#state = :new AND matchedSince = :since AND contacts = :contacts',
                    ExpressionAttributeNames: { '#state': 'state' },
                    ExpressionAttributeValues: {
                      ':new': 'NEW',
                      ':since': new Date(member.matchedSinceMs).toISOString(),
                      ':contacts': member.contacts,
                    },
                  },
                },
                {
                  Delete: {
                    TableName: tableName(),
                    Key: keys.listOrder(accountId, listId, 'NEW', member.matchedSinceMs, ref),
                  },
                },
                {
                  Update: {
                    TableName: tableName(),
                    Key: keys.list(accountId, listId),
                    UpdateExpression: 'ADD nNew :minus, nContacts :c SET updatedAt = :now',
                    ConditionExpression: 'attribute_exists(pk)',
                    ExpressionAttributeValues: {
                      ':minus': -1,
                      ':c': -member.contacts,
                      ':now': new Date().toISOString(),
                    },
                  },
                },
              ]),
            }),
          ),
        );
        left += pending.length;
        return true;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons) throw error;
        // The list is gone (its item): nothing to take out there. The member changed meanwhile: read
        // again; moved or gone, it stays (or is gone already); counted anew, it leaves with that count.
        const gone = pending.filter((_, i) => reasons[3 * i + 2] === 'ConditionalCheckFailed');
        const changed = pending.filter(
          (entry, i) => reasons[3 * i] === 'ConditionalCheckFailed' && !gone.includes(entry),
        );
        const fresh = changed.length > 0 ? await newMemberships(ref, changed) : [];
        pending = [...pending.filter((entry) => !gone.includes(entry) && !changed.includes(entry)), ...fresh];
        return AGAIN;
      }
    }, CONFLICT_RETRIES);
  }
  return left;
}

/** The company's members of these lists that are NEW (strongly consistent: read to be written). */
async function newMemberships(ref: CompanyRef, lists: ListRef[]) {
  const items = await batchGet(
    tableName(),
    lists.map(({ accountId, listId }) => keys.listMember(accountId, listId, ref)),
    { projection: ['pk', ...MEMBER_ATTRIBUTES], consistent: true },
  );
  return items
    .filter((item) => item['state'] === 'NEW')
    .map((item) => ({ ...listOfKey(item['pk'] as string), member: toMember(item) }));
}

// ---- Filter profiles and the smart lists the import re-evaluates ---------------------------------

/** The item that holds a company's filter profile (written by the import's derivation, batched). */
export function filterProfileItem(ref: CompanyRef, packed: string, contacts: number): Item {
  return { ...keys.filterProfile(ref), entity: 'FilterProfile', p: packed, c: contacts };
}

export interface StoredProfile {
  ref: CompanyRef;
  packed: string;
  contacts: number;
}

/** Every company's filter profile in these countries: one Query per shard, all in parallel. */
export async function getFilterProfiles(countries: readonly Country[]): Promise<StoredProfile[]> {
  const shards = countries.flatMap((country) =>
    Array.from({ length: FILTER_PROFILE_SHARDS }, (_, shard) => ({ country, shard })),
  );
  const pages = await Promise.all(
    shards.map(async ({ country, shard }) =>
      (
        await queryAll({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.filterProfiles(country, shard) },
          ProjectionExpression: 'sk, p, c',
        })
      ).map((item) => ({
        ref: { country, companyNumber: item['sk'] as string },
        packed: item['p'] as string,
        contacts: Number(item['c'] ?? 0),
      })),
    ),
  );
  return pages.flat();
}

/** A changed company entering or leaving a smart list, as the import's derivation found it. */
export interface SmartListFlip {
  /** The item that holds it (with the company's other flips of the same change). */
  key: { pk: string; sk: string };
  accountId: string;
  listId: number;
  ref: CompanyRef;
  /** The company's filter profile after the change (packed) and its contacts. */
  packed: string;
  contacts: number;
  /** Whether it matched the list before the change. */
  matched: boolean;
  /** When it was derived (ms): of two flips of one company and list, the later counts. */
  at: number;
}

/** One item for all the flips of one change of a company: what they share once, then each list. */
export function smartListFlipsItem(
  { ref, packed, contacts, at }: Pick<SmartListFlip, 'ref' | 'packed' | 'contacts' | 'at'>,
  lists: Pick<SmartListFlip, 'accountId' | 'listId' | 'matched'>[],
  change: string,
): Item {
  return {
    ...keys.smartListFlip(ref, change),
    entity: 'SmartListFlips',
    p: packed,
    c: contacts,
    at,
    l: JSON.stringify(lists.map((l) => [l.accountId, l.listId, l.matched ? 1 : 0])),
  };
}

/** Every flip waiting for the import's completion: one Query per shard, in parallel, consistent. */
export async function getSmartListFlips(): Promise<SmartListFlip[]> {
  const items = await queryPartitions(
    Array.from({ length: SMART_FLIP_SHARDS }, (_, shard) => keys.smartListFlips(shard)),
  );
  return items.flatMap((item) => {
    const key = { pk: item['pk'] as string, sk: item['sk'] as string };
    const lists = JSON.parse(item['l'] as string) as [string, number, 0 | 1][];
    return lists.map(([accountId, listId, matched]) => ({
      key,
      accountId,
      listId,
      ref: companyOfKey(key.sk),
      packed: item['p'] as string,
      contacts: Number(item['c'] ?? 0),
      matched: matched === 1,
      at: Number(item['at']),
    }));
  });
}

export interface SmartListEntry {
  accountId: string;
  listId: number;
  filters: Filters;
}

/** Every smart list's filters, across accounts (the import only; one partition, a Query). */
export async function getSmartLists(): Promise<SmartListEntry[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.smartLists() },
  });
  return items.map((item) => ({
    ...listOfKey(item['sk'] as string),
    filters: JSON.parse(item['filters'] as string) as Filters,
  }));
}

// ---- Pages: a slice of a list's order, read from the nearer end ----------------------------------

/** One state's companies (the table partition of that state) or every state's (`ALL`, gsi1). */
export type OrderView = MemberState | 'ALL';

function orderQuery(accountId: string, listId: number, view: OrderView) {
  return view === 'ALL'
    ? {
        TableName: tableName(),
        IndexName: GSI1.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': GSI1.partitionKey, '#sk': 'sk', '#contacts': 'contacts' },
        ExpressionAttributeValues: { ':pk': keys.listOrderAllPartition(accountId, listId) } as Item,
        ProjectionExpression: '#sk, #contacts',
      }
    : {
        TableName: tableName(),
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#contacts': 'contacts' },
        ExpressionAttributeValues: { ':pk': keys.listOrderPartition(accountId, listId, view) } as Item,
        ProjectionExpression: '#sk, #contacts',
      };
}

function toOrderEntry(item: Item): OrderEntry {
  const { matchedSinceMs, ref } = listOrderOfKey(item['sk'] as string);
  return { ref, matchedSinceMs, contacts: Number(item['contacts'] ?? 0) };
}

export interface Slice {
  offset: number;
  count: number;
  /** How many entries the view holds (the list's counter). */
  total: number;
}

/**
 * Entries `offset` to `offset + count` of a view in the contract's order. A Query has no offset, so
 * the entries before the slice are read too — from whichever end is nearer: forwards `offset + count`
 * keys-only items, or backwards `total − offset`. One Query page (1 MB) holds about 14,000 such
 * items, more than the contract's largest offset (10,000) plus limit (500): always one round trip.
 */
export async function getOrderSlice(
  accountId: string,
  listId: number,
  view: OrderView,
  { offset, count, total }: Slice,
): Promise<OrderEntry[]> {
  const end = Math.min(offset + count, total);
  if (offset >= end) return [];
  const query = orderQuery(accountId, listId, view);
  if (end <= total - offset) {
    return (await queryAll(query, { limit: end })).slice(offset, end).map(toOrderEntry);
  }
  const tail = (await queryAll({ ...query, ScanIndexForward: false }, { limit: total - offset }))
    .map(toOrderEntry)
    .reverse();
  // `tail` holds positions total − tail.length … total − 1.
  const first = total - tail.length;
  return tail.slice(Math.max(0, offset - first), end - first);
}

/**
 * The companies whose contacts cover contacts `offset` to `offset + count` of a list (§7.4: the
 * contacts of its companies that are not ARCHIVED, in the list's order), and the position of the
 * first one's first contact. Reads from the nearer end of the contacts too, only companies that have
 * contacts (a FilterExpression; each of them holds at least one contact, so the items needed are at
 * most the contacts needed). A STATIC list has no NEW companies: its SAVED partition is the view.
 */
export async function getContactSlice(
  accountId: string,
  listId: number,
  listType: ListType,
  { offset, count, total }: Slice,
): Promise<{ covering: OrderEntry[]; first: number }> {
  const end = Math.min(offset + count, total);
  if (offset >= end) return { covering: [], first: offset };
  const smart = listType === 'SMART';
  const base = orderQuery(accountId, listId, smart ? 'ALL' : 'SAVED');
  const query = {
    ...base,
    FilterExpression: smart ? '#contacts > :zero AND #state <> :archived' : '#contacts > :zero',
    ExpressionAttributeNames: { ...base.ExpressionAttributeNames, ...(smart ? { '#state': 'state' } : {}) },
    ExpressionAttributeValues: {
      ...base.ExpressionAttributeValues,
      ':zero': 0,
      ...(smart ? { ':archived': 'ARCHIVED' } : {}),
    },
  };
  const sum = (items: Item[]) => items.reduce((n, item) => n + Number(item['contacts']), 0);
  const forward = end <= total - offset;
  const needed = forward ? end : total - offset;
  const items = await queryAll(
    { ...query, Limit: needed, ...(forward ? {} : { ScanIndexForward: false }) },
    { until: (read) => sum(read) >= needed },
  );
  const entries = (forward ? items : items.reverse()).map(toOrderEntry);
  let position = forward ? 0 : total - sum(items);
  const covering: OrderEntry[] = [];
  let first = position;
  for (const entry of entries) {
    if (position >= end) break;
    if (position + entry.contacts > offset) {
      if (covering.length === 0) first = position;
      covering.push(entry);
    }
    position += entry.contacts;
  }
  return { covering, first };
}

// ---- Companies as lists show them ----------------------------------------------------------------

export interface ListedCompany extends CompanyRef {
  name: string;
  place: string | null;
  /** Only when asked for (`withContacts`); the record's contacts, as stored. */
  contacts: StoredContact[];
  contactCount: number;
}

export interface StoredContact {
  contactId: number;
  firstName: string;
  lastName: string;
  jobTitle: string | null;
}

/** Name, place and contacts of companies, keyed by `companyKey`; unknown companies are absent. */
export async function getListedCompanies(
  refs: CompanyRef[],
  withContacts: boolean,
): Promise<Map<string, ListedCompany>> {
  const attributes = ['pk', 'name', 'place', ...(withContacts ? ['contacts'] : [])];
  const items = await batchGet(tableName(), refs.map(keys.company), { projection: attributes });
  return new Map(
    items.map((item) => {
      const ref = companyOfKey(item['pk'] as string);
      const contacts =
        typeof item['contacts'] === 'string' ? (JSON.parse(item['contacts']) as StoredContact[]) : [];
      return [
        companyKey(ref),
        {
          ...ref,
          name: item['name'] as string,
          place: (item['place'] as string | undefined) ?? null,
          contacts,
          contactCount: contacts.length,
        },
      ];
    }),
  );
}

// ---- What the import keeps: contact counts and match indexes ------------------------------------

export interface Membership {
  accountId: string;
  listId: number;
  state: MemberState;
  matchedSinceMs: number;
  contacts: number;
}

/** Every list the company is in, across accounts (the import's derivation; never on a request path). */
export async function getMemberships(ref: CompanyRef): Promise<Membership[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: GSI1.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
    ExpressionAttributeValues: { ':pk': keys.listedCompany(ref) },
  });
  return items.map((item) => {
    const { accountId, listId } = listOfKey(item['pk'] as string);
    return {
      accountId,
      listId,
      state: item['state'] as MemberState,
      matchedSinceMs: Date.parse(item['matchedSince'] as string),
      contacts: Number(item['contacts'] ?? 0),
    };
  });
}

/** A listed company whose number of contacts is now `contacts` (its member says `membership.contacts`). */
export interface ContactCount {
  ref: CompanyRef;
  membership: Membership;
  contacts: number;
}

/** Two actions per member (member, order item) and one for the list's counter: 2 × 49 + 1 ≤ 100. */
const COUNTS_PER_TRANSACTION = 49;

/**
 * Members of one list whose companies' numbers of contacts changed (the import's completion, per
 * list): member, order item and the list's contact counter move together, one transaction per 49,
 * each member only if it still has the count and state read (a member moved, gone or already counted
 * meanwhile is skipped: whoever moved it counted its contacts). A list gone meanwhile is skipped.
 * Returns how many members now count their new number.
 */
export async function updateContactCounts(
  accountId: string,
  listId: number,
  counts: ContactCount[],
): Promise<number> {
  let updated = 0;
  for (const part of chunk(
    counts.filter((c) => c.contacts !== c.membership.contacts),
    COUNTS_PER_TRANSACTION,
  )) {
    let pending = part;
    const gone = await retrying(async () => {
      for (;;) {
        if (pending.length === 0) return false;
        try {
          await send(() =>
            dynamodb().send(new TransactWriteCommand(contactCountTransaction(accountId, listId, pending))),
          );
          updated += pending.length;
          return false;
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (!reasons) throw error;
          if (reasons[reasons.length - 1] === 'ConditionalCheckFailed') return true;
          const refused = new Set(
            pending.filter(
              (_, i) =>
                reasons[2 * i] === 'ConditionalCheckFailed' ||
                reasons[2 * i + 1] === 'ConditionalCheckFailed',
            ),
          );
          // Another transaction on one of its items (a PUT, a state move): again, after a wait.
          if (refused.size === 0) return AGAIN;
          pending = pending.filter((c) => !refused.has(c));
        }
      }
    }, CONFLICT_RETRIES);
    if (gone) break;
  }
  return updated;
}

function contactCountTransaction(
  accountId: string,
  listId: number,
  counts: ContactCount[],
): TransactWriteCommandInput {
  const table = tableName();
  const delta = counts.reduce(
    (sum, { membership, contacts }) =>
      sum + (membership.state === 'ARCHIVED' ? 0 : contacts - membership.contacts),
    0,
  );
  return {
    TransactItems: [
      ...counts.flatMap(({ ref, membership, contacts }) => [
        {
          Update: {
            TableName: table,
            Key: keys.listMember(accountId, listId, ref),
            UpdateExpression: 'SET contacts = :new',
            ConditionExpression: 'contacts = :old AND #state = :state AND matchedSince = :since',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: {
              ':new': contacts,
              ':old': membership.contacts,
              ':state': membership.state,
              ':since': new Date(membership.matchedSinceMs).toISOString(),
            },
          },
        },
        {
          Update: {
            TableName: table,
            Key: keys.listOrder(accountId, listId, membership.state, membership.matchedSinceMs, ref),
            UpdateExpression: 'SET contacts = :new',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':new': contacts },
          },
        },
      ]),
      {
        Update: {
          TableName: table,
          Key: keys.list(accountId, listId),
          UpdateExpression: 'ADD nContacts :delta',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':delta': delta },
        },
      },
    ],
  };
}

// ---- Contact changes the import noted, for its completion ----------------------------------------

/** The note that a company's number of contacts changed (one per change; the import's derivation). */
export function contactsChangedItem(ref: CompanyRef, change: string): Item {
  return { ...keys.contactsChanged(ref, change), entity: 'ContactsChanged' };
}

export interface ContactsChanged {
  key: { pk: string; sk: string };
  ref: CompanyRef;
}

/** Every company noted as having changed its number of contacts: one Query per shard, in parallel. */
export async function getContactsChanged(): Promise<ContactsChanged[]> {
  const items = await queryPartitions(
    Array.from({ length: CONTACTS_CHANGED_SHARDS }, (_, shard) => keys.contactsChangedShard(shard)),
    { ProjectionExpression: 'pk, sk' },
  );
  return items.map((item) => ({
    key: { pk: item['pk'] as string, sk: item['sk'] as string },
    ref: companyOfKey(item['sk'] as string),
  }));
}

/** The companies' numbers of contacts now, as their filter profiles hold them (absent: unknown). */
export async function getContactNumbers(refs: CompanyRef[]): Promise<Map<string, number>> {
  const items = await batchGet(tableName(), refs.map(keys.filterProfile), {
    projection: ['pk', 'sk', 'c'],
    consistent: true,
  });
  return new Map(
    items.map((item) => [
      companyKey(filterProfileOfKey({ pk: item['pk'] as string, sk: item['sk'] as string })),
      Number(item['c'] ?? 0),
    ]),
  );
}

export interface MatchKey {
  kind: MatchKind;
  value: string;
}

/** Adds the company (`BE#0403170701`) to the index entry, or takes it out. */
export async function updateMatchIndex(key: MatchKey, company: string, change: 'add' | 'remove') {
  await send(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.matchIndex(key.kind, key.value),
        UpdateExpression: change === 'add' ? 'ADD companies :c SET entity = :entity' : 'DELETE companies :c',
        ExpressionAttributeValues: {
          ':c': new Set([company]),
          ...(change === 'add' ? { ':entity': 'MatchIndex' } : {}),
        },
      }),
    ),
  );
}

/** The companies under each index key (`companyKey` form), by `${kind}#${value}`; absent keys have none. */
export async function getMatchIndexes(matchKeys: MatchKey[]): Promise<Map<string, string[]>> {
  if (matchKeys.length === 0) return new Map();
  const items = await batchGet(
    tableName(),
    matchKeys.map((k) => keys.matchIndex(k.kind, k.value)),
    { projection: ['pk', 'companies'] },
  );
  return new Map(
    items.map((item) => [
      matchIndexTextOfKey(item['pk'] as string),
      [...((item['companies'] as Set<string> | undefined) ?? [])],
    ]),
  );
}
