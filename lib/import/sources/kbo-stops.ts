/**
 * The enterprises a KBO full extract no longer holds (contract §11.5.2): every company the stage holds
 * from KBO, not stopped, whose number the extract's `enterprise.csv` does not list, is stopped on the
 * extract's `SnapshotDate` and keeps its last fields. Neither side is held: the extract's numbers come in
 * ascending order (as the join read them), the stage's are sorted in runs on disk (§11.5.10), and the
 * two are merged.
 *
 * The stage's side is read before the extract hands on its first unit (`storedEnterprises`): every
 * company the run itself writes is one the extract lists, so none of them could be a stop, and a stage
 * read before them is read without them. On a stage whose roster is not built yet (a first KBO import),
 * that read is a Scan or the filter profiles (lib/import/registry-store.ts): read at the end, it went
 * through every item the run had written and put each of its companies in the roster a second time.
 */
import type { KboMeta } from './kbo-tables';
import { KBO_SOURCE } from './kbo-changes';
import { KBO_OWNS } from './kbo-unit';
import { SortedRuns, type Spool, type SortedRunsOptions } from './sorted-runs';
import type { RegistryItem, StoredRegistry } from './unit';

/** The numbers of the companies the stage holds from KBO and not stopped, sorted in runs on disk. */
export async function storedEnterprises(
  stored: StoredRegistry,
  runs: SortedRunsOptions | undefined,
): Promise<SortedRuns<0>> {
  const known = new SortedRuns<0>(runs);
  try {
    for await (const page of stored.companiesOf(KBO_SOURCE, 'BE')) await known.addKeys(page, 0);
    return known;
  } catch (error) {
    await known.discard();
    throw error;
  }
}

/** A stop (`stoppedOn` alone, the extract's `SnapshotDate`) for each of the stage's enterprises `known` that `held` (the extract's numbers, ascending) lacks. */
export async function* stoppedEnterprises(
  held: Spool<string>,
  known: SortedRuns<0>,
  meta: KboMeta,
  file: string,
): AsyncGenerator<RegistryItem> {
  try {
    const numbers = held.texts()[Symbol.asyncIterator]();
    let next = await numbers.next();
    for await (const [number] of known.sortedTexts()) {
      while (!next.done && next.value < number) next = await numbers.next();
      if (!next.done && next.value === number) continue;
      yield {
        kind: 'unit',
        unit: {
          // No line of the extract names it: the file it is missing from does.
          source: { file, line: 0 },
          country: 'BE',
          companyNumber: number,
          owns: KBO_OWNS.filter((field) => field === 'stoppedOn'),
          fields: { stoppedOn: meta.snapshotDate },
          dropped: 0,
        },
      };
    }
  } finally {
    await Promise.all([known.discard(), held.discard()]);
  }
}
