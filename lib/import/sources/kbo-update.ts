/**
 * A KBO update applied to one enterprise's kept rows, as the registry prescribes (contract §11.3,
 * `registries.md` §1.5): per table, every row of an entity its `_delete` file lists is deleted, then the
 * rows its `_insert` file holds are inserted. Pure: the kept rows and the update's rows for the enterprise
 * and its establishments in, the new rows and the unit out.
 */
import {
  KBO_OWNS,
  KBO_TABLES,
  entityKey,
  kboUnit,
  type KboRow,
  type KboRows,
  type KboTable,
} from './kbo-unit';
import type { RegistryItem, UnitSource } from './unit';

/** One update's rows for one enterprise and its establishments, per table. */
export interface KboChanges {
  /** The entity numbers each table's `_delete` file lists (the enterprise's own or its establishments'). */
  deleted: Record<KboTable, string[]>;
  /** The rows each table's `_insert` file holds for them, in `KBO_COLUMNS` order. */
  inserted: Record<KboTable, KboRow[]>;
}

export const noChanges = (): KboChanges => ({
  deleted: Object.fromEntries(KBO_TABLES.map((t) => [t, []])) as unknown as Record<KboTable, string[]>,
  inserted: Object.fromEntries(KBO_TABLES.map((t) => [t, []])) as unknown as Record<KboTable, KboRow[]>,
});

/** Which kept list holds each table's rows, and which column of its rows names the entity. */
const KEPT: Record<Exclude<KboTable, 'enterprise'>, Exclude<keyof KboRows, 'enterprise' | 'ceasedOn'>> = {
  establishment: 'establishments',
  denomination: 'denominations',
  address: 'addresses',
  contact: 'contacts',
  activity: 'activities',
};

/**
 * The enterprise's rows after the update: undefined when it has no enterprise row any more (it ceased)
 * or never had one (an update about an enterprise the data does not hold, without its enterprise row).
 */
export function applyKboChanges(
  enterpriseNumber: string,
  kept: KboRows | undefined,
  changes: KboChanges,
): KboRows | undefined {
  const key = entityKey(enterpriseNumber);
  const deleted = (table: KboTable) => new Set(changes.deleted[table].map(entityKey));

  // A ceased enterprise stays ceased unless its enterprise row is inserted again.
  let enterprise = kept?.ceasedOn === undefined ? kept?.enterprise : undefined;
  if (deleted('enterprise').has(key)) enterprise = undefined;
  const inserted = changes.inserted.enterprise.filter((row) => entityKey(row[0]!) === key);
  if (inserted.length > 0) enterprise = inserted[inserted.length - 1];
  if (!enterprise) return undefined;

  const establishments = replaced(kept?.establishments ?? [], deleted('establishment'), [
    ...changes.inserted.establishment.filter((row) => entityKey(row[2]!) === key),
  ]);
  // Establishment numbers the enterprise has after the update: their addresses and activities belong to it.
  const own = new Set([key, ...establishments.map((row) => entityKey(row[0]!))]);
  const next: KboRows = {
    enterprise,
    establishments,
    denominations: [],
    addresses: [],
    contacts: [],
    activities: [],
  };
  for (const table of ['denomination', 'address', 'contact', 'activity'] as const) {
    const list = KEPT[table];
    // Denominations and contacts are kept for the enterprise alone, addresses and activities for its establishments too.
    const keeps = table === 'denomination' || table === 'contact' ? new Set([key]) : own;
    const rows = replaced(
      kept?.[list] ?? [],
      deleted(table),
      changes.inserted[table].filter((row) => keeps.has(entityKey(row[0]!))),
    );
    next[list] = rows.filter((row) => keeps.has(entityKey(row[0]!)));
  }
  return next;
}

/** Every kept row whose entity is listed goes, then the inserted rows come in. */
function replaced(rows: KboRow[], deleted: Set<string>, inserted: KboRow[]): KboRow[] {
  return [...rows.filter((row) => !deleted.has(entityKey(row[0]!))), ...inserted];
}

/**
 * What the update makes of the enterprise: the unit mapped from its new rows; an enterprise that ceased
 * (deleted, not inserted again) keeps its last fields and gains `stoppedOn`, the update's `SnapshotDate`;
 * an enterprise the data does not hold is skipped unless the update inserts it whole.
 */
export function kboUpdateItem(
  enterpriseNumber: string,
  kept: KboRows | undefined,
  changes: KboChanges,
  context: { source: UnitSource; snapshotDate: string },
): RegistryItem {
  const next = applyKboChanges(enterpriseNumber, kept, changes);
  if (next) return kboUnit(next, context);
  if (!kept) return { kind: 'skipped', reason: 'not in the data', source: context.source };
  // Ceased once: a later update that deletes it again (or the same one run again) keeps the first date.
  const stoppedOn = kept.ceasedOn ?? context.snapshotDate;
  return {
    kind: 'unit',
    unit: {
      source: context.source,
      country: 'BE',
      companyNumber: enterpriseNumber,
      owns: KBO_OWNS.filter((field) => field === 'stoppedOn'),
      fields: { stoppedOn },
      dropped: 0,
      registryRows: { ...kept, ceasedOn: stoppedOn },
    },
  };
}
