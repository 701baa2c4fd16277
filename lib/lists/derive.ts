/**
 * What a company's change means for lists (contract §7, §11.2), run by the import for every changed
 * company: its match-index entries (VAT, domain, name) follow the new record, and when its number of
 * contacts changed, a note says so. The run's completion (`applyContactChanges`) then brings every
 * list the noted companies are in to their numbers now, list by list (store/contact-counts.ts): the
 * new numbers go into the list item's map of counts with `nContacts`, one update per list, so
 * applying a note twice changes nothing the second time.
 *
 * Cost of one contact-count change: its note (one item put by the derivation in the batch's
 * BatchWriteItem requests, deleted by the completion; written whether or not any list exists), its
 * number (one key of a BatchGetItem), one gsi1 Query of the lists it is in (keys only: the one request
 * per company left, the index being keyed by company), then in each of those lists its member read
 * (one key of a BatchGetItem, or an item of one Query of the list's members when the list holds at
 * most 8 times the members wanted: store/contact-counts.ts) and its share of one UpdateItem per list,
 * whatever the number of its companies.
 */
import { companyKey } from '../companies/identifiers';
import { forEachLimited } from '../concurrency';
import type { CompanyChange, Derived } from '../derivation/change';
import { batchDelete } from '../storage/batch';
import { tableName } from '../storage/client';
import { deriveMatchIndexes } from './match-index';
import { removeFromEveryList } from './store/erasure';
import {
  contactsChangedItem,
  getContactNumbers,
  getContactsChanged,
  getMemberships,
  readListCounts,
  updateContactCounts,
  type ContactCount,
  type ContactsChanged,
} from './store/contact-counts';

export async function deriveLists(change: CompanyChange): Promise<Derived> {
  const { writes: matchIndexes } = await deriveMatchIndexes(change);
  const { before, after } = change;
  // An erased company (§11.5.6) leaves every list at once: no count of its contacts follows.
  if (change.gone) await removeFromEveryList(after);
  // A new company is in no list yet; the lists it joins later read its contacts then.
  const changed = before !== null && !change.gone && before.contacts.length !== after.contacts.length;
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
 * read are deleted. A run cut off before this leaves its notes for the next run's completion. The
 * notes are read here, or by the caller before (`notes`: lib/import/derive.ts reads them while the
 * smart-list flips run).
 */
export async function applyContactChanges(notes?: ContactsChanged[]): Promise<number> {
  notes ??= await getContactsChanged();
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
