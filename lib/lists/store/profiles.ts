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
import type { FilterProfile, Filters } from '../filters';
import { tailFiguresOf, type RangeFigure } from '../range-entries';
import { FIGURE_ATTRIBUTES, SIEVED_FIGURES, sieveOf, type SieveTarget } from '../sieve';
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

/**
 * The entries of a company's profile as items, each holding the packed profile, contacts, and the
 * numbers of its known figures (`FIGURE_ATTRIBUTES`, sieve.ts: a Query's FilterExpression compares
 * them; a few bytes, no item or write unit more, as the entries are written whenever the profile is).
 */
export function profileEntryItems(
  ref: CompanyRef,
  profile: FilterProfile,
  packed: string,
  contacts: number,
): Item[] {
  const figures = Object.fromEntries(
    SIEVED_FIGURES.flatMap((figure) => {
      const value = profile[figure];
      return value === null ? [] : [[FIGURE_ATTRIBUTES[figure], value]];
    }),
  );
  return profileEntryKeys(ref, profile).map((key) => ({
    ...key,
    entity: 'FilterProfileEntry',
    p: packed,
    c: contacts,
    ...figures,
  }));
}

export interface StoredProfile {
  ref: CompanyRef;
  packed: string;
  contacts: number;
}

/**
 * One partition of a sweep, read whole, or only its sort keys starting with `prefix`, or only those
 * from `from` (to `to`, when given); `by` and `figures` say how it is sieved (sieve.ts): the entries
 * of codes, places or a figure's range, carrying their numbers or not (absent: profile items).
 */
export interface Segment extends SieveTarget {
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
export const activitySegment = (country: Country, code: string, figures = false): Segment => ({
  pk: keys.filterProfilesByActivity(country, code.slice(0, 2)),
  prefix: code,
  by: 'codes',
  ...(figures ? { figures } : {}),
});

/** The sweep over the profile entries of the country's companies in `place` (a `placeKey`). */
export const placeSegment = (country: Country, place: string, figures = false): Segment => ({
  pk: keys.filterProfilesByPlace(country, place),
  by: 'places',
  ...(figures ? { figures } : {}),
});

/**
 * The sweep over the profile entries of the country's companies whose `figure` lies in `[min, max]`
 * (`min` in the figure's tail: range-entries.ts).
 */
export const rangeSegment = (
  country: Country,
  figure: RangeFigure,
  { min, max }: { min: number; max?: number },
  figures = false,
): Segment => ({
  pk: keys.filterProfilesByRange(country, figure),
  ...keys.filterProfileRangeKeys(min, max),
  by: figure,
  ...(figures ? { figures } : {}),
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

/** How far one `readSweep` goes. */
export interface SweepBounds {
  /** Items the Queries evaluate at most (the read's cost: what DynamoDB reads, before a sieve). */
  limit: number;
  /** Profiles answered at most (what travels and is evaluated here); `limit` when absent. */
  keep?: number;
  /**
   * The filter whose sieve (sieve.ts) each segment is read through: a Query's FilterExpression drops,
   * where they are read, the entries that cannot match it. None: every item is answered.
   */
  filters?: Filters;
  /**
   * Segments read at the same time at most (1 when absent): for a read expected to go through the
   * whole sweep, as a read cut by its bounds keeps only what precedes the first segment not read to
   * its end (a later segment's pages are read again from there).
   */
  parallel?: number;
}

/** Where one segment's read stands: the key after its last page, and whether it is through. */
interface SegmentRead {
  key?: Item;
  done: boolean;
  items: Item[];
}

/**
 * The next profiles along `sweep` from `from`, at most `limit` items evaluated and `keep` answered
 * (a page is not cut: the bounds stop the read after the pages that reach them), segment after
 * segment, `parallel` of them at a time sharing the bounds: what a request's part or one turn of the
 * smart-list worker reads. A company read twice (its entries under two of the filter's codes) is
 * answered once. `read` counts the items evaluated; `next` is where the following read starts, absent
 * when the sweep is through.
 */
export async function readSweep(
  sweep: readonly Segment[],
  from: SweepAt,
  bounds: number | SweepBounds,
): Promise<{ profiles: SweptProfile[]; read: number; next?: SweepAt }> {
  const {
    limit,
    keep = limit,
    filters,
    parallel = 1,
  } = typeof bounds === 'number' ? { limit: bounds } : bounds;
  const reads = new Map<number, SegmentRead>([[from.shard, { ...from, done: false, items: [] }]]);
  let read = 0;
  let kept = 0;
  while (read < limit && kept < keep) {
    const active: number[] = [];
    for (let shard = from.shard; shard < sweep.length && active.length < parallel; shard++)
      if (!reads.get(shard)?.done) active.push(shard);
    if (active.length === 0) break;
    const share = Math.ceil((limit - read) / active.length);
    const keepShare = Math.ceil((keep - kept) / active.length);
    const pages = await Promise.all(
      active.map((shard) => readPage(sweep[shard]!, reads.get(shard)?.key, share, keepShare, filters)),
    );
    active.forEach((shard, n) => {
      const page = pages[n]!;
      const segment = reads.get(shard) ?? { done: false, items: [] };
      segment.items.push(...page.items);
      segment.done = page.lastKey === undefined;
      if (page.lastKey) segment.key = page.lastKey;
      reads.set(shard, segment);
      read += page.scanned;
      kept += page.items.length;
    });
  }
  // In sweep order, up to the first segment not read to its end.
  const profiles: SweptProfile[] = [];
  const seen = new Set<string>();
  for (let shard = from.shard; shard < sweep.length; shard++) {
    const segment = reads.get(shard);
    for (const item of segment?.items ?? []) {
      const profile = storedProfile(item);
      if (seen.has(companyKey(profile.ref))) continue;
      seen.add(companyKey(profile.ref));
      profiles.push({ ...profile, after: { shard, key: { pk: item['pk'], sk: item['sk'] } } });
    }
    if (!segment?.done)
      return { profiles, read, next: segment?.key ? { shard, key: segment.key } : { shard } };
  }
  return { profiles, read };
}

/** One page of a segment after `key`, sieved through the filter's sieve for it. */
function readPage(segment: Segment, key: Item | undefined, limit: number, keep: number, filters?: Filters) {
  const { condition, values } = keyCondition(segment);
  const sieve = filters ? sieveOf(filters, segment) : null;
  return queryPage({
    TableName: tableName(),
    KeyConditionExpression: condition,
    ...(sieve ? { FilterExpression: sieve.expression } : {}),
    ExpressionAttributeValues: { ...values, ...sieve?.values },
    ProjectionExpression: 'pk, sk, p, c',
    // Without a sieve every item evaluated is answered, so `keep` bounds the page too.
    Limit: sieve ? limit : Math.min(limit, keep),
    ...(key ? { ExclusiveStartKey: key } : {}),
  });
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
