/**
 * The search index follows the companies (contract §6.5, §11.2): for each changed company of an import
 * batch whose name or place changed (or that is new), one item per distinct word of its normalised
 * name is put, and the items of words its name lost are deleted. A change of anything else writes
 * nothing, so the index is derived once per changed name. The writes go back to the import, which
 * sends a batch's in BatchWriteItem requests of 25 (deletes first, then puts: a word kept is put again).
 * Deriving the same change twice writes the same items: idempotent.
 */
import type { BatchDerivation, CompanyChange, DerivedWrites } from '../import/change';
import { nameWords } from '../matching/normalise';
import * as keys from '../storage/keys';
import { searchWordItem } from './store';

export const deriveSearchIndex: BatchDerivation = (changes) => {
  const writes: DerivedWrites = { puts: [], deletes: [] };
  for (const change of changes) addWrites(change, writes);
  return Promise.resolve({ updates: 0, writes });
};

function addWrites({ before, after }: CompanyChange, writes: DerivedWrites): void {
  if (before && before.name === after.name && before.place === after.place) return;
  const words = nameWords(after.name);
  const distinct = [...new Set(words)];
  const lost = before ? [...new Set(nameWords(before.name))].filter((word) => !distinct.includes(word)) : [];
  writes.deletes.push(...lost.map((word) => keys.searchWord(after, word)));
  writes.puts.push(...distinct.map((word) => searchWordItem(after, word, words)));
}
