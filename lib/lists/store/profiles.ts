/**
 * Companies' filter profiles: the item the import's derivation writes, and every profile of some
 * countries read back for evaluating a smart list's filters.
 */
import type { CompanyRef, Country } from '../../companies/identifiers';
import { queryAll } from '../../storage/batch';
import { tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { FILTER_PROFILE_SHARDS } from '../../storage/keys';
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

/** Every company's filter profile in these countries: one Query per shard, all in parallel. */
export async function getFilterProfiles(countries: readonly Country[]): Promise<StoredProfile[]> {
  const shards = countries.flatMap((country) =>
    Array.from({ length: FILTER_PROFILE_SHARDS }, (_, shard) => ({ country, shard })),
  );
  const pages = await Promise.all(
    shards.map(async ({ country, shard }) =>
      (
        await queryAll({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.filterProfiles(country, shard) },
          ProjectionExpression: 'sk, p, c',
        })
      ).map((item) => ({
        ref: { country, companyNumber: item['sk'] as string },
        packed: item['p'] as string,
        contacts: Number(item['c'] ?? 0),
      })),
    ),
  );
  return pages.flat();
}
