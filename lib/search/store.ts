/**
 * The search index (contract §6.5 search): one item per word of a company's normalised names (its
 * registered name and its other names), under the word's first character and sorted by the word, so
 * the companies with a word that starts with a prefix are one Query (`begins_with` on the sort key).
 * Each item carries what an answer shows (the registered name, place) and every word of every name, so
 * a search reads nothing else. Kept by the import (lib/search/derive.ts).
 *
 * The words are stored as one text: each name's words joined by single spaces, the names joined by
 * ` | ` (a character no normalised word holds), so every word either starts the text or follows a
 * space — what the Query's filter relies on — and the names can be told apart again.
 */
import { batchGet, queryPage } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { companyOfKey, companyOfSearchWord } from '../storage/keys';
import type { CompanyRef } from '../companies/identifiers';
import type { Identifier } from '../companies/schemas';

/** What a search word item says about its company. */
export interface IndexedName {
  identifier: Identifier;
  /** The normalised words of each of its names, in order (lib/search/derive.ts `searchNames`). */
  names: string[][];
}

const NAME_SEPARATOR = ' | ';

export function searchWordItem(
  company: Pick<Identifier, 'country' | 'companyNumber' | 'name' | 'place'>,
  word: string,
  names: string[][],
): Record<string, unknown> {
  return {
    ...keys.searchWord(company, word),
    entity: 'SearchWord',
    name: company.name,
    ...(company.place === null ? {} : { place: company.place }),
    words: names.map((words) => words.join(' ')).join(NAME_SEPARATOR),
  };
}

/** The names' words of a search word item's `words` text. */
const namesOf = (text: string): string[][] => text.split(NAME_SEPARATOR).map((name) => name.split(' '));

/**
 * The companies of one country with a name word starting with `prefix` and, when `alsoStarting` is
 * given, a name word starting with each of those too, in word order, then number: one Query of one page
 * that reads at most `max` index entries (the items are small, so `max` entries stay far below the 1 MB
 * a page may hold). `truncated` says there may be more entries for `prefix` than were read.
 *
 * The other words are checked by DynamoDB (a filter on the entry's `words`, the name's words joined by
 * single spaces: a word starts the name, or follows a space), so only the entries that match come back.
 * The entries read and the read units are the same as without the filter; what a common first word no
 * longer costs is up to `max` entries a country sent, parsed and dropped here.
 */
export async function findByWordPrefix(
  country: string,
  prefix: string,
  max: number,
  alsoStarting: string[] = [],
): Promise<{ names: IndexedName[]; truncated: boolean }> {
  const { pk, skPrefix } = keys.searchWords(country, prefix);
  const values: Record<string, string> = { ':pk': pk, ':prefix': skPrefix };
  const filter = alsoStarting.map((word, i) => {
    values[`:w${i}`] = word;
    values[`:sw${i}`] = ` ${word}`;
    return `(begins_with(#words, :w${i}) OR contains(#words, :sw${i}))`;
  });
  const page = await queryPage({
    TableName: tableName(),
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ...(filter.length > 0 ? { FilterExpression: filter.join(' AND ') } : {}),
    ExpressionAttributeNames: {
      '#pk': 'pk',
      '#sk': 'sk',
      '#name': 'name',
      '#place': 'place',
      '#words': 'words',
    },
    ExpressionAttributeValues: values,
    ProjectionExpression: '#pk, #sk, #name, #place, #words',
    // Entries read, before the filter: the bound holds whatever the filter keeps.
    Limit: max,
  });
  const names = page.items.map((item) => {
    const ref = companyOfSearchWord({ pk: item['pk'] as string, sk: item['sk'] as string });
    return {
      identifier: identifierOf(ref, item),
      names: namesOf(String(item['words'] ?? '')),
    };
  });
  return { names, truncated: page.lastKey !== undefined };
}

/** The identifiers of the companies among `refs` that exist (one BatchGetItem per 100). */
export async function getIdentifiers(refs: CompanyRef[]): Promise<Identifier[]> {
  return (await getNamed(refs)).map((named) => named.identifier);
}

/** The companies among `refs` that exist, with their other names (one BatchGetItem per 100). */
export async function getNamed(
  refs: CompanyRef[],
): Promise<Array<{ identifier: Identifier; otherNames: string[] }>> {
  if (refs.length === 0) return [];
  const items = await batchGet(tableName(), refs.map(keys.company), {
    projection: NAMED_PROJECTION,
  });
  return items.map((item) => ({
    identifier: identifierOf(companyOfKey(item['pk'] as string), item),
    otherNames: (item['otherNames'] as string[] | undefined) ?? [],
  }));
}

/** A constant, so its ProjectionExpression is built once (lib/storage/batch.ts keeps it by the array). */
const NAMED_PROJECTION = ['pk', 'name', 'place', 'otherNames'];

function identifierOf(ref: CompanyRef, item: Record<string, unknown>): Identifier {
  return {
    country: ref.country,
    companyNumber: ref.companyNumber,
    name: item['name'] as string,
    place: (item['place'] as string | undefined) ?? null,
  };
}
