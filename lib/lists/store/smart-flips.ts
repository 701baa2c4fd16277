/**
 * What the import's smart-list evaluation stores: one company entering or leaving several lists at
 * once, the flips it notes for its completion, and the smart lists it follows (their filters).
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { CompanyRef } from '../../companies/identifiers';
import { AGAIN, batchGet, chunk, queryAll, queryPartitions, retrying } from '../../storage/batch';
import { cancellationReasons, dynamodb, send, tableName } from '../../storage/client';
import { companyOfKey, keys, listOfKey, SMART_FLIP_SHARDS } from '../../storage/keys';
import type { Filters } from '../filters';
import { membersEntering, newMembersLeaving } from './member-writes';
import {
  CONFLICT_RETRIES,
  MEMBER_ATTRIBUTES,
  toMember,
  type Item,
  type MemberState,
  type NewMember,
} from './model';

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
  for (const part of chunk(lists, LISTS_PER_TRANSACTION)) {
    let pending = part;
    await retrying(async () => {
      for (;;) {
        if (pending.length === 0) return true;
        try {
          await send(() =>
            dynamodb().send(
              new TransactWriteCommand({
                TransactItems: pending.flatMap(({ accountId, listId }) =>
                  membersEntering(accountId, listId, [member], state, now),
                ),
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
              TransactItems: pending.flatMap(({ accountId, listId, member }) =>
                newMembersLeaving(accountId, listId, [member]),
              ),
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
