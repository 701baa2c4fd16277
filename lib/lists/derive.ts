/**
 * What a company's change means for lists (contract §7, §11.2), run by the import for every changed
 * company: its match-index entries (VAT, domain, name) follow the new record, and when its number of
 * contacts changed, every list it is in counts the new number (member, order item and the list's
 * counter in one transaction, conditional on the old count: deriving the same change twice is a no-op).
 */
import type { CompanyChange, Derived } from '../import/derive';
import { deriveMatchIndexes } from './match-index';
import { getMemberships, updateMemberContacts } from './store';

export async function deriveLists(change: CompanyChange): Promise<Derived> {
  await deriveMatchIndexes(change);
  const { before, after } = change;
  // A new company is in no list yet; the lists it joins later read its contacts then.
  if (before && before.contacts.length !== after.contacts.length) {
    const contacts = after.contacts.length;
    for (const membership of await getMemberships(after)) {
      if (membership.contacts !== contacts) await updateMemberContacts(after, membership, contacts);
    }
  }
  return { updates: 0 };
}
