/**
 * A list's members: reading them, adding companies, and taking out those still NEW.
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
import { companyKey, type CompanyRef } from '../../companies/identifiers';
import { AGAIN, batchGet, chunk, projection, queryAll, queryPage, retrying } from '../../storage/batch';
import { cancellationReasons, tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { companyOfKey } from '../../storage/keys';
import { sendTransaction } from '../../storage/transactions';
import { membersEntering, newMembersLeaving } from './member-writes';
import { listWithIntent, refusedMembers } from './moves';
import {
  CONFLICT_RETRIES,
  CONTACT_COUNTS,
  contactCountsOf,
  ListChangedError,
  MEMBER_ATTRIBUTES,
  toMember,
  type Item,
  type ListType,
  type Member,
  type MemberState,
  type NewMember,
} from './model';

/** Two actions per member (member, order) + the list item: 2 × 49 + 1 ≤ 100. */
const MEMBERS_PER_TRANSACTION = 49;

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
        const { state, now, onlyType, visibleTo } = options;
        await sendTransaction(
          membersEntering(accountId, listId, pending, state, now, { onlyType, visibleTo }),
        );
        return pending.map((m) => m.ref);
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons) throw error;
        // The last action is the list item: its condition failing means the list is gone or not of
        // the type or visibility asked, unless an import's intent held it a moment (gone by now, or not).
        if (reasons[reasons.length - 1] === 'ConditionalCheckFailed') {
          const list = await listWithIntent(accountId, listId);
          const held =
            list &&
            (!options.onlyType || list.type === options.onlyType) &&
            (options.visibleTo === undefined || list.shared || list.createdBy === options.visibleTo);
          if (held) return AGAIN;
          throw new ListChangedError();
        }
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

/** These companies' members of the list (strongly consistent: read to be written), by `companyKey`. */
export async function getMembers(
  accountId: string,
  listId: number,
  refs: CompanyRef[],
): Promise<Map<string, Member>> {
  return new Map((await readMembers(accountId, listId, refs)).map((m) => [companyKey(m.ref), m]));
}

/**
 * These companies' members of the list with their counts now: the list item (its `cc` map) is read
 * in the same BatchGetItem, strongly consistent, so no read is added. Absent members are left out.
 */
export async function readMembers(accountId: string, listId: number, refs: CompanyRef[]): Promise<Member[]> {
  if (refs.length === 0) return [];
  const listKey = keys.list(accountId, listId);
  const items = await batchGet(
    tableName(),
    [listKey, ...refs.map((ref) => keys.listMember(accountId, listId, ref))],
    { projection: [...MEMBER_ATTRIBUTES, CONTACT_COUNTS], consistent: true },
  );
  const list = items.find((item) => item['sk'] === listKey.sk);
  const counts = contactCountsOf(list);
  return items.filter((item) => item !== list).map((item) => toMember(item, counts));
}

/** Every member of the list, read whole: unbounded, so no request or worker turn calls it (the tests do). */
export async function getAllMembers(accountId: string, listId: number): Promise<Member[]> {
  const [partition] = keys.listPartitions(accountId, listId, []);
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': partition },
    ...projection(MEMBER_ATTRIBUTES),
  });
  return items.map((item) => toMember(item));
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
        await sendTransaction(newMembersLeaving(accountId, listId, pending));
        left += pending.length;
        return true;
      } catch (error) {
        // Changed meanwhile: read again. Moved or gone: not NEW any more, so it stays (or is gone
        // already); counted anew by an import: still NEW, it leaves with its contacts now.
        const changed = await refusedMembers(error, accountId, listId, pending, 2);
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

/**
 * The list's NEW members after `from` (a key of its NEW order partition; absent: from the first), at
 * most `limit`, in the list's order: what one turn of the smart-list worker checks for leaving. `next`
 * is where the following read starts; absent after the last.
 */
export async function readNewMembersFrom(
  accountId: string,
  listId: number,
  from: Item | undefined,
  limit: number,
): Promise<{ refs: CompanyRef[]; next?: Item }> {
  const page = await queryPage({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.listOrderPartition(accountId, listId, 'NEW') },
    ProjectionExpression: 'pk, sk',
    Limit: limit,
    ...(from ? { ExclusiveStartKey: from } : {}),
  });
  const refs = page.items.map((item) => companyOfKey(item['sk'] as string));
  return page.lastKey ? { refs, next: page.lastKey } : { refs };
}
