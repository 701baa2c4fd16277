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
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { batchGet, chunk, getItem, projection, queryAll } from '../storage/batch';
import { cancellationReasons, dynamodb, isConditionFailed, send, tableName } from '../storage/client';
import { StorageUnavailableError } from '../storage/errors';
import { companyOfKey, keys, listOrderOfKey } from '../storage/keys';
import { tableDefinition } from '../storage/table';

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
  /** A SMART list's filters (§7.6), as given; null on a STATIC list. */
  filters: unknown;
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
const MAX_ATTEMPTS = 12;
const BASE_DELAY_MS = 20;
const MAX_DELAY_MS = 800;

// ---- Lists --------------------------------------------------------------------------------------

export async function getList(accountId: string, listId: number): Promise<StoredList | null> {
  const item = await getItem(tableName(), keys.list(accountId, listId));
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

export type ListDraft = Omit<StoredList, 'id' | 'counts' | 'contacts' | 'updatedAt'>;

/** Stores a new, empty list under a fresh id. */
export async function createList(draft: ListDraft): Promise<StoredList> {
  const id = await allocateListId();
  const list: StoredList = {
    ...draft,
    id,
    updatedAt: draft.createdAt,
    counts: { NEW: 0, SAVED: 0, ARCHIVED: 0 },
    contacts: 0,
  };
  await send(() =>
    dynamodb().send(
      new PutCommand({
        TableName: tableName(),
        Item: listItem(list),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
  return list;
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
    filters: typeof item['filters'] === 'string' ? (JSON.parse(item['filters']) as unknown) : null,
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
): Promise<CompanyRef[]> {
  const unique = [...new Map(members.map((m) => [companyKey(m.ref), m])).values()];
  const added: CompanyRef[] = [];
  for (const part of chunk(unique, MEMBERS_PER_TRANSACTION)) {
    added.push(...(await addChunk(accountId, listId, part, options)));
  }
  return added;
}

async function addChunk(
  accountId: string,
  listId: number,
  members: NewMember[],
  options: AddOptions,
): Promise<CompanyRef[]> {
  let pending = members;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === MAX_ATTEMPTS) throw new StorageUnavailableError();
    if (attempt > 0) await backoff(attempt);
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
      pending = pending.filter((m) => !present.has(companyKey(m.ref)));
      // Only a conflict (another transaction on the list item) needs a wait; a dropped member does not.
      if (present.size > 0) attempt = -1;
    }
  }
  return [];
}

function addTransaction(
  accountId: string,
  listId: number,
  members: NewMember[],
  { state, now, onlyType }: AddOptions,
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
            Item: {
              ...keys.listMember(accountId, listId, m.ref),
              ...keys.listMembership(accountId, listId, m.ref),
              entity: 'ListMember',
              state,
              matchedSince,
              contacts: m.contacts,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: table,
            Item: {
              ...keys.listOrder(accountId, listId, state, ms, m.ref),
              entity: 'ListOrder',
              contacts: m.contacts,
            },
          },
        },
      ]),
      {
        Update: {
          TableName: table,
          Key: keys.list(accountId, listId),
          UpdateExpression: `ADD ${COUNTER[state]} :n, nContacts :c SET updatedAt = :now`,
          ConditionExpression: onlyType ? 'attribute_exists(pk) AND #type = :type' : 'attribute_exists(pk)',
          ExpressionAttributeValues: {
            ':n': members.length,
            ':c': contacts,
            ':now': matchedSince,
            ...(onlyType ? { ':type': onlyType } : {}),
          },
          ...(onlyType ? { ExpressionAttributeNames: { '#type': 'type' } } : {}),
        },
      },
    ],
  };
}

/**
 * The first `limit` members of one state in the contract's order (all of them without `limit`):
 * keys only, so about 14,000 fit one Query page.
 */
export async function getOrder(
  accountId: string,
  listId: number,
  state: MemberState,
  limit?: number,
): Promise<OrderEntry[]> {
  const entries: OrderEntry[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await send(() =>
      dynamodb().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.listOrderPartition(accountId, listId, state) },
          ...projection(['sk', 'contacts']),
          ...(limit === undefined ? {} : { Limit: limit - entries.length }),
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    for (const item of page.Items ?? []) {
      const { matchedSinceMs, ref } = listOrderOfKey(item['sk'] as string);
      entries.push({ ref, matchedSinceMs, contacts: Number(item['contacts'] ?? 0) });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && (limit === undefined || entries.length < limit));
  return entries;
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
    const [, accountId, listId] = /^ACCOUNT#(.*)#LIST#(\d+)$/.exec(item['pk'] as string)!;
    return {
      accountId: accountId!,
      listId: Number(listId),
      state: item['state'] as MemberState,
      matchedSinceMs: Date.parse(item['matchedSince'] as string),
      contacts: Number(item['contacts'] ?? 0),
    };
  });
}

/**
 * A member's company now has `contacts` contacts instead of `membership.contacts`: the member, its
 * order item and the list's counter move together, only if the member still has the old count
 * (so deriving the same change twice changes nothing the second time).
 */
export async function updateMemberContacts(ref: CompanyRef, membership: Membership, contacts: number) {
  const { accountId, listId, state } = membership;
  const delta = state === 'ARCHIVED' ? 0 : contacts - membership.contacts;
  try {
    await send(() =>
      dynamodb().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName(),
                Key: keys.listMember(accountId, listId, ref),
                UpdateExpression: 'SET contacts = :new',
                ConditionExpression: 'contacts = :old AND #state = :state',
                ExpressionAttributeNames: { '#state': 'state' },
                ExpressionAttributeValues: { ':new': contacts, ':old': membership.contacts, ':state': state },
              },
            },
            {
              Update: {
                TableName: tableName(),
                Key: keys.listOrder(accountId, listId, state, membership.matchedSinceMs, ref),
                UpdateExpression: 'SET contacts = :new',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':new': contacts },
              },
            },
            {
              Update: {
                TableName: tableName(),
                Key: keys.list(accountId, listId),
                UpdateExpression: 'ADD nContacts :delta',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':delta': delta },
              },
            },
          ],
        }),
      ),
    );
  } catch (error) {
    // Already applied, or the member moved meanwhile: whoever moved it counted its contacts.
    if (!cancellationReasons(error) && !isConditionFailed(error)) throw error;
  }
}

export interface MatchKey {
  kind: 'VAT' | 'DOMAIN' | 'NAME';
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
      (item['pk'] as string).slice('MATCH#'.length),
      [...((item['companies'] as Set<string> | undefined) ?? [])],
    ]),
  );
}

function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}
