/**
 * The storage of the lookalike computation (never on a request path): each company's features in the
 * partition of its block (NACE division), with its floor (its 100th score), and the marks of companies
 * whose lookalikes must be recomputed. Key patterns in lib/storage/keys.ts.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { CompanyRef } from '../companies/identifiers';
import type { FinancialPeriod } from '../companies/schemas';
import type { DerivedWrites } from '../import/change';
import { batchDelete, batchPut, projection, queryAll, queryPartitions } from '../storage/batch';
import { dynamodb, send, tableName } from '../storage/client';
import { companyOfKey, keys, LOOKALIKE_MARK_SHARDS } from '../storage/keys';
import { blockOf, featuresOf, packFeatures, unpackFeatures, type LookalikeFeatures } from './features';
import { lookalikesItem } from './store';

type Item = Record<string, unknown>;

export interface BlockMember {
  features: LookalikeFeatures;
  /** The member's 100th score in ten-thousandths, 0 while it keeps fewer (or before its first computation). */
  floor: number;
}

export interface Mark {
  key: { pk: string; sk: string };
  company: CompanyRef;
  /** The company's block now. */
  block: string;
  /** Its features when the lists it may be in were last computed; null when it is new. */
  before: LookalikeFeatures | null;
}

export function featuresItem(features: LookalikeFeatures, floor: number): Item {
  return {
    ...keys.lookalikeFeatures(blockOf(features), features),
    entity: 'LookalikeFeatures',
    f: packFeatures(features),
    floor,
  };
}

/**
 * Records a company's new features in its block and marks it for recomputation: one BatchWriteItem
 * (plus a delete when it left its block). Idempotent, and no transaction is needed: a change whose
 * derivation was cut off is derived again by the resumed import (same `changeId`, same mark).
 *
 * A mark is keyed by the change that wrote it, never by what it says: two changes between completions
 * leave two marks, so the completion sees both of the feature sets other lists may have been computed
 * with; and a completion deletes exactly the marks it read, so a change marked by a concurrent import
 * after that read (even one with the same before and after) keeps its own mark for the next
 * completion. A new company gets an empty list at once, so the endpoints know it before its
 * lookalikes are computed.
 */
export function changeWrites(
  before: LookalikeFeatures | null,
  after: LookalikeFeatures,
  changeId: string,
): DerivedWrites {
  const packedBefore = before ? packFeatures(before) : '';
  const mark = {
    ...keys.lookalikeMark(after, changeId),
    entity: 'LookalikeMark',
    block: blockOf(after),
    before: packedBefore,
  };
  const left = before !== null && blockOf(before) !== blockOf(after);
  return {
    puts: [featuresItem(after, 0), mark, ...(before ? [] : [lookalikesItem(after, '')])],
    deletes: left ? [keys.lookalikeFeatures(blockOf(before), before)] : [],
  };
}

/** Writes a change's features and mark at once (the bench; the import batches `changeWrites`). */
export async function recordChange(
  before: LookalikeFeatures | null,
  after: LookalikeFeatures,
  changeId: string,
): Promise<void> {
  const { puts, deletes } = changeWrites(before, after, changeId);
  await Promise.all([batchPut(tableName(), puts), batchDelete(tableName(), deletes)]);
}

/** Every company of a block with its features and floor: one Query (paged beyond 1 MB). */
export async function getBlock(block: string): Promise<BlockMember[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.lookalikeBlock(block) },
    ...projection(['sk', 'f', 'floor']),
  });
  return items.map((item) => ({
    features: unpackFeatures(companyOfKey(item['sk'] as string), item['f'] as string),
    floor: (item['floor'] as number | undefined) ?? 0,
  }));
}

/** Every mark: one Query per shard, all at once. */
export async function getMarks(): Promise<Mark[]> {
  const items = await queryPartitions(
    Array.from({ length: LOOKALIKE_MARK_SHARDS }, (_, shard) => keys.lookalikeMarks(shard)),
  );
  return items.map((item) => {
    const company = companyOfKey(item['sk'] as string);
    const before = item['before'] as string;
    return {
      key: { pk: item['pk'] as string, sk: item['sk'] as string },
      company,
      block: item['block'] as string,
      before: before ? unpackFeatures(company, before) : null,
    };
  });
}

export function deleteMarks(marks: Mark[]): Promise<void> {
  return batchDelete(
    tableName(),
    marks.map((m) => m.key),
  );
}

export interface ComputedList {
  features: LookalikeFeatures;
  packed: string;
  floor: number;
  /** The floor stored until now: the features item is rewritten only when it moves. */
  previousFloor: number;
}

/** Writes the lists (with their companies' identifiers) and the floors that moved, in batches. */
export function putLists(lists: ComputedList[]): Promise<void> {
  return batchPut(tableName(), [
    ...lists.map((l) => lookalikesItem(l.features, l.packed)),
    ...lists.filter((l) => l.floor !== l.previousFloor).map((l) => featuresItem(l.features, l.floor)),
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
              ProjectionExpression: '#country, #number, #name, #place, #founded, #activities, #periods',
              ExpressionAttributeNames: {
                '#sk': 'sk',
                '#country': 'country',
                '#number': 'companyNumber',
                '#name': 'name',
                '#place': 'place',
                '#founded': 'foundedOn',
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
              activities: (item['activities'] as string[] | undefined) ?? [],
              financials: JSON.parse((item['periods'] as string | undefined) ?? '[]') as FinancialPeriod[],
            }),
            0,
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
