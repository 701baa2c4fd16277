/**
 * The counts smart filters are estimated from (lib/lists/match-estimate.ts), kept per country
 * (`keys.matchCount`). The import moves them once per batch: what the batch's changed companies add
 * (their new filter profiles) minus what they took (their old ones), summed per counter item, then one
 * UpdateItem `ADD` per item touched — never one per company. Each part of a batch's moves (at most 99
 * items) goes in one transaction with a mark of that part (`keys.matchCountsApplied`, put only if
 * absent, kept 30 days): a batch derived again (a run cut off before its journal went) moves them
 * once.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Country } from '../../companies/identifiers';
import { backoff, batchGet, queryAll } from '../../storage/batch';
import { StorageUnavailableError } from '../../storage/errors';
import { CONFLICT_RETRIES } from './model';
import { cancellationReasons, dynamodb, send, tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import type { Counts } from '../match-estimate';

/** Counter items a transaction moves (with its mark: DynamoDB's 100 actions). */
const ITEMS_A_PART = 99;
/** Attributes one `ADD` moves (its expression stays far below DynamoDB's 4 KB). */
const ATTRIBUTES_AN_UPDATE = 100;
/** How long a batch's mark is kept: longer than any run is resumed after. */
const MARK_TTL_S = 30 * 24 * 3600;
const PARTS_IN_FLIGHT = 8;

interface Move {
  key: keys.Key;
  add: [string, number][];
}

/** The moves of each country's counts, split so that no part names an item twice. */
function partsOf(deltas: Map<Country, Counts>, partition: (country: Country) => string): Move[][] {
  const moves: Move[] = [];
  for (const [country, counts] of [...deltas].sort(([a], [b]) => a.localeCompare(b))) {
    for (const [sk, attributes] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
      const add = [...attributes].filter(([, n]) => n !== 0).sort(([a], [b]) => a.localeCompare(b));
      for (let i = 0; i < add.length; i += ATTRIBUTES_AN_UPDATE)
        moves.push({ key: { pk: partition(country), sk }, add: add.slice(i, i + ATTRIBUTES_AN_UPDATE) });
    }
  }
  const parts: { moves: Move[]; items: Set<string> }[] = [];
  for (const move of moves) {
    const id = `${move.key.pk}|${move.key.sk}`;
    let part = parts.find((p) => p.moves.length < ITEMS_A_PART && !p.items.has(id));
    if (!part) parts.push((part = { moves: [], items: new Set() }));
    part.moves.push(move);
    part.items.add(id);
  }
  return parts.map((p) => p.moves);
}

/**
 * Moves the counts by `deltas` (per country, per item, per attribute) for the import batch `changeId`,
 * once: a part whose mark is there already is skipped. `partition`: where a country's counts are (a
 * recount builds them apart: lib/lists/match-recount.ts).
 */
export async function moveMatchCounts(
  changeId: string,
  deltas: Map<Country, Counts>,
  partition: (country: Country) => string = keys.matchCounts,
): Promise<void> {
  const parts = partsOf(deltas, partition);
  const ttl = Math.ceil(Date.now() / 1000) + MARK_TTL_S;
  for (let i = 0; i < parts.length; i += PARTS_IN_FLIGHT) {
    await Promise.all(
      parts.slice(i, i + PARTS_IN_FLIGHT).map((moves, j) => movePart(changeId, i + j, moves, ttl)),
    );
  }
}

async function movePart(changeId: string, part: number, moves: Move[], ttl: number): Promise<void> {
  for (let attempt = 0; attempt < CONFLICT_RETRIES.maxAttempts; attempt++) {
    if (attempt > 0) await backoff(attempt, CONFLICT_RETRIES.baseMs, CONFLICT_RETRIES.maxMs);
    try {
      await send(() =>
        dynamodb().send(new TransactWriteCommand({ TransactItems: actions(changeId, part, moves, ttl) })),
      );
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      // The mark is there: this part of the batch moved the counts already.
      if (reasons?.[0] === 'ConditionalCheckFailed') return;
      // Another batch's transaction on a counter item at the same moment (a country's `ALL`): again.
      if (!reasons?.includes('TransactionConflict')) throw error;
    }
  }
  throw new StorageUnavailableError();
}

const actions = (changeId: string, part: number, moves: Move[], ttl: number) => [
  {
    Put: {
      TableName: tableName(),
      Item: { ...keys.matchCountsApplied(changeId, part), entity: 'MatchCountsApplied', ttl },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  ...moves.map(({ key, add }) => ({
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: `ADD ${add.map((_, k) => `#k${k} :v${k}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(add.map(([name], k) => [`#k${k}`, name])),
      ExpressionAttributeValues: Object.fromEntries(add.map(([, n], k) => [`:v${k}`, n])),
    },
  })),
];

/** Every counts item of a country (one Query: `ALL`, `INDEX`, a few per division, one per place). */
export async function readCountsOf(country: Country): Promise<Counts> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.matchCounts(country) },
  });
  return new Map(items.map((item) => [item['sk'] as string, numbersOf(item)]));
}

const numbersOf = (item: Record<string, unknown>) => {
  const attributes = new Map<string, number>();
  for (const [name, value] of Object.entries(item))
    if (name !== 'pk' && name !== 'sk' && typeof value === 'number') attributes.set(name, value);
  return attributes;
};

/** The counts items named, by `<country>|<sk>` (an absent item: no company counted there). */
export async function readMatchCounts(
  items: { country: Country; sk: string }[],
): Promise<Map<string, Map<string, number>>> {
  const found = await batchGet(
    tableName(),
    items.map(({ country, sk }) => keys.matchCount(country, sk)),
  );
  const counts = new Map<string, Map<string, number>>();
  for (const item of found) {
    const country = (item['pk'] as string).slice(keys.matchCounts('').length);
    counts.set(`${country}|${item['sk'] as string}`, numbersOf(item));
  }
  return counts;
}
