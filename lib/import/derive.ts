/**
 * The derivation point (contract §11.2): the one place where what follows from a company's change is
 * computed — updates (§8.2), holdings in both directions (§6.2), legal entities (§6.4), smart-list
 * results (§7.6), the lookalikes to recompute (§6.3) and the search index (§6.5). Each is a
 * `Derivation` in the list below; the import calls `deriveBatch` once per batch of changed companies (derivations that read and write the
 * items of several companies together: the holdings) and `deriveChange` once per changed company, never
 * for an unchanged one, after the companies are written and before their batch's journal is removed
 * (so a cut-off run derives again, and every derivation must be idempotent for the same change).
 *
 * Work that is cheaper done once per run than once per change (recomputing the lookalikes of every
 * company a run touched) is a `Completion`: the import calls `completeImport` when a run ends. A
 * completion finds its own work (say, markers its derivation wrote), so a run cut off before its
 * completion leaves that work for the next run's. The lookalikes' completion holds the table's
 * lookalike lease while it recomputes, and waits for it when another recompute holds it
 * (lib/lookalikes/lease.ts): the import returns with its lookalikes written (contract §6.3).
 */
import { deriveHoldings } from '../legal-entities/holdings';
import { eventsDerivation } from '../events/derive';
import { batchDelete, batchPut } from '../storage/batch';
import { tableName } from '../storage/client';
import { addByPut, batchAdd, batchSetChanges, type Addition, type SetChange } from '../storage/transactions';
import { completeLists, deriveLists } from '../lists/derive';
import { deriveSmartLists } from '../lists/smart';
import { deriveMatchCounts } from '../lists/match-counts';
import { deriveLookalikes, recomputeMarked, type RecomputeOptions } from '../lookalikes/recompute';
import { deriveSearchIndex } from '../search/derive';
import { deriveCompanyUpdates } from '../updates/derivation';
import { announceEvents } from '../webhooks/announce';
import { gatheredBy } from '../storage/one-action-per-item';
import type {
  BatchDerivation,
  CompanyChange,
  Derivation,
  Derived,
  DerivedWrites,
} from '../derivation/change';
import { GatheredWrites } from './gathered-writes';
import { importLeaseHeld } from './lease';

/**
 * What each batch of changes derives together, in order, before each change's own derivations. The
 * events (§12) after the holdings, which store the legal entity ids the events name.
 */
const batchDerivations: Record<string, BatchDerivation> = {
  holdings: deriveHoldings,
  lookalikes: deriveLookalikes,
  'search index': deriveSearchIndex,
  // The counts smart filters are estimated from (§7.6), moved once per batch.
  'smart-list match counts': deriveMatchCounts,
  events: eventsDerivation(announceEvents),
};

export function deriveBatch(changes: CompanyChange[]): Promise<Derived> {
  return runDerivations(batchDerivations, changes);
}

/** What each change derives, in order. The endpoint issues add theirs here. */
const derivations: Record<string, Derivation> = {
  updates: deriveCompanyUpdates,
  lists: deriveLists,
  'smart lists': deriveSmartLists,
};

export function deriveChange(change: CompanyChange): Promise<Derived> {
  return runDerivations(derivations, change);
}

/**
 * Runs derivations in order, each named in what it may throw about two actions on one item (the
 * writes it makes itself) and in the writes it hands back (GatheredWrites).
 */
async function runDerivations<T>(
  named: Record<string, (input: T) => Promise<Derived>>,
  input: T,
): Promise<Derived> {
  const writes = new GatheredWrites();
  let updates = 0;
  for (const [name, derive] of Object.entries(named)) {
    const derived = await gatheredBy(name, () => derive(input));
    updates += derived.updates;
    writes.add(name, derived.writes);
  }
  return { updates, writes };
}

/**
 * Lookalikes of the changed companies and of those whose lookalikes they were (§6.3). With the lease
 * held by another recompute it waits for it (or for that one to take its marks). Told not to wait
 * (`wait: false`: only tests do), it leaves its marks to the holder, which takes them when it ends.
 */
const lookalikes = async (options: RecomputeOptions = {}): Promise<void> => {
  const { heldBy, heldUntil } = await recomputeMarked(options);
  if (heldBy) {
    console.warn(
      JSON.stringify({
        level: 'WARN',
        message: 'lookalikes left to the recompute holding the lease: they follow when it ends',
        heldBy,
        heldUntil,
      }),
    );
  }
};

/**
 * The run's completions: the lookalike recompute and the lists' (`completeLists`) at the same time, as
 * neither reads what the other writes (the lookalikes' marks, blocks and lists against the lists'
 * flips, notes, members and counters), so a re-import that finds nothing to do waits for one round of
 * queries, not three. It returns when both have ended, failing with the first error. The import engine
 * passes `lookalikes: false`: it recomputes the lookalikes as a fan-out over workers first
 * (lib/lookalikes/fan-out.ts). Tests pass the recompute's options (a clock, how it waits for the lease).
 */
export async function completeImport(
  options: { lookalikes?: boolean | Pick<RecomputeOptions, 'clock' | 'wait'> } = {},
): Promise<void> {
  const { lookalikes: recompute = true } = options;
  const results = await Promise.allSettled([
    recompute === false
      ? Promise.resolve()
      : gatheredBy('the lookalike recompute', () => lookalikes(recompute === true ? {} : recompute)),
    completeLists(),
  ]);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
}

/**
 * `work` for one batch at a time: a run's batches in flight share items (a holder is often near the
 * companies it holds in a file; companies of one name share a match-index entry), and one after the
 * other they never race on them, so no conditional write or transaction of one cancels another's.
 * Runs of other imports still may: their races are caught by conditions and retries.
 */
export function oneAtATime<T, R>(work: (input: T) => Promise<R>): (input: T) => Promise<R> {
  let last: Promise<unknown> = Promise.resolve();
  return (input) => {
    const next = last.then(() => work(input));
    last = next.catch(() => undefined);
    return next;
  };
}

/**
 * What makes a run's derived writes, a batch's at a time: 25 to a request (additions and set changes
 * 100); deletes first, as a key deleted and put is put last, and additions and set changes after puts,
 * as they add to what is there. Additions and set changes are made on items other batches may share:
 * one batch's at a time. Under the import lease (every run's: lib/import/lease.ts) nothing is written
 * once the run has lost it, and no other import writes the additions' items (the update feeds) meanwhile,
 * so they are read and put whole (`addByPut`); a transaction of conditional updates (`batchAdd`) only
 * for a writer under no lease.
 */
export function derivedWriter(): (writes: DerivedWrites) => Promise<void> {
  const transact = oneAtATime(
    async ({ additions, setChanges }: { additions: Addition[]; setChanges: SetChange[] }) => {
      const add = (await importLeaseHeld()) ? addByPut : batchAdd;
      await Promise.all([add(tableName(), additions), batchSetChanges(tableName(), setChanges)]);
    },
  );
  return ({ puts, deletes, additions = [], setChanges = [] }) =>
    gatheredBy('the derived writes', async () => {
      await importLeaseHeld();
      await batchDelete(tableName(), deletes);
      await batchPut(tableName(), puts);
      await transact({ additions, setChanges });
    });
}
