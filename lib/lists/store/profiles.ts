/**
 * Companies' filter profiles: the item the import's derivation writes, and the profiles of some
 * countries read back a bounded page at a time for evaluating a smart list's filters (a request's part,
 * the worker's turns) and for recounting the match counts.
 */
import type { CompanyRef, Country } from '../../companies/identifiers';
import { batchGet, queryPage } from '../../storage/batch';
import { tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { FILTER_PROFILE_SHARDS, filterProfileOfKey } from '../../storage/keys';
import type { Item } from './model';

/** The item that holds a company's filter profile (written by the import's derivation, batched). */
export function filterProfileItem(ref: CompanyRef, packed: string, contacts: number): Item {
  return { ...keys.filterProfile(ref), entity: 'FilterProfile', p: packed, c: contacts };
}

/** The key of that item (an erased company's is deleted). */
export const filterProfileKey = (ref: CompanyRef) => keys.filterProfile(ref);

export interface StoredProfile {
  ref: CompanyRef;
  packed: string;
  contacts: number;
}

/** The partitions of these countries' filter profiles, in the order they are read (and resumed). */
export function profileShards(countries: readonly Country[]): { country: Country; shard: number }[] {
  return countries.flatMap((country) =>
    Array.from({ length: FILTER_PROFILE_SHARDS }, (_, shard) => ({ country, shard })),
  );
}

/**
 * The next profiles of these countries from `from` (a shard of `profileShards` and the last key read
 * there), at most `limit`, shard after shard: what one turn of the smart-list worker reads. `next` is
 * where the following read starts; absent when every shard has been read.
 */
export async function readProfilesFrom(
  countries: readonly Country[],
  from: { shard: number; key?: Item },
  limit: number,
): Promise<{ profiles: StoredProfile[]; next?: { shard: number; key?: Item } }> {
  const shards = profileShards(countries);
  const profiles: StoredProfile[] = [];
  let at: { shard: number; key?: Item } | undefined = from;
  while (at && at.shard < shards.length && profiles.length < limit) {
    const { country, shard } = shards[at.shard]!;
    const page = await queryPage({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.filterProfiles(country, shard) },
      ProjectionExpression: 'pk, sk, p, c',
      Limit: limit - profiles.length,
      ...(at.key ? { ExclusiveStartKey: at.key } : {}),
    });
    profiles.push(...page.items.map((item) => storedProfile(country, item)));
    at = page.lastKey ? { shard: at.shard, key: page.lastKey } : { shard: at.shard + 1 };
  }
  return at && at.shard < shards.length ? { profiles, next: at } : { profiles };
}

/** These companies' filter profiles, by key (absent: the company has none). */
export async function getProfilesOf(refs: CompanyRef[]): Promise<StoredProfile[]> {
  const items = await batchGet(tableName(), refs.map(keys.filterProfile), {
    projection: ['pk', 'sk', 'p', 'c'],
  });
  return items.map((item) => storedProfile(filterProfileOfKey(item as keys.Key).country, item));
}

const storedProfile = (country: Country, item: Item): StoredProfile => ({
  ref: { country, companyNumber: item['sk'] as string },
  packed: item['p'] as string,
  contacts: Number(item['c'] ?? 0),
});
