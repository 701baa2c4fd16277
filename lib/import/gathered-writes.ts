/**
 * The writes a batch's derivations hand back, gathered for the batch's few requests, one entry per
 * item: a BatchWriteItem or TransactWriteItems request refuses two actions on one item, and two puts
 * of one item sent at once would land in any order.
 *
 * - Puts: the same item put twice (two changes deriving one fact) is put once. Two different puts of
 *   one item would lose one of them: that is a defect of the derivations, reported before anything is
 *   sent, naming the derivations and the item (TwoActionsOnOneItemError).
 * - Deletes: a key deleted twice is deleted once; a key deleted and put is put (deletes go first).
 * - Additions and set changes: kept as they come; `batchAdd` and `batchSetChanges` merge them per item
 *   (if_not_exists additions keep the first value, set additions and removals commute).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Key } from '../storage/keys';
import { TwoActionsOnOneItemError, uniqueKey } from '../storage/one-action-per-item';
import type { Addition, SetChange } from '../storage/transactions';
import type { DerivedWrites } from '../derivation/change';

type Item = Record<string, unknown>;

export class GatheredWrites implements DerivedWrites {
  readonly puts: Item[] = [];
  readonly deletes: Key[] = [];
  readonly additions: Addition[] = [];
  readonly setChanges: SetChange[] = [];
  /** Each item put, with the derivation that put it. */
  private readonly put = new Map<string, { item: Item; by: string }>();
  private readonly deleted = new Set<string>();

  /** Adds what `by` (a derivation) hands back; writes gathered elsewhere keep the names they carry. */
  add(by: string, writes: DerivedWrites | undefined): void {
    if (!writes) return;
    const origin = writes instanceof GatheredWrites ? writes.put : undefined;
    for (const item of writes.puts) {
      const id = uniqueKey(item);
      const from = origin?.get(id)?.by ?? by;
      const had = this.put.get(id);
      if (!had) {
        this.put.set(id, { item, by: from });
        this.puts.push(item);
      } else if (!isDeepStrictEqual(had.item, item)) {
        const error = new TwoActionsOnOneItemError('BatchWriteItem', item);
        error.nameGatherer(had.by === from ? from : `${had.by} and ${from}`);
        throw error;
      }
    }
    for (const key of writes.deletes) {
      const id = uniqueKey(key);
      if (this.deleted.has(id)) continue;
      this.deleted.add(id);
      this.deletes.push(key);
    }
    if (writes.additions) this.additions.push(...writes.additions);
    if (writes.setChanges) this.setChanges.push(...writes.setChanges);
  }
}
