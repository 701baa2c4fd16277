/**
 * The updates derivation (contract §8.2, §11.2), run by the import at its one derivation point for every
 * changed company: the rules of lib/updates/derive.ts applied to the change, and the updates added to the
 * company's feed. It reads nothing and writes nothing itself: the feed addition goes back to the import,
 * which makes a whole batch's additions in a few requests (lib/storage/batch.ts `batchAdd`) before the
 * batch's journal goes — so a run cut off earlier derives and adds them again, which changes nothing.
 */
import type { CompanyChange, Derived } from '../import/change';
import { deriveUpdates } from './derive';
import { feedAddition } from './store';

export async function deriveCompanyUpdates({ before, after, asOf }: CompanyChange): Promise<Derived> {
  const updates = deriveUpdates(before, after, asOf);
  if (updates.length === 0) return { updates: 0 };
  return {
    updates: updates.length,
    writes: { puts: [], deletes: [], additions: [feedAddition(after, updates)] },
  };
}
