/**
 * What a company's change means for lists (contract §7, §11.2), run by the import for every changed
 * company: its match-index entries (VAT, domain, name) follow the new record, and when its number of
 * contacts changed, a note says so. The run's completion (`completeLists`) then brings every
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
import { gatheredBy } from '../storage/one-action-per-item';
import { deriveMatchIndexes } from './match-index';
import { applySmartListFlips } from './smart';
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
 * The lists' completion, run once at the end of every import run. The flips first, then the counts:
 * a company the run left entering a list holds the number of contacts its flip noted, and a later
 * change of the run that moved only its contacts noted no flip but a contacts note; the counts read
 * the lists a noted company is in after the flips put it there, so it counts its number now (§7.4,
 * §7.6). Run at the same time, or the other way round, the counts miss the company entering and the
 * list keeps the flip's number. The notes themselves are read at the same time as the flips: they
 * are the run's derivations' (written before any completion starts), and the flips write none.
 */
export async function completeLists(): Promise<void> {
  const [notes] = await Promise.all([
    getContactsChanged(),
    // Smart lists the changed companies enter or leave (§7.6), per list.
    gatheredBy('the smart-list flips', applySmartListFlips),
  ]);
  // The lists of the companies whose numbers of contacts changed count them (§7.4), per list.
  await gatheredBy("the lists' contact counts", () => countContacts(notes));
}

/**
 * The completion's contact counts alone (the smart-list flips already applied): every list a noted
 * company is in counts the number of contacts the company has now (its filter profile, written by the
 * same derivation), then the notes read are deleted. A run cut off before this leaves its notes for
 * the next run's completion.
 */
export async function applyContactChanges(): Promise<number> {
  return countContacts(await getContactsChanged());
}

async function countContacts(notes: ContactsChanged[]): Promise<number> {
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
