/** The list key patterns (lib/storage/keys.ts): the account in every list key, and keys read back. */
import * as keys from '../../lib/storage/keys';
import {
  companyOfKey,
  filterProfileOfKey,
  listOfKey,
  listOrderOfKey,
  matchIndexText,
  matchIndexTextOfKey,
} from '../../lib/storage/keys';

const ref = { country: 'BE' as const, companyNumber: '0403170701' };

describe('list keys', () => {
  it('put the account in every key of a list, its members, order and name', () => {
    for (const key of [
      keys.list('acme', 7),
      keys.listMember('acme', 7, ref),
      keys.listOrder('acme', 7, 'NEW', 1, ref),
      keys.listName('acme', 'prospects'),
      keys.smartList('acme', 7),
      keys.listCleanup('acme', 7),
    ]) {
      expect(`${key.pk}|${key.sk}`).toContain('ACCOUNT#acme');
    }
    expect(keys.listOrderAll('acme', 7, 1, ref)['gsi1pk']).toBe('ACCOUNT#acme#LIST#7#ALL');
  });

  it('reads the account, list and company back from the keys that hold them', () => {
    expect(listOfKey(keys.smartList('acme', 7).sk)).toEqual({ accountId: 'acme', listId: 7 });
    expect(listOfKey(keys.listMember('acme', 12, ref).pk)).toEqual({ accountId: 'acme', listId: 12 });
    // A company's flips (the lists they name are in the item, read by the import only).
    expect(companyOfKey(keys.smartListFlip(ref, 'c1').sk)).toEqual(ref);
    expect(filterProfileOfKey(keys.filterProfile(ref))).toEqual(ref);
  });

  it('orders order keys newest match first, then by country and number', () => {
    const older = keys.listOrder('a', 1, 'SAVED', 1_000, ref).sk;
    const newer = keys.listOrder('a', 1, 'SAVED', 2_000, { country: 'NL', companyNumber: '33011433' }).sk;
    expect(newer < older).toBe(true);
    expect(listOrderOfKey(older)).toEqual({ matchedSinceMs: 1_000, ref });
  });

  it('builds a match-index key from its text and back', () => {
    const text = matchIndexText('VAT', 'BE0403170701');
    expect(matchIndexTextOfKey(keys.matchIndex('VAT', 'BE0403170701').pk)).toBe(text);
  });
});
