/**
 * What a recount of a country's match counts stores (lib/lists/match-recount.ts): where it stands (one
 * item per country, `keys.matchCountsRecount`), the counts it builds apart (`keys.matchCountsRebuild`,
 * moved by the same marked `ADD`s as the import's, store/match-counts.ts), and the two steps that put
 * them in place of the country's counts: counts the recount found no company for are deleted, then
 * every rebuilt item replaces the country's item of its key whole (and goes from the rebuild). Every
 * step is a page of at most `limit` items and can be taken again: a turn cut off is taken again by
 * the next one, and changes nothing it did already.
 */
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Country } from '../../companies/identifiers';
import { batchDelete, batchGet, batchPut, getItem, queryPage } from '../../storage/batch';
import { conditionHeld, dynamodb, tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import type { Item } from './model';

export type RecountPhase = 'count' | 'prune' | 'copy';

export interface Recount {
  country: Country;
  /** This recount's id: its rebuilt counts' partition and its marks name it. */
  run: string;
  phase: RecountPhase;
  /** Turns taken so far: a turn's changes are conditional on it (two operators never take one twice). */
  turn: number;
  /** Where the phase goes on (a profile shard and key while counting, a key of the country's counts while pruning). */
  cursor?: { shard?: number; key?: Item };
}

/** The country's recount under way, if any (consistent). */
export async function getRecount(country: Country): Promise<Recount | null> {
  const item = await getItem(tableName(), keys.matchCountsRecount(country), { consistent: true });
  if (!item) return null;
  return {
    country,
    run: item['run'] as string,
    phase: item['phase'] as RecountPhase,
    turn: Number(item['turn']),
    ...(typeof item['cursor'] === 'string'
      ? { cursor: JSON.parse(item['cursor']) as Recount['cursor'] }
      : {}),
  };
}

/** Starts a recount of the country unless one is under way (then that one goes on). */
export async function startRecount(country: Country, run: string): Promise<void> {
  await conditionHeld(() =>
    dynamodb().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.matchCountsRecount(country),
          entity: 'MatchCountsRecount',
          run,
          phase: 'count',
          turn: 0,
          cursor: JSON.stringify({ shard: 0 }),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

/**
 * Ends a turn: the recount moves to `next` (or is done, its item gone, when null) — only if it is still
 * at the turn read. False when another turn got there first.
 */
export function endRecountTurn(
  recount: Recount,
  next: Pick<Recount, 'phase' | 'cursor'> | null,
): Promise<boolean> {
  const key = keys.matchCountsRecount(recount.country);
  const condition = {
    ConditionExpression: 'run = :run AND turn = :turn',
    ExpressionAttributeValues: { ':run': recount.run, ':turn': recount.turn },
  };
  if (!next) {
    return conditionHeld(() =>
      dynamodb().send(new DeleteCommand({ TableName: tableName(), Key: key, ...condition })),
    );
  }
  return conditionHeld(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: next.cursor
          ? 'SET phase = :phase, turn = :next, #cursor = :cursor'
          : 'SET phase = :phase, turn = :next REMOVE #cursor',
        ExpressionAttributeNames: { '#cursor': 'cursor' },
        ...condition,
        ExpressionAttributeValues: {
          ...condition.ExpressionAttributeValues,
          ':phase': next.phase,
          ':next': recount.turn + 1,
          ...(next.cursor ? { ':cursor': JSON.stringify(next.cursor) } : {}),
        },
      }),
    ),
  );
}

/**
 * A page of the country's counts from `from`: those the recount built none of are deleted (no company
 * counts there now). `next`: where the following page starts; absent after the last.
 */
export async function pruneCounts(
  recount: Recount,
  from: Item | undefined,
  limit: number,
): Promise<{ next?: Item }> {
  const page = await queryPage({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.matchCounts(recount.country) },
    ProjectionExpression: 'pk, sk',
    ConsistentRead: true,
    Limit: limit,
    ...(from ? { ExclusiveStartKey: from } : {}),
  });
  const rebuilt = rebuildOf(recount);
  const kept = new Set(
    (
      await batchGet(
        tableName(),
        page.items.map((item) => ({ pk: rebuilt, sk: item['sk'] as string })),
        { consistent: true, projection: ['sk'] },
      )
    ).map((item) => item['sk'] as string),
  );
  await batchDelete(
    tableName(),
    page.items
      .filter((item) => !kept.has(item['sk'] as string))
      .map((item) => keys.matchCount(recount.country, item['sk'] as string)),
  );
  return page.lastKey ? { next: page.lastKey } : {};
}

/**
 * A page of the rebuilt counts put in place of the country's (whole items), then taken from the
 * rebuild: the next page starts from the first again. `done`: that page was the last.
 */
export async function copyCounts(recount: Recount, limit: number): Promise<{ done: boolean }> {
  const page = await queryPage({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': rebuildOf(recount) },
    ConsistentRead: true,
    Limit: limit,
  });
  await batchPut(
    tableName(),
    page.items.map((item) => ({ ...item, ...keys.matchCount(recount.country, item['sk'] as string) })),
  );
  await batchDelete(
    tableName(),
    page.items.map((item) => ({ pk: item['pk'] as string, sk: item['sk'] as string })),
  );
  return { done: !page.lastKey };
}

/** Where a recount builds its counts. */
export const rebuildOf = (recount: Pick<Recount, 'country' | 'run'>) =>
  keys.matchCountsRebuild(recount.country, recount.run);
