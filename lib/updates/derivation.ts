/**
 * The updates derivation (contract §8.2, §11.2), run by the import at its one derivation point for every
 * changed company: the rules of lib/updates/derive.ts applied to the change, and the updates added to the
 * company's feed. It reads nothing and writes nothing itself: the feed goes back to the import — a new
 * company's as one item put, a known company's as additions — which makes a whole batch's in a few
 * requests (lib/storage/batch.ts `batchPut`, `batchAdd`) before the batch's journal goes, so a run cut
 * off earlier derives and writes them again, which changes nothing.
 */
import type { CompanyChange, Derived } from '../derivation/change';
import { deriveUpdates } from './derive';
import * as keys from '../storage/keys';
import { feedAddition, feedItem } from './store';

export async function deriveCompanyUpdates({
  before,
  after,
  asOf,
  firstBySource,
  addressForms,
  gone,
}: CompanyChange): Promise<Derived> {
  // An erased company's feed goes with it (§11.5.6).
  if (gone) return { updates: 0, writes: { puts: [], deletes: [keys.updateFeed(after)] } };
  const updates = deriveUpdates(before, after, asOf, { firstBySource, addressForms });
  if (updates.length === 0) return { updates: 0 };
  return {
    updates: updates.length,
    // A new company's feed is all this change's: one put. Else the updates are added to what is there.
    writes: before
      ? { puts: [], deletes: [], additions: [feedAddition(after, updates)] }
      : { puts: [feedItem(after, updates)], deletes: [] },
  };
}
