/**
 * What the import's smart-list evaluation stores: a list's flips (companies entering or leaving it)
 * at once, the flips the import notes for its completion, and the smart lists it follows (their
 * filters).
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { companyKey, type CompanyRef } from '../../companies/identifiers';
import { AGAIN, chunk, queryAll, queryPartitions, retrying } from '../../storage/batch';
import { cancellationReasons, dynamodb, send, tableName } from '../../storage/client';
import { companyOfKey, keys, listOfKey, SMART_FLIP_SHARDS } from '../../storage/keys';
import type { Filters } from '../filters';
import { membersFlipping } from './member-writes';
import { readMembers } from './members';
import { listExists } from './moves';
import { CONFLICT_RETRIES, type Item, type Member, type NewMember } from './model';

/** Two actions per company (member, order item) and one for the list's counters: 2 × 49 + 1 ≤ 100. */
const FLIPS_PER_TRANSACTION = 49;

export interface Flipped {
  entered: number;
  left: number;
}

type Flip = { enter: NewMember } | { leave: Member };

/**
 * A smart list's flips at once (§7.6): the companies `entering` enter as NEW at `now` unless they are
 * in the list already (in any state), and those of `stopping` that are NEW leave (SAVED and ARCHIVED
 * ones stay). The members stopping are read in one BatchGetItem (consistent); then every flip of the
 * list goes in one transaction per 49 — members and order items, and the list's counters moved once
 * (member-writes.ts `membersFlipping`) — never a transaction per company. Each member's write is
 * conditional (added only if absent; taken out only if still NEW and as read), so applying the same
 * flips again, after a cut-off run or alongside a user's move, changes nothing twice: a member found
 * present is dropped, one that changed is read again (moved: it stays; counted anew: it leaves with
 * its count now). A list gone meanwhile is skipped.
 */
export async function flipMembers(
  accountId: string,
  listId: number,
  entering: NewMember[],
  stopping: CompanyRef[],
  now: Date,
): Promise<Flipped> {
  const result: Flipped = { entered: 0, left: 0 };
  const unique = [...new Map(entering.map((m) => [companyKey(m.ref), m])).values()];
  const leaving = stopping.length > 0 ? await newMembers(accountId, listId, stopping) : [];
  const flips: Flip[] = [...unique.map((enter) => ({ enter })), ...leaving.map((leave) => ({ leave }))];
  for (const part of chunk(flips, FLIPS_PER_TRANSACTION)) {
    let pending = part;
    const gone = await retrying(async () => {
      for (;;) {
        if (pending.length === 0) return false;
        const enter = pending.flatMap((f) => ('enter' in f ? [f.enter] : []));
        const leave = pending.flatMap((f) => ('leave' in f ? [f.leave] : []));
        try {
          await send(() =>
            dynamodb().send(
              new TransactWriteCommand({
                TransactItems: membersFlipping(accountId, listId, enter, leave, now),
              }),
            ),
          );
          result.entered += enter.length;
          result.left += leave.length;
          return false;
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (!reasons) throw error;
          // The list item's condition: the list is gone, or a count changed (an import's `cc` entry).
          const listRefused = reasons[reasons.length - 1] === 'ConditionalCheckFailed';
          if (listRefused && !(await listExists(accountId, listId))) return true;
          // Each member's condition is its first action: entering ones first, then leaving ones.
          const refused = (i: number) => reasons[2 * i] === 'ConditionalCheckFailed';
          const present = new Set(enter.filter((_, i) => refused(i)));
          const changed = listRefused ? leave : leave.filter((_, i) => refused(enter.length + i));
          if (present.size === 0 && changed.length === 0) return AGAIN;
          const fresh =
            changed.length > 0
              ? await newMembers(
                  accountId,
                  listId,
                  changed.map((m) => m.ref),
                )
              : [];
          pending = [
            ...pending.filter((f) => ('enter' in f ? !present.has(f.enter) : !changed.includes(f.leave))),
            ...fresh.map((leave) => ({ leave })),
          ];
        }
      }
    }, CONFLICT_RETRIES);
    if (gone) break;
  }
  return result;
}

/** These companies' members of the list that are NEW, with their counts now (read to be written). */
async function newMembers(accountId: string, listId: number, refs: CompanyRef[]): Promise<Member[]> {
  return (await readMembers(accountId, listId, refs)).filter((m) => m.state === 'NEW');
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
