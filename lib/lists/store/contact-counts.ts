/**
 * What the import keeps right when companies' numbers of contacts change: the lists a company is in,
 * the notes of changed contacts, the numbers now, and the members' and lists' contact counts.
 */
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { companyKey, type CompanyRef } from '../../companies/identifiers';
import { AGAIN, batchGet, chunk, queryAll, queryPartitions, retrying } from '../../storage/batch';
import { cancellationReasons, dynamodb, send, tableName } from '../../storage/client';
import {
  companyOfKey,
  CONTACTS_CHANGED_SHARDS,
  filterProfileOfKey,
  keys,
  listOfKey,
} from '../../storage/keys';
import { CONFLICT_RETRIES, GSI1, type Item, type MemberState } from './model';

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
