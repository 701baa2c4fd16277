/**
 * A KBO full extract (contract §11.3; `registries.md` §1) → one item per enterprise of `enterprise.csv`,
 * in that file's order. Two passes, neither holding the registry:
 *
 * 1. The establishments: `establishment.csv` joined with the establishments' rows of `address.csv` and
 *    `activity.csv` (all in establishment order), each establishment's rows then re-ordered by its
 *    enterprise in sorted runs on disk (§11.5.10); the order of `denomination.csv` and `contact.csv` is
 *    checked too.
 * 2. The enterprises: `enterprise.csv` joined with the enterprises' rows of `denomination.csv`,
 *    `address.csv`, `contact.csv` and `activity.csv` and with pass 1's output, all in enterprise order.
 *
 * Each join is a merge of streams grouped by entity number, checked as it goes (`kbo-tables.ts`); a
 * file out of that order is copied in order through sorted runs on disk first.
 */
import { RegistryFileError, type RegistryFiles } from './files';
import { EntityRows, readKboMeta, type KboMeta } from './kbo-tables';
import { entityKey, kboUnit, type KboRow, type KboRows } from './kbo-unit';
import { SortedRuns, type SortedRunsOptions } from './sorted-runs';
import { OutOfOrderError, sortedCopy, withCopies } from './sorted-copy';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RegistryItem } from './unit';

export interface KboOptions {
  /** Where the establishments' sorted runs go (default: the system's temporary folder) and their size. */
  runs?: SortedRunsOptions;
}

/** What a full extract gives: its meta and its items. */
export interface KboExtract {
  meta: KboMeta;
  items: AsyncGenerator<RegistryItem>;
}

/** An establishment's rows, as pass 1 hands them to pass 2. */
interface EstablishmentRows {
  establishment: KboRow;
  addresses: KboRow[];
  activities: KboRow[];
}

/** Opens a full extract: `meta.csv` is read (refused without it, or when it is an update). */
export async function readKboFull(files: RegistryFiles, options: KboOptions = {}): Promise<KboExtract> {
  const meta = await readKboMeta(files);
  if (meta.extractType && meta.extractType !== 'full')
    throw new RegistryFileError(`${files.origin} is a KBO ${meta.extractType} extract, not a full one`);
  return { meta, items: kboItems(files, options) };
}

/** The key column each file is sorted by when it comes out of order. */
const KEY_COLUMNS: Record<string, string> = {
  'enterprise.csv': 'EnterpriseNumber',
  'establishment.csv': 'EstablishmentNumber',
  'denomination.csv': 'EntityNumber',
  'address.csv': 'EntityNumber',
  'contact.csv': 'EntityNumber',
  'activity.csv': 'EntityNumber',
};

/**
 * The two passes; a file found out of order is copied in order on disk (§11.5.10) and the passes start
 * again. Pass 1 reads every file but `enterprise.csv` whole, checking its order, before pass 2 hands on
 * anything; `enterprise.csv` may be found out of order later, which is safe too: what came before its
 * first row out of order was joined right, so the new start hands on only the lines not handed on yet.
 */
async function* kboItems(files: RegistryFiles, options: KboOptions): AsyncGenerator<RegistryItem> {
  const copies = new Map<string, string>();
  let scratch: string | undefined;
  let handedOn = 0;
  let doneUpToLine = 0;
  try {
    for (;;) {
      const enterpriseSorted = copies.has(files.find('enterprise.csv') ?? '');
      try {
        for await (const item of passes(withCopies(files, copies), options)) {
          const line = (item.kind === 'unit' ? item.unit.source : item.source).line;
          if (enterpriseSorted && line <= doneUpToLine) continue;
          if (!enterpriseSorted) doneUpToLine = line;
          handedOn++;
          yield item;
        }
        return;
      } catch (error) {
        if (!(error instanceof OutOfOrderError)) throw error;
        const key = KEY_COLUMNS[error.file.toLowerCase()];
        const isEnterprises = error.file.toLowerCase() === 'enterprise.csv';
        if (!key || copies.has(error.file)) throw error;
        if (handedOn > 0 && !isEnterprises)
          throw new RegistryFileError(
            `${error.message}; found after ${handedOn} enterprises were converted, too late to sort it first: ` +
              `sort it by its first column (a stable sort) and import again`,
          );
        scratch ??= await mkdtemp(join(options.runs?.dir ?? tmpdir(), 'kbo-sorted-'));
        copies.set(error.file, await sortedCopy(files, error.file, key, entityKey, scratch, options.runs));
      }
    }
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

async function* passes(files: RegistryFiles, options: KboOptions): AsyncGenerator<RegistryItem> {
  const establishments = await establishmentsByEnterprise(files, options);
  try {
    yield* enterprises(files, establishments.sorted()[Symbol.asyncIterator]());
  } finally {
    await establishments.discard();
  }
}

async function establishmentsByEnterprise(
  files: RegistryFiles,
  options: KboOptions,
): Promise<SortedRuns<EstablishmentRows>> {
  const runs = new SortedRuns<EstablishmentRows>(options.runs);
  const walks = [
    await EntityRows.open(files, 'establishment.csv', 'establishment', 'establishment'),
    await EntityRows.open(files, 'address.csv', 'address', 'establishment'),
    await EntityRows.open(files, 'activity.csv', 'activity', 'establishment'),
  ] as const;
  const [establishments, addresses, activities] = walks;
  try {
    let previous = '';
    for (let next = await establishments.peek(); next; next = await establishments.peek()) {
      establishments.skip();
      if (next.key === previous) continue; // listed twice: its rows went with the first
      previous = next.key;
      const enterprise = entityKey(next.row[2]!);
      await runs.add(`${enterprise}:${next.key}`, {
        establishment: next.row,
        addresses: await addresses.take(next.key),
        activities: await activities.take(next.key),
      });
    }
    // The enterprises' names and contacts are read in pass 2 only: their order is checked here, before
    // anything is handed on, so that a file out of order can still be sorted first.
    for (const name of ['denomination.csv', 'contact.csv'] as const) {
      const walk = await EntityRows.open(
        files,
        name,
        name === 'contact.csv' ? 'contact' : 'denomination',
        'any',
      );
      await walk.checkOrder().finally(() => walk.close());
    }
  } catch (error) {
    await runs.discard();
    throw error;
  } finally {
    await Promise.all(walks.map((walk) => walk.close()));
  }
  return runs;
}

async function* enterprises(
  files: RegistryFiles,
  establishments: AsyncIterator<[string, EstablishmentRows]>,
): AsyncGenerator<RegistryItem> {
  const walks = [
    await EntityRows.open(files, 'enterprise.csv', 'enterprise', 'any'),
    await EntityRows.open(files, 'denomination.csv', 'denomination', 'enterprise'),
    await EntityRows.open(files, 'address.csv', 'address', 'enterprise'),
    await EntityRows.open(files, 'contact.csv', 'contact', 'enterprise'),
    await EntityRows.open(files, 'activity.csv', 'activity', 'enterprise'),
  ] as const;
  const [enterpriseRows, denominations, addresses, contacts, activities] = walks;
  let establishment = await establishments.next();
  try {
    let previous = '';
    for (let next = await enterpriseRows.peek(); next; next = await enterpriseRows.peek()) {
      enterpriseRows.skip();
      const source = { file: enterpriseRows.file, line: next.line };
      if (next.key === previous) {
        yield {
          kind: 'rejected',
          source,
          reason: `enterprise ${next.row[0]!.trim()} appears twice (the first one wins)`,
        };
        continue;
      }
      previous = next.key;
      const rows: KboRows = {
        enterprise: next.row,
        establishments: [],
        denominations: await denominations.take(next.key),
        addresses: await addresses.take(next.key),
        contacts: await contacts.take(next.key),
        activities: await activities.take(next.key),
      };
      // Pass 1's keys are `enterprise:establishment`: those of enterprises not in this file are passed over.
      while (!establishment.done && establishment.value[0] < `${next.key}:`)
        establishment = await establishments.next();
      while (!establishment.done && establishment.value[0].startsWith(`${next.key}:`)) {
        const { establishment: row, addresses: its, activities: theirs } = establishment.value[1];
        rows.establishments.push(row);
        rows.addresses.push(...its);
        rows.activities.push(...theirs);
        establishment = await establishments.next();
      }
      yield kboUnit(rows, { source });
    }
  } finally {
    await Promise.all(walks.map((walk) => walk.close()));
    await establishments.return?.(undefined);
  }
}
