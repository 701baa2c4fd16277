/**
 * A KBO update extract (contract §11.3, §11.5.2; `registries.md` §1.5) → one item per enterprise it
 * touches in any file, applied to the rows the stage keeps of it (`kbo-update.ts`: per table, every row
 * of a listed entity deleted, then its inserted rows). Nothing is held whole:
 *
 * 1. Every `<table>_delete.csv` and `<table>_insert.csv` row goes into sorted runs on disk by its entity
 *    (§11.5.10), whatever the files' order.
 * 2. Entity by entity, each row goes to its enterprise: an enterprise's are its own; an establishment's
 *    go to the enterprise its `establishment_insert.csv` row names and to the one the stage links it to
 *    (`StoredRegistry.linkedTo`, 100 establishments a read); a branch's are not kept (no field of the
 *    company comes from a branch). Sorted runs again, by enterprise.
 * 3. Enterprise by enterprise, its rows kept by the stage are read (100 enterprises a read) and the
 *    changes applied: a unit, an enterprise stopped on the update's `SnapshotDate`, or skipped.
 */
import type { RegistryFiles } from './files';
import { readCsv, valueAt } from './csv';
import type { KboMeta } from './kbo-tables';
import { KBO_COLUMNS, KBO_TABLES, entityKey, type KboRow, type KboRows, type KboTable } from './kbo-unit';
import { kboUpdateItem, noChanges, type KboChanges } from './kbo-update';
import { SortedRuns, type SortedRunsOptions } from './sorted-runs';
import type { RegistryItem, StoredRegistry, UnitSource } from './unit';

/** The source name links and stored companies are kept under. */
export const KBO_SOURCE = 'kbo';

/** Enterprises (and establishments) resolved per read of the stage. */
const PER_READ = 100;

/** One row of a change file: its table, delete or insert, the row (a delete: the key alone), where it is. */
interface ChangeRow {
  t: KboTable;
  /** 1: a delete file's row; 0: an insert file's. */
  d: 0 | 1;
  r: KboRow;
  f: string;
  l: number;
}

/** A change row routed to its enterprise, with the entity it names. */
interface Routed extends ChangeRow {
  e: string;
}

/** Whether the files are an update extract: they hold change files (`meta.csv` may say so too). */
export function isKboUpdate(files: RegistryFiles, meta: KboMeta): boolean {
  if (meta.extractType === 'full') return false;
  if (meta.extractType === 'update') return true;
  return KBO_TABLES.some((table) => files.find(`${table}_delete.csv`) ?? files.find(`${table}_insert.csv`));
}

export async function* kboUpdateItems(
  files: RegistryFiles,
  meta: KboMeta,
  stored: StoredRegistry | undefined,
  options: { runs?: SortedRunsOptions } = {},
): AsyncGenerator<RegistryItem> {
  const byEntity = await changeRows(files, options.runs);
  const byEnterprise = new SortedRuns<Routed>(options.runs);
  try {
    for await (const batch of entityGroups(byEntity.sorted(), PER_READ)) {
      const establishments = batch.filter(([key]) => key[0] === '2').map(([key]) => key);
      const linked =
        stored && establishments.length > 0
          ? await stored.linkedTo(KBO_SOURCE, establishments)
          : new Map<string, string>();
      for (const [key, rows] of batch)
        for (const enterprise of enterprisesOf(key, rows, linked))
          for (const row of rows) await byEnterprise.add(enterprise, { ...row, e: key });
    }
    for await (const batch of entityGroups(byEnterprise.sorted(), PER_READ)) {
      const numbers = batch.map(([key]) => key).filter((key) => !key.startsWith('~'));
      const kept =
        stored && numbers.length > 0 ? await stored.rowsOf('BE', numbers) : new Map<string, unknown>();
      for (const [key, rows] of batch) {
        const source: UnitSource = { file: rows[0]!.f, line: rows[0]!.l };
        if (key.startsWith('~')) {
          yield {
            kind: 'rejected',
            source,
            reason: `EnterpriseNumber ${rows[0]!.r[0]?.trim() || '""'} is not a valid BE company number`,
          };
          continue;
        }
        yield kboUpdateItem(key, kept.get(key) as KboRows | undefined, changesOf(rows as Routed[]), {
          source,
          snapshotDate: meta.snapshotDate,
        });
      }
    }
  } finally {
    await Promise.all([byEntity.discard(), byEnterprise.discard()]);
  }
}

/** Every change file's rows, by entity (a malformed number keeps its own text as key). */
async function changeRows(files: RegistryFiles, runs: SortedRunsOptions | undefined) {
  const byEntity = new SortedRuns<ChangeRow>(runs);
  for (const table of KBO_TABLES)
    for (const deleted of [1, 0] as const) {
      const file = files.find(`${table}_${deleted ? 'delete' : 'insert'}.csv`);
      if (!file) continue;
      const columns = deleted ? [KBO_COLUMNS[table][0]] : KBO_COLUMNS[table];
      const csv = await readCsv(await files.open(file), file, columns);
      const index = columns.map((column) => csv.header.indexOf(column));
      for await (const rows of csv.rows)
        for (const row of rows) {
          const kept = index.map((at) => valueAt(row, at));
          const key = entityKey(kept[0]!);
          // Only an enterprise file's malformed number is reported (rejected); others name nothing kept.
          if (key.length !== 10 && table !== 'enterprise') continue;
          await byEntity.add(key.length === 10 ? key : `~${kept[0]!.replace(/[\t\r\n]/g, ' ')}`, {
            t: table,
            d: deleted,
            r: kept,
            f: file,
            l: row.line,
          });
        }
    }
  return byEntity;
}

/** Groups sorted records by key, handed on `size` groups at a time. */
async function* entityGroups<T>(
  records: AsyncIterable<[string, T]>,
  size: number,
): AsyncGenerator<Array<[string, T[]]>> {
  let batch: Array<[string, T[]]> = [];
  let current: [string, T[]] | undefined;
  for await (const [key, value] of records) {
    if (current?.[0] === key) {
      current[1].push(value);
      continue;
    }
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
    current = [key, [value]];
    batch.push(current);
  }
  if (batch.length > 0) yield batch;
}

/**
 * The enterprises an entity's change rows go to: an enterprise itself; an establishment's enterprise as
 * the update inserts it and as the stage links it (both, when it moved); nothing for a branch.
 */
function enterprisesOf(key: string, rows: ChangeRow[], linked: Map<string, string>): string[] {
  if (key.startsWith('~')) return [key];
  if (key[0] === '0' || key[0] === '1') return [key];
  if (key[0] !== '2') return [];
  const owners = new Set<string>();
  for (const row of rows) if (row.t === 'establishment' && row.d === 0) owners.add(entityKey(row.r[2] ?? ''));
  const link = linked.get(key);
  if (link) owners.add(link);
  return [...owners].filter((owner) => owner.length === 10);
}

/** An enterprise's routed rows as the changes `applyKboChanges` takes. */
function changesOf(rows: Routed[]): KboChanges {
  const changes = noChanges();
  for (const row of rows) {
    if (row.d) changes.deleted[row.t].push(row.e);
    else changes.inserted[row.t].push(row.r);
  }
  return changes;
}
