/**
 * The storage of the lookalike computation (never on a request path): each company's features in the
 * partition of its block (NACE division), beside them its floor (its 100th score), and the marks of
 * companies whose lookalikes must be recomputed. Key patterns in lib/storage/keys.ts.
 *
 * Features and floor are two items because two writers own them: the import writes features (and
 * drops the floor of a company that leaves its block), the recompute writes floors that move. A recompute
 * whose snapshot of a section is older than an import's change (a fan-out shard, the weekly job) writes
 * its floors and lists, never the features it read: the change stays stored, and its mark recomputes it.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { storedPeriods } from '../companies/stored-periods';
import type { DerivedWrites } from '../derivation/change';
import { batchDelete, batchPut, projection, queryAll, queryPartitions } from '../storage/batch';
import { dynamodb, send, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { companyOfKey, LOOKALIKE_FLOOR, LOOKALIKE_MARK_SHARDS, type Key } from '../storage/keys';
import { blockOf, featuresOf, packFeatures, unpackFeatures, type LookalikeFeatures } from './features';
import { lookalikesItem, type PackedLookalikes } from './store';

type Item = Record<string, unknown>;

export interface BlockMember {
  features: LookalikeFeatures;
  /** The member's 100th score in ten-thousandths, 0 while it keeps fewer (or before its first computation). */
  floor: number;
}

/** A company an import batch changed, as its batch's mark names it. */
export interface MarkedChange {
  company: CompanyRef;
  /** The company's block now. */
  block: string;
  /** Its features when the lists it may be in were last computed; null when it is new. */
  before: LookalikeFeatures | null;
}

/** One stored mark: (part of) an import batch's changed companies. */
export interface Mark {
  key: Key;
  changes: MarkedChange[];
}

/** The changed companies a mark item holds, at most this many characters: an item holds 400 KB. */
const MARK_CHARS = 300_000;

export function featuresItem(features: LookalikeFeatures): Item {
  return {
    ...keys.lookalikeFeatures(blockOf(features), features),
    entity: 'LookalikeFeatures',
    f: packFeatures(features),
  };
}

function floorItem(ref: LookalikeFeatures, floor: number): Item {
  return { ...keys.lookalikeFloor(blockOf(ref), ref), entity: 'LookalikeFloor', floor };
}

/**
 * Records a batch's changed features in their blocks and marks the batch for recomputation: one put
 * per company (plus a delete when it left its block; an erased one's features only deleted, §11.5.6) and
 * one mark item per batch naming its companies with their features before, instead of a mark put and
 * deleted per company. Idempotent, and no transaction is needed: a batch whose derivation was cut off
 * is derived again by the resumed import (same `changeId`).
 *
 * A mark is keyed by the batch that wrote it and by what it names (a hash of its lines), never by a
 * company alone: two changes of a company between completions leave two marks, so the completion sees
 * both of the feature sets other lists may have been computed with; a resumed batch that derives only
 * some of its companies writes a mark of its own beside the first one, never over it; and a completion
 * deletes exactly the marks it read, so a batch marked by a concurrent import after that read keeps
 * its mark for the next completion. A new company gets its list from that completion, once; until
 * then the endpoints answer it an empty list (lib/lookalikes/store.ts).
 */
export function changeWrites(
  changes: Array<{ before: LookalikeFeatures | null; after: LookalikeFeatures | null }>,
  changeId: string,
): DerivedWrites {
  const puts: Item[] = [];
  const deletes: Key[] = [];
  const parts: string[][] = [[]];
  let chars = 0;
  for (const { before, after } of changes) {
    if (after !== null) puts.push(featuresItem(after));
    // A company that leaves its block leaves its floor there too. One that stays keeps its floor: the
    // mark makes the completion recompute its list whatever its floor, and the completion writes the
    // floor only when it moves (`putLists`), so a change never deletes and puts back the same item.
    if (before !== null && (after === null || blockOf(before) !== blockOf(after)))
      deletes.push(
        keys.lookalikeFeatures(blockOf(before), before),
        keys.lookalikeFloor(blockOf(before), before),
      );
    // A company gone (after null) is marked in the block it leaves: the lists it was in are recomputed.
    const now = after ?? before;
    if (now === null) continue;
    const line = `${companyKey(now)}\t${blockOf(now)}\t${before ? packFeatures(before) : ''}`;
    if (chars + line.length > MARK_CHARS && parts.at(-1)!.length > 0) {
      parts.push([]);
      chars = 0;
    }
    parts.at(-1)!.push(line);
    chars += line.length + 1;
  }
  for (const lines of parts) {
    if (lines.length === 0) continue;
    const text = lines.join('\n');
    const part = createHash('sha256').update(text).digest('hex').slice(0, 16);
    puts.push({ ...keys.lookalikeMark(changeId, part), entity: 'LookalikeMark', changes: text });
  }
  return { puts, deletes };
}

/** Writes a change's features and mark at once (the bench; the import batches `changeWrites`). */
export async function recordChange(
  before: LookalikeFeatures | null,
  after: LookalikeFeatures,
  changeId: string,
): Promise<void> {
  const { puts, deletes } = changeWrites([{ before, after }], changeId);
  await Promise.all([batchPut(tableName(), puts), batchDelete(tableName(), deletes)]);
}

/**
 * Every company of a block with its features and floor: one Query (paged beyond 1 MB). A floor without
 * features (its company left the block while a recompute wrote it) is no member. Features items of
 * tables written before floors had items of their own still carry their floor.
 */
export async function getBlock(block: string): Promise<BlockMember[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.lookalikeBlock(block) },
    ...projection(['sk', 'f', 'floor']),
  });
  const floors = new Map<string, number>();
  for (const item of items) {
    const sk = item['sk'] as string;
    if (sk.startsWith(LOOKALIKE_FLOOR)) floors.set(companyKey(companyOfKey(sk)), item['floor'] as number);
  }
  return items.flatMap((item) => {
    const sk = item['sk'] as string;
    if (sk.startsWith(LOOKALIKE_FLOOR)) return [];
    const ref = companyOfKey(sk);
    const floor = floors.get(companyKey(ref)) ?? (item['floor'] as number | undefined) ?? 0;
    return [{ features: unpackFeatures(ref, item['f'] as string), floor }];
  });
}

/** The marks' partitions, one per shard. */
const MARK_PARTITIONS = Array.from({ length: LOOKALIKE_MARK_SHARDS }, (_, shard) =>
  keys.lookalikeMarks(shard),
);

/** Every mark: one Query per shard, all at once. */
export async function getMarks(): Promise<Mark[]> {
  const items = await queryPartitions(MARK_PARTITIONS);
  return items.map((item) => ({
    key: { pk: item['pk'] as string, sk: item['sk'] as string },
    changes: (item['changes'] as string).split('\n').map((line) => {
      const [company, block, before] = line.split('\t') as [string, string, string];
      const [country, companyNumber] = company.split('#') as [CompanyRef['country'], string];
      const ref = { country, companyNumber };
      return { company: ref, block, before: before ? unpackFeatures(ref, before) : null };
    }),
  }));
}

const KEY_ONLY = ['pk'] as const;

/**
 * Whether any mark is stored: one key-only item of each shard, all at once (the lease's re-check,
 * lib/lookalikes/lease.ts, and a completion with nothing marked, which takes no lease).
 */
export async function hasMarks(): Promise<boolean> {
  return (await queryPartitions(MARK_PARTITIONS, projection(KEY_ONLY), { limit: 1 })).length > 0;
}

export function deleteMarks(marks: Array<Pick<Mark, 'key'>>): Promise<void> {
  return batchDelete(
    tableName(),
    marks.map((m) => m.key),
  );
}

export interface ComputedList {
  features: LookalikeFeatures;
  packed: PackedLookalikes;
  floor: number;
  /** The floor stored until now: the floor item is written only when it moves. */
  previousFloor: number;
}

/** Writes the lists (with their companies' identifiers) and the floors that moved, in batches. */
export function putLists(lists: ComputedList[]): Promise<void> {
  return batchPut(tableName(), [
    ...lists.map((l) => lookalikesItem(l.features, l.packed)),
    ...lists.filter((l) => l.floor !== l.previousFloor).map((l) => floorItem(l.features, l.floor)),
  ]);
}

const SCAN_SEGMENTS = 4;

/**
 * Writes every company's features item from the stored company items: for a table whose companies were
 * imported before lookalikes existed (the import writes them from then on). A parallel Scan of the whole
 * table — a job's tool, never a request's. Returns the number of companies.
 */
export async function rebuildFeatures(): Promise<number> {
  const table = tableName();
  const companySortKey = keys.company({ country: 'BE', companyNumber: '0' }).sk;
  const counts = await Promise.all(
    Array.from({ length: SCAN_SEGMENTS }, async (_, segment) => {
      let count = 0;
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await send(() =>
          dynamodb().send(
            new ScanCommand({
              TableName: table,
              Segment: segment,
              TotalSegments: SCAN_SEGMENTS,
              FilterExpression: '#sk = :sk',
              ProjectionExpression:
                '#country, #number, #name, #place, #founded, #stopped, #activities, #periods',
              ExpressionAttributeNames: {
                '#sk': 'sk',
                '#country': 'country',
                '#number': 'companyNumber',
                '#name': 'name',
                '#place': 'place',
                '#founded': 'foundedOn',
                '#stopped': 'stoppedOn',
                '#activities': 'activities',
                '#periods': 'periods',
              },
              ExpressionAttributeValues: { ':sk': companySortKey },
              ExclusiveStartKey: startKey,
            }),
          ),
        );
        const items = (page.Items ?? []).map((item) =>
          featuresItem(
            featuresOf({
              country: item['country'] as CompanyRef['country'],
              companyNumber: item['companyNumber'] as string,
              name: item['name'] as string,
              place: (item['place'] as string | undefined) ?? null,
              foundedOn: (item['foundedOn'] as string | undefined) ?? null,
              stoppedOn: (item['stoppedOn'] as string | undefined) ?? null,
              activities: (item['activities'] as string[] | undefined) ?? [],
              financials: storedPeriods(item['periods']),
            }),
          ),
        );
        await batchPut(table, items);
        count += items.length;
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return count;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}
