/**
 * Changing a list's settings (contract §7.6): one transaction, conditional on the list being as read.
 */
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { cancellationReasons, dynamodb, send, tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { SmartListLimitReached } from '../../errors';
import type { Filters } from '../filters';
import { NO_INTENT } from './flip-intents';
import { nameItem, nameKeyOf, NameTakenError, smartListItem, watchedPut } from './lists';
import { ListChangedError, revisionCondition, type Item, type StoredList } from './model';
import { accountHoldUpdate, HELD, maxSmartCompanies } from './smart-holds';

/**
 * What a filter change takes from the account's bound (smart-holds.ts): the list's hold from now on
 * (`held`), what the account's count moves by (`delta`), and the list's revision they were computed
 * at (the change holds only if no member changed since, and no flips are in flight).
 */
export interface FilterHold {
  held: number;
  delta: number;
  revision: number;
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
export async function updateList(
  list: StoredList,
  changes: ListChanges,
  now: Date,
  hold?: FilterHold,
): Promise<StoredList> {
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
  if (hold) field(HELD, hold.held);
  const revision = hold && revisionCondition(hold.revision);
  if (revision) Object.assign(values, revision.values);
  const oldKey = nameKeyOf(list.name);
  const newKey = nameKeyOf(next.name);
  const renamed = oldKey !== newKey;
  const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
    {
      Update: {
        TableName: tableName(),
        Key: keys.list(list.accountId, list.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `attribute_exists(pk) AND #updatedAt = :was${revision ? ` AND ${revision.condition} AND ${NO_INTENT}` : ''}`,
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
    ...(hold && hold.delta !== 0 ? [accountHoldUpdate(list.accountId, hold.delta)] : []),
    // The import's index of watched lists (§12) follows the flag.
    ...(changes.notificationsEnabled !== undefined && list.type === 'STATIC'
      ? [
          changes.notificationsEnabled
            ? watchedPut(next)
            : { Delete: { TableName: tableName(), Key: keys.watchedList(list.accountId, list.id) } },
        ]
      : []),
  ];
  try {
    await send(() => dynamodb().send(new TransactWriteCommand({ TransactItems: items })));
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    if (renamed && reasons[1] === 'ConditionalCheckFailed') throw new NameTakenError();
    const holdAt = renamed ? 4 : 2;
    if (
      hold &&
      hold.delta > 0 &&
      reasons[0] !== 'ConditionalCheckFailed' &&
      reasons[holdAt] === 'ConditionalCheckFailed'
    )
      throw new SmartListLimitReached(maxSmartCompanies());
    throw new ListChangedError();
  }
  return next;
}
