/**
 * The transaction actions of members entering a list or, still NEW, leaving it, with the one update of
 * the list item's counters that moves with them: what adding members and taking NEW ones out of a
 * list (members.ts) write (a smart list's flips go another way: smart-flips.ts). Each
 * member's two actions come first, in the members' order, and the list item's update last: callers
 * read a cancellation's reasons by those positions. Every update of the list item bumps its revision
 * (`rev`), and one for members leaving is conditional on their `cc` entries as read and removes them.
 */
import { tableName } from '../../storage/client';
import { companyKey } from '../../companies/identifiers';
import * as keys from '../../storage/keys';
import { NO_INTENT } from './flip-intents';
import {
  CONTACT_COUNTS,
  COUNTER,
  REVISION,
  memberItem,
  orderItem,
  type Item,
  type ListType,
  type Member,
  type MemberState,
  type NewMember,
} from './model';

/** What the list item's condition may ask besides the list existing. */
export interface ListCondition {
  /** Only a list of this type. */
  onlyType?: ListType | undefined;
  /** Only a list this user may see (§7.1: shared, or created by them). */
  visibleTo?: string | undefined;
}

/**
 * Companies entering the list in `state` at `now`: each one's member (added only if absent) and order
 * item, then the list's counters (conditional on the list: it exists, and what `condition` asks).
 */
export function membersEntering(
  accountId: string,
  listId: number,
  members: NewMember[],
  state: MemberState,
  now: Date,
  condition: ListCondition = {},
) {
  const contacts = state === 'ARCHIVED' ? 0 : members.reduce((sum, m) => sum + m.contacts, 0);
  return [
    ...members.flatMap((m) => memberPuts(accountId, listId, m, state, now)),
    listCounterUpdate(
      accountId,
      listId,
      state,
      { members: members.length, contacts, at: now.toISOString() },
      condition,
    ),
  ];
}

/**
 * Members leaving the list if they are still NEW and as read: each one's member and order item, then
 * the list's counters (conditional on the list existing).
 */
export function newMembersLeaving(accountId: string, listId: number, members: Member[]) {
  return [
    ...members.flatMap((m) => newMemberDeletes(accountId, listId, m)),
    listCounterUpdate(accountId, listId, 'NEW', {
      members: -members.length,
      contacts: -members.reduce((n, m) => n + m.contacts, 0),
      at: new Date().toISOString(),
      counted: members,
    }),
  ];
}

/**
 * The list item's update for `members` companies entering (positive) or leaving (negative) `state`
 * with `contacts` contacts between them: the state's counter and `nContacts` move by `ADD` in the
 * transaction that writes the members, `updatedAt` is set to `at` and the revision bumped,
 * conditional on the list (`listCondition`) and on the `counted` members' counts as read
 * (`countedAsRead`). The one counter update of every write that adds members or takes NEW ones out.
 */
export function listCounterUpdate(
  accountId: string,
  listId: number,
  state: MemberState,
  {
    members,
    contacts,
    at,
    counted = [],
  }: { members: number; contacts: number; at: string; counted?: Member[] },
  condition: ListCondition = {},
) {
  const asRead = countedAsRead(counted);
  const base = listCondition(condition, {
    ':n': members,
    ':c': contacts,
    ':now': at,
    ':one': 1,
    ...asRead.values,
  });
  const names = { ...base.ExpressionAttributeNames, ...asRead.names };
  return {
    Update: {
      TableName: tableName(),
      Key: keys.list(accountId, listId),
      UpdateExpression: `ADD ${COUNTER[state]} :n, nContacts :c, ${REVISION} :one SET updatedAt = :now${asRead.remove}`,
      ConditionExpression: [base.ConditionExpression, ...asRead.conditions].join(' AND '),
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: base.ExpressionAttributeValues,
    },
  };
}

/**
 * The list item's side of writing members whose counts were read (`Member.contacts`): each one's
 * `cc` entry is still the one read (or it still has none), and the entries are removed (the member
 * written, or gone, holds its count from now on). Placeholders `#k<i>` and `:k<i>`.
 */
export function countedAsRead(members: Member[]) {
  const names: Record<string, string> = {};
  const values: Item = {};
  const conditions: string[] = [];
  const removed: string[] = [];
  members.forEach((member, i) => {
    names[`#k${i}`] = companyKey(member.ref);
    if (member.mapped) {
      values[`:k${i}`] = member.contacts;
      conditions.push(`${CONTACT_COUNTS}.#k${i} = :k${i}`);
      removed.push(`${CONTACT_COUNTS}.#k${i}`);
    } else {
      conditions.push(`attribute_not_exists(${CONTACT_COUNTS}.#k${i})`);
    }
  });
  return {
    names: members.length > 0 ? names : {},
    values,
    conditions,
    remove: removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : '',
  };
}

/** A company entering the list in `state` at `now`: its member (added only if absent) and its order item. */
function memberPuts(
  accountId: string,
  listId: number,
  { ref, contacts }: NewMember,
  state: MemberState,
  now: Date,
) {
  return [
    {
      Put: {
        TableName: tableName(),
        Item: memberItem(accountId, listId, ref, state, now.toISOString(), contacts),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: orderItem(accountId, listId, state, now.getTime(), ref, contacts),
      },
    },
  ];
}

/**
 * A NEW member leaving the list: its member, only if it is still NEW and as read (matchedSince,
 * contacts), and its order item.
 */
function newMemberDeletes(accountId: string, listId: number, member: Member) {
  return [
    {
      Delete: {
        TableName: tableName(),
        Key: keys.listMember(accountId, listId, member.ref),
        ConditionExpression: '#state = :new AND matchedSince = :since AND contacts = :contacts',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':new': 'NEW',
          ':since': new Date(member.matchedSinceMs).toISOString(),
          ':contacts': member.storedContacts,
        },
      },
    },
    {
      Delete: {
        TableName: tableName(),
        Key: keys.listOrder(accountId, listId, 'NEW', member.matchedSinceMs, member.ref),
      },
    },
  ];
}

/**
 * The list item's condition: it exists (not deleted) with no flips in flight (flip-intents.ts), and
 * optionally has a type and is visible to a user.
 */
function listCondition({ onlyType, visibleTo }: ListCondition, values: Item) {
  const conditions = ['attribute_exists(pk)', NO_INTENT];
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
    ExpressionAttributeValues: expressionValues,
  };
}
