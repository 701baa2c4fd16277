/**
 * A KBO update applied to the rows kept of each enterprise (contract §11.3: per table, every row of a
 * listed entity deleted, then its rows inserted), over the sample update in
 * test/fixtures/registries/kbo-update on top of the sample full extract.
 */
import { join } from 'node:path';
import { readCsv, valueAt } from '../../lib/import/sources/csv';
import { openRegistryFiles, type RegistryFiles } from '../../lib/import/sources/files';
import { readKboFull } from '../../lib/import/sources/kbo';
import { readKboMeta } from '../../lib/import/sources/kbo-tables';
import {
  KBO_COLUMNS,
  KBO_TABLES,
  entityKey,
  type KboRows,
  type KboTable,
} from '../../lib/import/sources/kbo-unit';
import {
  applyKboChanges,
  kboUpdateItem,
  noChanges,
  type KboChanges,
} from '../../lib/import/sources/kbo-update';
import type { RegistryUnit } from '../../lib/import/sources/unit';

const FIXTURES = join(__dirname, '../fixtures/registries');

async function rowsOf(files: RegistryFiles, name: string, columns: readonly string[]): Promise<string[][]> {
  const csv = await readCsv(await files.open(name), name);
  const index = columns.map((column) => csv.header.indexOf(column));
  const rows: string[][] = [];
  for await (const batch of csv.rows) for (const row of batch) rows.push(index.map((i) => valueAt(row, i)));
  return rows;
}

/** The kept rows of every enterprise of the full sample (a test may hold them all: it is tiny). */
async function keptRows(): Promise<Map<string, KboRows>> {
  const files = await openRegistryFiles(join(FIXTURES, 'kbo-full'));
  const kept = new Map<string, KboRows>();
  for await (const item of (await readKboFull(files)).items)
    if (item.kind === 'unit') kept.set(entityKey(item.unit.companyNumber), item.unit.registryRows as KboRows);
  return kept;
}

/** The update's rows per enterprise, establishments linked through the kept rows and the inserted ones. */
async function changesOf(files: RegistryFiles, kept: Map<string, KboRows>): Promise<Map<string, KboChanges>> {
  const owner = new Map<string, string>();
  for (const [enterprise, rows] of kept)
    for (const e of rows.establishments) owner.set(entityKey(e[0]!), enterprise);
  const inserted = new Map<KboTable, string[][]>();
  for (const table of KBO_TABLES) {
    inserted.set(table, await rowsOf(files, `${table}_insert.csv`, KBO_COLUMNS[table]));
  }
  for (const row of inserted.get('establishment')!) owner.set(entityKey(row[0]!), entityKey(row[2]!));
  const enterpriseOf = (entity: string) => (entity[0] === '2' ? owner.get(entity) : entity);
  const changes = new Map<string, KboChanges>();
  const of = (enterprise: string) =>
    changes.get(enterprise) ?? changes.set(enterprise, noChanges()).get(enterprise)!;
  for (const table of KBO_TABLES) {
    for (const [number] of await rowsOf(files, `${table}_delete.csv`, [KBO_COLUMNS[table][0]])) {
      const enterprise = enterpriseOf(entityKey(number!));
      if (enterprise) of(enterprise).deleted[table].push(number!);
    }
    for (const row of inserted.get(table)!) {
      const enterprise = table === 'establishment' ? entityKey(row[2]!) : enterpriseOf(entityKey(row[0]!));
      if (enterprise) of(enterprise).inserted[table].push(row);
    }
  }
  return changes;
}

describe('a KBO update', () => {
  let kept: Map<string, KboRows>;
  let changes: Map<string, KboChanges>;
  let snapshotDate: string;
  const source = { file: 'enterprise_delete.csv', line: 2 };

  beforeAll(async () => {
    kept = await keptRows();
    const files = await openRegistryFiles(join(FIXTURES, 'kbo-update'));
    snapshotDate = (await readKboMeta(files)).snapshotDate;
    changes = await changesOf(files, kept);
  });

  function updated(number: string): RegistryUnit {
    const key = entityKey(number);
    const item = kboUpdateItem(number, kept.get(key), changes.get(key)!, { source, snapshotDate });
    if (item.kind !== 'unit') throw new Error(`no unit for ${number}`);
    return item.unit;
  }

  it('touches the enterprises its files list, its establishments through their enterprise', () => {
    expect([...changes.keys()].sort()).toEqual(['0403170701', '0410000093', '0712345630', '0830000096']);
  });

  it('replaces all denominations of a listed entity: a new name, a commercial name gone', () => {
    const unit = updated('0403.170.701');
    expect(unit.fields.name).toBe('Acme Bouwgroep');
    expect(unit.fields.otherNames).toEqual(['Acme Construction', 'ACB']);
    expect(unit.fields.activities).toEqual(['41201', '43999', '43320']);
    expect(unit.fields.address?.street).toBe('Voorbeeldstraat');
  });

  it('moves a seat: the new address in the name’s language', () => {
    const unit = updated('0410.000.093');
    expect(unit.fields.address).toEqual({
      street: 'Avenue Louise',
      number: '54',
      box: null,
      postalCode: '1050',
      place: 'Ixelles',
    });
    expect(unit.fields.place).toBe('Ixelles');
  });

  it('drops a closed establishment with its address and activities', () => {
    const unit = updated('0712.345.630');
    expect(unit.fields.activities).toEqual(['56102']);
    expect(unit.fields.place).toBe('Gent');
    const rows = unit.registryRows as KboRows;
    expect(rows.establishments.map((e) => e[0])).toEqual(['2.000.123.469']);
    expect(rows.addresses.map((a) => a[0])).toEqual(['2.000.123.469']);
  });

  it('stops an enterprise it deletes and does not insert again, on its snapshot date, keeping its last fields', () => {
    const unit = updated('0830.000.096');
    expect(unit.owns).toEqual(['stoppedOn']);
    expect(unit.fields).toEqual({ stoppedOn: '2025-09-06' });
    expect(unit.registryRows).toEqual({ ...kept.get('0830000096'), ceasedOn: '2025-09-06' });
  });

  it('keeps the first stop date when a later update deletes it again, and revives it when one inserts it', () => {
    const ceased = updated('0830.000.096').registryRows as KboRows;
    const again = noChanges();
    again.deleted.enterprise.push('0830.000.096');
    again.deleted.denomination.push('0830.000.096');
    const later = kboUpdateItem('0830.000.096', ceased, again, { source, snapshotDate: '2025-10-01' });
    expect(later.kind === 'unit' && later.unit.fields).toEqual({ stoppedOn: '2025-09-06' });
    // Rows of other tables alone do not bring it back.
    const names = noChanges();
    names.inserted.denomination.push(['0830.000.096', '2', '001', 'Leuvense Bieren Twee']);
    const renamed = kboUpdateItem('0830.000.096', ceased, names, { source, snapshotDate: '2025-10-01' });
    expect(renamed.kind === 'unit' && renamed.unit.fields).toEqual({ stoppedOn: '2025-09-06' });
    const back = noChanges();
    back.inserted.enterprise.push(ceased.enterprise);
    const revived = kboUpdateItem('0830.000.096', ceased, back, { source, snapshotDate: '2025-10-01' });
    expect(revived.kind === 'unit' && revived.unit.fields).toMatchObject({
      name: 'Leuvense Bieren',
      stoppedOn: null,
    });
    expect(revived.kind === 'unit' && (revived.unit.registryRows as KboRows).ceasedOn).toBeUndefined();
  });

  it('gives the same rows when applied twice (a rerun after a cut writes nothing new)', () => {
    for (const [key, change] of changes) {
      const once = applyKboChanges(key, kept.get(key), change);
      expect(applyKboChanges(key, once, change)).toEqual(once);
    }
  });

  it('skips an enterprise the data does not hold unless the update inserts it whole', () => {
    const partial = noChanges();
    partial.inserted.denomination.push(['0200.000.439', '2', '001', 'Nieuw']);
    expect(kboUpdateItem('0200.000.439', undefined, partial, { source, snapshotDate })).toEqual({
      kind: 'skipped',
      reason: 'not in the data',
      source,
    });
    partial.inserted.enterprise.push(['0200.000.439', 'AC', '000', '2', '610', '', '01-06-1990']);
    const item = kboUpdateItem('0200.000.439', undefined, partial, { source, snapshotDate });
    expect(item.kind === 'unit' && item.unit.fields.name).toBe('Nieuw');
  });
});
