/**
 * What a new list is given and what it counts against (contract §7.2, §2.1): an id drawn at random
 * (a positive integer unique across the service, claimed by a conditional put in the list's own
 * transaction, so an id says nothing about how many lists exist or whose they are), and the account's
 * count of lists, at most MAX_LISTS_PER_ACCOUNT, moved in the same transactions as the lists.
 */
import { randomInt } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getItem, queryAll } from '../../storage/batch';
import { dynamodb, isConditionFailed, send, tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import type { Item } from './model';

/** §2.1: an account's 201st list is refused (409 LIMIT_REACHED). */
export const MAX_LISTS_PER_ACCOUNT = 200;

/**
 * Drawn ids lie in this range: far above the small ids the demo data and older tables hold, and within
 * 32 bits, which every client's integer holds.
 */
export const DRAWN_LIST_IDS = { min: 100_000_000, max: 2_147_483_647 } as const;

export const drawListId = (): number => randomInt(DRAWN_LIST_IDS.min, DRAWN_LIST_IDS.max + 1);

export const listIdClaimItem = (listId: number): Item => ({
  ...keys.listIdClaim(listId),
  entity: 'ListIdClaim',
});

/** The count's attribute on the account's count item. */
export const LIST_COUNT_ATTRIBUTE = 'lists';

/**
 * Makes sure the account's count item exists before a create moves it. An account whose lists predate
 * the count has them counted once (a Query of its list items, keys only: at most a few hundred); the
 * write is conditional,
 * so of two first creates side by side one writes it and the other finds it.
 */
export async function ensureListCount(accountId: string): Promise<void> {
  if (await getItem(tableName(), keys.listCount(accountId), { consistent: true })) return;
  const { pk, skPrefix } = keys.accountLists(accountId);
  const count = (
    await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ProjectionExpression: 'pk',
    })
  ).length;
  try {
    await send(() =>
      dynamodb().send(
        // An UpdateItem that creates the item (the functions make UpdateItem calls anyway: no PutItem code).
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.listCount(accountId),
          UpdateExpression: 'SET #n = :count, entity = :entity',
          ConditionExpression: 'attribute_not_exists(pk)',
          ExpressionAttributeNames: { '#n': LIST_COUNT_ATTRIBUTE },
          ExpressionAttributeValues: { ':count': count, ':entity': 'ListCount' },
        }),
      ),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}
