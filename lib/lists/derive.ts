/**
 * What a company's change means for lists (contract §7, §11.2), run by the import for every changed
 * company: its match-index entries (VAT, domain, name) follow the new record, and when its number of
 * contacts changed, a note says so. The run's completion (`applyContactChanges`) then brings every
 * list the noted companies are in to their numbers now, list by list (store/contact-counts.ts): the
 * new numbers go into the list item's map of counts with `nContacts`, one update per list, so
 * applying a note twice changes nothing the second time.
 *
 * Cost: the notes are batched writes (one item per changed company); the completion reads each noted
 * company's lists (one gsi1 Query a company, keys only) and number (BatchGetItem), then the lists and
 * their noted members (BatchGetItem, 100 keys a request across lists), and writes one UpdateItem per
 * list, whatever the number of memberships.
 */
import { companyKey } from '../companies/identifiers';
import { forEachLimited } from '../concurrency';
import type { CompanyChange, Derived } from '../import/change';
import { batchDelete } from '../storage/batch';
import { tableName } from '../storage/client';
import { deriveMatchIndexes } from './match-index';
import {
  contactsChangedItem,
  getContactNumbers,
  getContactsChanged,
  getMemberships,
  readListCounts,
  updateContactCounts,
  type ContactCount,
} from './store/contact-counts';

export async function deriveLists(change: CompanyChange): Promise<Derived> {
  const { writes: matchIndexes } = await deriveMatchIndexes(change);
  const { before, after } = change;
  // A new company is in no list yet; the lists it joins later read its contacts then.
  const changed = before !== null && before.contacts.length !== after.contacts.length;
  return {
    updates: 0,
    writes: {
      puts: changed ? [contactsChangedItem(after, change.changeId)] : [],
      deletes: [],
      setChanges: matchIndexes?.setChanges ?? [],
    },
  };
}

/** Companies whose lists are read at once (a Query each), and lists written at once. */
const QUERIES_IN_FLIGHT = 16;
const LISTS_IN_FLIGHT = 8;

/**
 * The import's completion for contact counts: every list a noted company is in counts the number of
 * contacts the company has now (its filter profile, written by the same derivation), then the notes
 * read are deleted. A run cut off before this leaves its notes for the next run's completion.
 */
export async function applyContactChanges(): Promise<number> {
  const notes = await getContactsChanged();
  if (notes.length === 0) return 0;
  const refs = [...new Map(notes.map((n) => [companyKey(n.ref), n.ref])).values()];
  const numbers = await getContactNumbers(refs);
  const byList = new Map<string, { accountId: string; listId: number; counts: ContactCount[] }>();
  await forEachLimited(refs, QUERIES_IN_FLIGHT, async (ref) => {
    const contacts = numbers.get(companyKey(ref));
    if (contacts === undefined) return;
    for (const { accountId, listId } of await getMemberships(ref)) {
      const key = `${accountId}#${listId}`;
      const list = byList.get(key) ?? { accountId, listId, counts: [] };
      list.counts.push({ ref, contacts });
      byList.set(key, list);
    }
  });
  const lists = [...byList.values()];
  const read = new Map(
    (
      await readListCounts(
        lists.map((l) => ({ ...l, refs: l.counts.map((c) => c.ref) })),
        { partitions: true },
      )
    ).map((r) => [`${r.accountId}#${r.listId}`, r]),
  );
  let updated = 0;
  await forEachLimited(lists, LISTS_IN_FLIGHT, async ({ accountId, listId, counts }) => {
    const known = read.get(`${accountId}#${listId}`);
    // A list gone meanwhile counts nothing.
    if (known) updated += await updateContactCounts(accountId, listId, counts, known);
  });
  await batchDelete(
    tableName(),
    notes.map((n) => n.key),
  );
  return updated;
}
