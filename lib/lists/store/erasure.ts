/**
 * (ext) A company erased (contract §11.5.6: its registry now withholds its name) leaves every list it
 * is in, static and smart, whatever its state: its member and order item go, and the list's counters
 * (its state's, and its contacts unless it was ARCHIVED) move in the same transaction, conditional on
 * the member as read and on no smart-list flips in flight (flip-intents.ts), as every member write is.
 *
 * Cost per erased company: one gsi1 Query of the lists it is in, then per list one BatchGetItem (member
 * and list item) and one transaction of three actions. A member that changed meanwhile (moved, counted
 * anew) is read again; a list deleted meanwhile is left to its clean-up.
 */
import type { CompanyRef } from '../../companies/identifiers';
import { AGAIN, retrying } from '../../storage/batch';
import { tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { sendTransaction } from '../../storage/transactions';
import { getMemberships } from './contact-counts';
import { listCounterUpdate } from './member-writes';
import { CONFLICT_RETRIES, ListChangedError, type Member } from './model';
import { readMembers } from './members';
import { refusedMembers } from './moves';

/** Takes the company out of every list it is in; answers how many lists it left. */
export async function removeFromEveryList(ref: CompanyRef): Promise<number> {
  let left = 0;
  for (const { accountId, listId } of await getMemberships(ref)) {
    if (await removeMember(accountId, listId, ref)) left++;
  }
  return left;
}

async function removeMember(accountId: string, listId: number, ref: CompanyRef): Promise<boolean> {
  try {
    return await retrying(async () => {
      const [member] = await readMembers(accountId, listId, [ref]);
      if (!member) return false;
      try {
        await sendTransaction(memberLeaving(accountId, listId, member));
        return true;
      } catch (error) {
        // Refused: read again (a member moved or counted anew meanwhile, or flips in flight).
        await refusedMembers(error, accountId, listId, [member], 2);
        return AGAIN;
      }
    }, CONFLICT_RETRIES);
  } catch (error) {
    if (error instanceof ListChangedError) return false;
    throw error;
  }
}

/** The member (as read: state, contacts) and its order item deleted, the list's counters moved. */
function memberLeaving(accountId: string, listId: number, member: Member) {
  return [
    {
      Delete: {
        TableName: tableName(),
        Key: keys.listMember(accountId, listId, member.ref),
        ConditionExpression: '#state = :state AND contacts = :contacts',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':state': member.state, ':contacts': member.storedContacts },
      },
    },
    {
      Delete: {
        TableName: tableName(),
        Key: keys.listOrder(accountId, listId, member.state, member.matchedSinceMs, member.ref),
      },
    },
    listCounterUpdate(accountId, listId, member.state, {
      members: -1,
      // Contacts count for companies that are not ARCHIVED.
      contacts: member.state === 'ARCHIVED' ? 0 : -member.contacts,
      at: new Date().toISOString(),
      counted: [member],
    }),
  ];
}
