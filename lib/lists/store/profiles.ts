/**
 * Companies' filter profiles: the item the import's derivation writes, its entries (the same profile
 * under each of the company's NACE codes, under its place, and under each figure in its tail —
 * range-entries.ts — so that a filter's candidates of one criterion are one Query), and profiles read back a bounded page at a time along a sweep — a list of
 * partitions, each read whole or by a sort key prefix — for evaluating a smart list's filters (a
 * request's part, the worker's turns) and for recounting the match counts.
 */
import { companyKey, type CompanyRef, type Country } from '../../companies/identifiers';
import { batchGet, queryPage } from '../../storage/batch';
import { tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { FILTER_PROFILE_SHARDS, filterProfileOfKey } from '../../storage/keys';
import type { FilterProfile, PackedPieces } from '../filters';
import { tailFiguresOf, type RangeFigure } from '../range-entries';
import type { Item } from './model';

/** The item that holds a company's filter profile (written by the import's derivation, batched). */
export function filterProfileItem(ref: CompanyRef, packed: string, contacts: number): Item {
  return { ...keys.filterProfile(ref), entity: 'FilterProfile', p: packed, c: contacts };
}

/** The key of that item (an erased company's is deleted). */
export const filterProfileKey = (ref: CompanyRef) => keys.filterProfile(ref);

/**
 * The keys of a company's profile entries: one per NACE code, one for its place, one per figure in its
 * tail (range-entries.ts). A stopped company has none, as it matches no filter (and counts nowhere,
 * match-estimate.ts).
 */
export function profileEntryKeys(ref: CompanyRef, profile: FilterProfile): keys.Key[] {
  if (profile.stopped) return [];
  return [
    ...[...new Set(profile.activities)].map((code) => keys.filterProfileByActivity(ref, code)),
    ...(profile.place === null ? [] : [keys.filterProfileByPlace(ref, profile.place)]),
    ...tailFiguresOf(profile).map(({ figure, value }) => keys.filterProfileByRange(ref, figure, value)),
  ];
}

/** The entries of a company's profile as items, each holding the packed profile and contacts. */
export function profileEntryItems(
  ref: CompanyRef,
  profile: FilterProfile,
  packed: string,
  contacts: number,
): Item[] {
  return profileEntryKeys(ref, profile).map((key) => ({
    ...key,
    entity: 'FilterProfileEntry',
    p: packed,
    c: contacts,
  }));
}

export interface StoredProfile {
  ref: CompanyRef;
  packed: string;
  contacts: number;
}

/**
 * One partition of a sweep, read whole, or only its sort keys starting with `prefix`, or only those
 * from `from` (to `to`, when given).
 */
export interface Segment {
  pk: string;
  prefix?: string;
  from?: string;
  to?: string;
}

/** Where a sweep goes on: segment `shard` (its index) after `key` (absent: from its first item). */
export interface SweepAt {
  shard: number;
  key?: Item;
}

/** A profile read along a sweep, and where the sweep goes on right after it. */
export interface SweptProfile extends StoredProfile {
  after: SweepAt;
}

/** The partitions of these countries' filter profiles, in the order they are read (and resumed). */
export function profileShards(countries: readonly Country[]): { country: Country; shard: number }[] {
  return countries.flatMap((country) =>
    Array.from({ length: FILTER_PROFILE_SHARDS }, (_, shard) => ({ country, shard })),
  );
}

/** The sweep over every filter profile of these countries. */
export const everyProfile = (countries: readonly Country[]): Segment[] =>
  profileShards(countries).map(({ country, shard }) => ({ pk: keys.filterProfiles(country, shard) }));

/** The sweep over the profile entries of the country's companies with a NACE code under `code`. */
export const activitySegment = (country: Country, code: string): Segment => ({
  pk: keys.filterProfilesByActivity(country, code.slice(0, 2)),
  prefix: code,
});

/** The sweep over the profile entries of the country's companies in `place` (a `placeKey`). */
export const placeSegment = (country: Country, place: string): Segment => ({
  pk: keys.filterProfilesByPlace(country, place),
});

/**
 * The sweep over the profile entries of the country's companies whose `figure` lies in `[min, max]`
 * (`min` in the figure's tail: range-entries.ts).
 */
export const rangeSegment = (country: Country, figure: RangeFigure, min: number, max?: number): Segment => ({
  pk: keys.filterProfilesByRange(country, figure),
  ...keys.filterProfileRangeKeys(min, max),
});

/** A segment's key condition (see `Segment`). */
function keyCondition({ pk, prefix, from, to }: Segment) {
  if (prefix !== undefined)
    return { condition: 'pk = :pk AND begins_with(sk, :prefix)', values: { ':pk': pk, ':prefix': prefix } };
  if (from !== undefined && to !== undefined)
    return {
      condition: 'pk = :pk AND sk BETWEEN :from AND :to',
      values: { ':pk': pk, ':from': from, ':to': to },
    };
  if (from !== undefined)
    return { condition: 'pk = :pk AND sk >= :from', values: { ':pk': pk, ':from': from } };
  return { condition: 'pk = :pk', values: { ':pk': pk } };
}

/**
 * A FilterExpression keeping the entries whose packed profile holds a piece of each criterion's
 * (`packedPieces`, filters.ts); none without pieces.
 */
function sieveExpression(sieve: PackedPieces) {
  const pieces = Object.values(sieve).filter((group) => group.length > 0);
  if (pieces.length === 0) return {};
  const values: Record<string, string> = {};
  const groups = pieces.map((group, g) => {
    const terms = group.map((piece, n) => {
      values[`:s${g}_${n}`] = piece;
      return `contains(p, :s${g}_${n})`;
    });
    return `(${terms.join(' OR ')})`;
  });
  return { expression: groups.join(' AND '), values };
}

/** How far one `readSweep` goes. */
export interface SweepBounds {
  /** Items the Queries evaluate at most (the read's cost: what DynamoDB reads, before a sieve). */
  limit: number;
  /** Profiles answered at most (what travels and is evaluated here); `limit` when absent. */
  keep?: number;
  /**
   * Pieces of the packed profile an entry must hold to be answered (`packedPieces`): a Query's
   * FilterExpression drops the others where they are read.
   */
  sieve?: PackedPieces;
}

/**
 * The next profiles along `sweep` from `from`, at most `limit` items evaluated and `keep` answered
 * (a page is not cut: the bounds stop the read after the page that reaches them), segment after
 * segment: what a request's part or one turn of the smart-list worker reads. A company read twice (its
 * entries under two of the filter's codes) is answered once. `read` counts the items evaluated; `next`
 * is where the following read starts, absent when the sweep is through.
 */
export async function readSweep(
  sweep: readonly Segment[],
  from: SweepAt,
  bounds: number | SweepBounds,
): Promise<{ profiles: SweptProfile[]; read: number; next?: SweepAt }> {
  const { limit, keep = limit, sieve = {} } = typeof bounds === 'number' ? { limit: bounds } : bounds;
  const filter = sieveExpression(sieve);
  const profiles: SweptProfile[] = [];
  const seen = new Set<string>();
  let read = 0;
  let kept = 0;
  let at: SweepAt = from;
  while (at.shard < sweep.length && read < limit && kept < keep) {
    const { condition, values } = keyCondition(sweep[at.shard]!);
    const page = await queryPage({
      TableName: tableName(),
      KeyConditionExpression: condition,
      ...(filter.expression ? { FilterExpression: filter.expression } : {}),
      ExpressionAttributeValues: { ...values, ...filter.values },
      ProjectionExpression: 'pk, sk, p, c',
      // Without a sieve every item evaluated is answered, so `keep` bounds the page too.
      Limit: filter.expression ? limit - read : Math.min(limit - read, keep - kept),
      ...(at.key ? { ExclusiveStartKey: at.key } : {}),
    });
    read += page.scanned;
    kept += page.items.length;
    for (const item of page.items) {
      const profile = storedProfile(item);
      const after = { shard: at.shard, key: { pk: item['pk'], sk: item['sk'] } };
      if (seen.has(companyKey(profile.ref))) continue;
      seen.add(companyKey(profile.ref));
      profiles.push({ ...profile, after });
    }
    at = page.lastKey ? { shard: at.shard, key: page.lastKey } : { shard: at.shard + 1 };
  }
  return at.shard < sweep.length ? { profiles, read, next: at } : { profiles, read };
}

/** The next profiles of these countries from `from`, at most `limit` (see `readSweep`). */
export async function readProfilesFrom(
  countries: readonly Country[],
  from: SweepAt,
  limit: number,
): Promise<{ profiles: StoredProfile[]; next?: SweepAt }> {
  const { profiles, next } = await readSweep(everyProfile(countries), from, limit);
  return next ? { profiles, next } : { profiles };
}

/** These companies' filter profiles, by key (absent: the company has none). */
export async function getProfilesOf(refs: CompanyRef[]): Promise<StoredProfile[]> {
  const items = await batchGet(tableName(), refs.map(keys.filterProfile), {
    projection: ['pk', 'sk', 'p', 'c'],
  });
  return items.map(storedProfile);
}

const storedProfile = (item: Item): StoredProfile => ({
  ref: filterProfileOfKey(item as keys.Key),
  packed: item['p'] as string,
  contacts: Number(item['c'] ?? 0),
});
