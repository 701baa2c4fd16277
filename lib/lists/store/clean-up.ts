/**
 * The clean-up of deleted lists (contract §7.6: a deleted list leaves nothing behind): `deleteList`
 * (lists.ts) leaves a clean-up entry; the worker here deletes the list's members and order items.
 */
import type { StorageAccess } from '../../storage/access';
import { batchDelete, queryAll } from '../../storage/batch';
import { tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { listOfKey } from '../../storage/keys';
import * as partitions from '../../storage/partitions';
import { MEMBER_STATES } from './model';

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
