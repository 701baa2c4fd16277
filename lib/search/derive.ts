/**
 * The search index follows the companies (contract §6.5, §11.2): for each changed company of an import
 * batch whose names or place changed (or that is new), one item per distinct word of its normalised
 * names (its registered name and its other names) is put, and the items of words its names lost are
 * deleted. A change of anything else writes nothing, so the index is derived once per changed name. The
 * writes go back to the import, which sends a batch's in BatchWriteItem requests of 25 (deletes first,
 * then puts: a word kept is put again). Deriving the same change twice writes the same items: idempotent.
 */
import type { CompanyProfile } from '../companies/record';
import type { BatchDerivation, CompanyChange, DerivedWrites } from '../derivation/change';
import { nameWords } from '../companies/normalise';
import * as keys from '../storage/keys';
import { searchWordItem } from './store';

export const deriveSearchIndex: BatchDerivation = (changes) => {
  const writes: DerivedWrites = { puts: [], deletes: [] };
  for (const change of changes) addWrites(change, writes);
  return Promise.resolve({ updates: 0, writes });
};

/**
 * The words of each name a company is found by (§6.5: its `name` or one of its `otherNames`), the
 * registered name first; names that are nothing but legal-form words are left out.
 */
export function searchNames(company: Pick<CompanyProfile, 'name' | 'otherNames'>): string[][] {
  return [company.name, ...company.otherNames].map(nameWords).filter((words) => words.length > 0);
}

const sameNames = (a: CompanyProfile, b: CompanyProfile) =>
  a.name === b.name && a.otherNames.join('\n') === b.otherNames.join('\n');

function addWrites({ before, after }: CompanyChange, writes: DerivedWrites): void {
  if (before && sameNames(before, after) && before.place === after.place) return;
  const names = searchNames(after);
  const distinct = [...new Set(names.flat())];
  const lost = before
    ? [...new Set(searchNames(before).flat())].filter((word) => !distinct.includes(word))
    : [];
  writes.deletes.push(...lost.map((word) => keys.searchWord(after, word)));
  writes.puts.push(...distinct.map((word) => searchWordItem(after, word, names)));
}
