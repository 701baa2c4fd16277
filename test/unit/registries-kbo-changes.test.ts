/**
 * A KBO update extract read as the registry publishes it (lib/import/sources/kbo-changes.ts): its
 * change files regrouped by entity and by enterprise in sorted runs on disk, whatever their order; an
 * establishment's rows reaching its enterprise through the update's own rows and the stage's links; a
 * branch's rows passed over; the rows kept by the stage (a stand-in here) changed per table.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRegistryFiles } from '../../lib/import/sources/files';
import { readKboFull } from '../../lib/import/sources/kbo';
import { kboUpdateItems } from '../../lib/import/sources/kbo-changes';
import { readKboMeta } from '../../lib/import/sources/kbo-tables';
import { KBO_COLUMNS, KBO_TABLES, entityKey, type KboRows } from '../../lib/import/sources/kbo-unit';
import type { RegistryItem, RegistryUnit, StoredRegistry } from '../../lib/import/sources/unit';

const FULL = join(__dirname, '../fixtures/registries/kbo-full');

/** The stage as the import leaves it after the sample full extract: rows and links, in memory. */
async function stageAfterFull(): Promise<{ stored: StoredRegistry; asked: string[][] }> {
  const rows = new Map<string, KboRows>();
  const links = new Map<string, string>();
  for await (const item of (await readKboFull(await openRegistryFiles(FULL))).items)
    if (item.kind === 'unit') {
      const key = entityKey(item.unit.companyNumber);
      rows.set(key, item.unit.registryRows as KboRows);
      for (const link of item.unit.links ?? []) links.set(link, key);
    }
  const asked: string[][] = [];
  return {
    asked,
    stored: {
      rowsOf: (_country, numbers) => {
        asked.push(numbers);
        return Promise.resolve(new Map(numbers.filter((n) => rows.has(n)).map((n) => [n, rows.get(n)])));
      },
      linkedTo: (_source, entities) =>
        Promise.resolve(new Map(entities.filter((e) => links.has(e)).map((e) => [e, links.get(e)!]))),
      companiesOf: async function* () {},
    },
  };
}

const q = (values: string[]) => values.map((v) => `"${v}"`).join(',');

/** An update folder: meta.csv and each named file (header added), the other change files empty. */
async function updateFolder(dir: string, rows: Record<string, string[][]>): Promise<string> {
  const folder = await mkdtemp(join(dir, 'update-'));
  await writeFile(
    join(folder, 'meta.csv'),
    '"Variable","Value"\n"SnapshotDate","06-09-2025"\n"ExtractType","update"\n"ExtractNumber","128"\n',
  );
  for (const table of KBO_TABLES)
    for (const kind of ['delete', 'insert'] as const) {
      const name = `${table}_${kind}.csv`;
      const header = kind === 'delete' ? [KBO_COLUMNS[table][0]] : [...KBO_COLUMNS[table]];
      const lines = [q(header), ...(rows[name] ?? []).map(q)];
      await writeFile(join(folder, name), `${lines.join('\n')}\n`);
    }
  return folder;
}

async function itemsOf(folder: string, stored?: StoredRegistry, runDir?: string): Promise<RegistryItem[]> {
  const files = await openRegistryFiles(folder);
  const items: RegistryItem[] = [];
  const runs = { runSize: 2, ...(runDir ? { dir: runDir } : {}) };
  for await (const item of kboUpdateItems(files, await readKboMeta(files), stored, { runs }))
    items.push(item);
  await files.close();
  return items;
}

const unitOf = (items: RegistryItem[], key: string): RegistryUnit => {
  const item = items.find((i) => i.kind === 'unit' && entityKey(i.unit.companyNumber) === key);
  if (item?.kind !== 'unit') throw new Error(`no unit ${key}`);
  return item.unit;
};

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kbo-changes-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('a KBO update extract, read', () => {
  it('groups rows listed out of order by enterprise, one item each, in number order, through runs on disk', async () => {
    const { stored } = await stageAfterFull();
    const folder = await updateFolder(scratch, {
      'denomination_delete.csv': [['0830.000.096'], ['0403.170.701']],
      'denomination_insert.csv': [
        ['0830.000.096', '2', '001', 'Leuvense Bieren Nieuw'],
        ['0403.170.701', '2', '001', 'Acme Bouwgroep'],
        ['0830.000.096', '1', '001', 'Bières de Louvain'],
      ],
      'contact_delete.csv': [['0403.170.701']],
    });
    const runs = await mkdtemp(join(scratch, 'runs-'));
    const items = await itemsOf(folder, stored, runs);
    expect(items.map((i) => i.kind === 'unit' && entityKey(i.unit.companyNumber))).toEqual([
      '0403170701',
      '0830000096',
    ]);
    expect(unitOf(items, '0403170701').fields).toMatchObject({
      name: 'Acme Bouwgroep',
      otherNames: [],
      website: null,
    });
    expect(unitOf(items, '0830000096').fields).toMatchObject({
      name: 'Leuvense Bieren Nieuw',
      otherNames: ['Bières de Louvain'],
    });
    // Named by the first change file line about it (files in table order, deletes first).
    expect(unitOf(items, '0403170701').source).toEqual({ file: 'denomination_delete.csv', line: 3 });
    expect(await readdir(runs)).toEqual([]);
  });

  it('sends a moved establishment’s rows to the enterprise it leaves (its link) and the one it joins', async () => {
    const { stored } = await stageAfterFull();
    // 2.001.111.186 (Gentbrugge, 68201) leaves 0403.170.701 for 0820.000.089.
    const folder = await updateFolder(scratch, {
      'establishment_delete.csv': [['2.001.111.186']],
      'establishment_insert.csv': [['2.001.111.186', '01-01-2005', '0820.000.089']],
    });
    const items = await itemsOf(folder, stored);
    const left = unitOf(items, '0403170701').registryRows as KboRows;
    const joined = unitOf(items, '0820000089').registryRows as KboRows;
    expect(left.establishments).toEqual([]);
    expect(left.addresses.map((a) => a[0])).toEqual(['0403.170.701']);
    expect(joined.establishments.map((e) => e[0])).toEqual(['2.000.999.934', '2.001.111.186']);
    expect(unitOf(items, '0820000089').links).toEqual(['2000999934', '2001111186']);
  });

  it('passes over a branch’s rows, rejects a malformed enterprise number with its line, skips an enterprise not held', async () => {
    const { stored, asked } = await stageAfterFull();
    const folder = await updateFolder(scratch, {
      'denomination_delete.csv': [['9.000.012.366']],
      'denomination_insert.csv': [['9.000.012.366', '1', '004', 'Succursale']],
      'enterprise_insert.csv': [['0403.17', 'AC', '000', '2', '014', '', '01-03-1998']],
      'address_delete.csv': [['0417.497.106']],
    });
    const items = await itemsOf(folder, stored);
    expect(items).toEqual([
      { kind: 'skipped', reason: 'not in the data', source: { file: 'address_delete.csv', line: 2 } },
      {
        kind: 'rejected',
        reason: 'EnterpriseNumber 0403.17 is not a valid BE company number',
        source: { file: 'enterprise_insert.csv', line: 2 },
      },
    ]);
    // The stage is asked for the rows of well-formed enterprises only, and never for a branch.
    expect(asked).toEqual([['0417497106']]);
  });

  it('without the stage, imports only what the update inserts whole', async () => {
    const folder = await updateFolder(scratch, {
      'enterprise_insert.csv': [['0417.497.106', 'AC', '000', '2', '610', '', '01-10-2025']],
      'denomination_insert.csv': [
        ['0417.497.106', '2', '001', 'Nieuwe Zaak'],
        ['0403.170.701', '2', '001', 'Acme Bouwgroep'],
      ],
    });
    const items = await itemsOf(folder);
    expect(items.map((i) => i.kind)).toEqual(['skipped', 'unit']);
    expect(unitOf(items, '0417497106').fields).toMatchObject({
      name: 'Nieuwe Zaak',
      foundedOn: '2025-10-01',
    });
  });
});
