/**
 * The search index (contract §6.5 search): one item per word of a company's normalised name, under the
 * word's first character and sorted by the word, so the companies with a word that starts with a
 * prefix are one Query (`begins_with` on the sort key). Each item carries what an answer shows (name,
 * place) and every word of the name, so a search reads nothing else. Kept by the import
 * (lib/search/derive.ts).
 */
import { batchGet, queryAll } from '../storage/batch';
import { tableName } from '../storage/client';
import { companyOfKey, companyOfSearchWord, keys } from '../storage/keys';
import type { CompanyRef } from '../companies/identifiers';
import type { Identifier } from '../companies/schemas';

/** What a search word item says about its company. */
export interface IndexedName {
  identifier: Identifier;
  /** The normalised words of the name, in order (lib/matching/normalise.ts `nameWords`). */
  words: string[];
}

export function searchWordItem(
  company: Pick<Identifier, 'country' | 'companyNumber' | 'name' | 'place'>,
  word: string,
  words: string[],
): Record<string, unknown> {
  return {
    ...keys.searchWord(company, word),
    entity: 'SearchWord',
    name: company.name,
    ...(company.place === null ? {} : { place: company.place }),
    words: words.join(' '),
  };
}

/**
 * The companies of one country with a name word starting with `prefix`, at most `max` index entries
 * (one page: the items are small, so `max` entries stay far below the 1 MB a page may hold), in word
 * order, then number. `truncated` says there may be more.
 */
export async function findByWordPrefix(
  country: string,
  prefix: string,
  max: number,
): Promise<{ names: IndexedName[]; truncated: boolean }> {
  const { pk, skPrefix } = keys.searchWords(country, prefix);
  const items = await queryAll(
    {
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: {
        '#pk': 'pk',
        '#sk': 'sk',
        '#name': 'name',
        '#place': 'place',
        '#words': 'words',
      },
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ProjectionExpression: '#pk, #sk, #name, #place, #words',
      Limit: max,
    },
    { limit: max },
  );
  const names = items.map((item) => {
    const ref = companyOfSearchWord({ pk: item['pk'] as string, sk: item['sk'] as string });
    return {
      identifier: identifierOf(ref, item),
      words: String(item['words'] ?? '').split(' '),
    };
  });
  return { names, truncated: items.length >= max };
}

/** The identifiers of the companies among `refs` that exist (one BatchGetItem per 100). */
export async function getIdentifiers(refs: CompanyRef[]): Promise<Identifier[]> {
  if (refs.length === 0) return [];
  const items = await batchGet(tableName(), refs.map(keys.company), {
    projection: ['pk', 'name', 'place'],
  });
  return items.map((item) => identifierOf(companyOfKey(item['pk'] as string), item));
}

function identifierOf(ref: CompanyRef, item: Record<string, unknown>): Identifier {
  return {
    country: ref.country,
    companyNumber: ref.companyNumber,
    name: item['name'] as string,
    place: (item['place'] as string | undefined) ?? null,
  };
}
