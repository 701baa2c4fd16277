/**
 * Members moving between states (§7.6): member, order item and the list's counters together.
 */
import { AGAIN, chunk, getItem, retrying } from '../../storage/batch';
import { cancellationReasons, tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { sendTransaction, type TransactItems } from '../../storage/transactions';
import { INTENT, intentOf, NO_INTENT, settleExpired } from './flip-intents';
import { countedAsRead } from './member-writes';
import {
  CONFLICT_RETRIES,
  COUNTER,
  ListChangedError,
  REVISION,
  orderItem,
  type ListType,
  type Member,
  type MemberState,
} from './model';

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
 * read with — its member item's and, on the list item, its `cc` entry (or none) — and on no flips in
 * flight on the list (flip-intents.ts). A move writes the
 * member's count now into its member and order item and removes its `cc` entry. Returns the moves
 * that went through; a member that changed meanwhile is left out (the caller reads it again).
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
        await sendTransaction(moveTransaction(accountId, listId, pending, now));
        moved.push(...pending);
        return true;
      } catch (error) {
        // The list item's condition: the list is gone, or a count changed (an import's `cc` entry).
        const changed = await refusedMembers(error, accountId, listId, pending, 3);
        if (changed.length === 0) return AGAIN;
        stale.push(...changed);
        pending = pending.filter((move) => !changed.includes(move));
        return pending.length === 0 ? true : AGAIN;
      }
    }, CONFLICT_RETRIES);
  }
  return { moved, stale };
}

function moveTransaction(accountId: string, listId: number, moves: Move[], now: Date): TransactItems {
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
  const asRead = countedAsRead(moves.map((m) => m.member));
  return [
    ...moves.flatMap(({ member, to }) => [
      {
        Update: {
          TableName: table,
          Key: keys.listMember(accountId, listId, member.ref),
          // Its count now goes into the member (and order item) and leaves the list's `cc` map.
          UpdateExpression: 'SET #state = :to, contacts = :contacts',
          // Its contacts as read too: the counters move by them (an import may have counted anew).
          ConditionExpression: '#state = :from AND contacts = :stored',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':to': to,
            ':from': member.state,
            ':contacts': member.contacts,
            ':stored': member.storedContacts,
          },
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
        UpdateExpression: `SET updatedAt = :now ADD ${[...adds.map(([name], i) => `${name} :c${i}`), `${REVISION} :one`].join(', ')}${asRead.remove}`,
        ConditionExpression: ['attribute_exists(pk)', NO_INTENT, ...asRead.conditions].join(' AND '),
        ExpressionAttributeNames: asRead.names,
        ExpressionAttributeValues: {
          ':now': now.toISOString(),
          ':one': 1,
          ...Object.fromEntries(adds.map(([, n], i) => [`:c${i}`, n])),
          ...asRead.values,
        },
      },
    },
  ];
}

/**
 * The members a cancelled transaction refused (`actions` per member, the list item's condition last):
 * every one when the list item's condition failed because a count changed meanwhile, else those whose
 * own condition failed; none while the import's flips are in flight on the list (flip-intents.ts:
 * the caller tries again after a backoff; flips past their lease are finished first). A list that is
 * gone throws ListChangedError; anything but a cancellation rethrows.
 */
export async function refusedMembers<T>(
  error: unknown,
  accountId: string,
  listId: number,
  pending: T[],
  actions: number,
): Promise<T[]> {
  const reasons = cancellationReasons(error);
  if (!reasons) throw error;
  if (reasons[reasons.length - 1] !== 'ConditionalCheckFailed')
    return pending.filter((_, i) => reasons[actions * i] === 'ConditionalCheckFailed');
  const list = await listWithIntent(accountId, listId);
  if (!list) throw new ListChangedError();
  return list.intent ? [] : pending;
}

/**
 * The list item as a refused write finds it: absent (gone), or there with its type, visibility and the
 * intent it holds, if any (flip-intents.ts), which is finished first when it is past its lease; the
 * caller tries again after a backoff.
 */
export async function listWithIntent(accountId: string, listId: number) {
  const item = await getItem(tableName(), keys.list(accountId, listId), {
    projection: ['pk', 'type', 'shared', 'createdBy', INTENT],
    consistent: true,
  });
  if (!item) return undefined;
  const intent = intentOf(item);
  if (intent) await settleExpired(accountId, listId, intent);
  return {
    intent,
    type: item['type'] as ListType,
    shared: item['shared'] === true,
    createdBy: item['createdBy'] as string,
  };
}
