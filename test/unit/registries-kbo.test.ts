/**
 * The KBO full extract converter (contract §11.3, §11.5) over the sample extract in
 * test/fixtures/registries/kbo-full: every mapped field for each awkward case, read from the folder
 * and from a ZIP made of it, and read again as a re-import reads it. Folders that are not an extract
 * as published: registries-kbo-files.test.ts.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRegistryFiles } from '../../lib/import/sources/files';
import { readKboFull } from '../../lib/import/sources/kbo';
import { kboUnit } from '../../lib/import/sources/kbo-unit';
import { REGISTRY_FIELDS, type RegistryItem, type StoredRegistry } from '../../lib/import/sources/unit';
import { convert, FULL, RECORDS, rawTexts, readAgain } from '../support/kbo-extract';
import { gathered, rejected, unitOf, zipOf } from '../support/registry-items';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kbo-test-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('a KBO full extract', () => {
  let items: RegistryItem[];
  beforeAll(async () => {
    items = await convert(FULL);
  });

  it('reads meta.csv: the snapshot date as ISO, the extract number', async () => {
    const files = await openRegistryFiles(FULL);
    const { meta } = await readKboFull(files);
    await files.close();
    expect(meta).toEqual({ snapshotDate: '2025-08-30', extractType: 'full', extractNumber: 127 });
  });

  it('gives one item per enterprise, in the order of enterprise.csv, with its line', () => {
    const sources = items.map((i) => (i.kind === 'unit' ? i.unit.source : i.source));
    expect(sources.map((s) => s.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(sources.every((s) => s.file === 'enterprise.csv')).toBe(true);
  });

  it('rejects an invalid number and a missing name, naming the file and line, and nothing else', () => {
    expect(items.filter((i) => i.kind !== 'unit')).toEqual([
      rejected('enterprise.csv', 3, 'EnterpriseNumber 0300.000.001 is not a valid BE company number'),
      rejected('enterprise.csv', 8, 'enterprise 0812.345.603 has no name (denomination 001)'),
    ]);
  });

  it('maps a Flemish company: Dutch name, other names without repeats, the seat in Dutch, MAIN by group then SECO of NACE 2008, VAT, the first website', () => {
    const unit = unitOf(items, '0403.170.701');
    expect(unit.country).toBe('BE');
    // Every field a registry may own, in the order the unit's fingerprint has always listed them.
    expect(unit.owns).toEqual(REGISTRY_FIELDS);
    expect(unit.owns.slice(2, 4)).toEqual(['address', 'place']);
    expect(unit.fields).toEqual({
      name: 'Acme Bouw, "De Toekomst"',
      otherNames: ['Acme Construction', 'ACB', 'Acme Renovatie'],
      address: {
        street: 'Voorbeeldstraat',
        number: '12',
        box: 'A',
        postalCode: '9000',
        place: 'Gent',
      },
      place: 'Gent',
      legalForm: '014',
      foundedOn: '1998-03-01',
      stoppedOn: null,
      activities: ['41201', '43999', '43320'],
      vatNumber: 'BE0403170701',
      website: 'https://www.acme-bouw.be',
    });
    expect(unit.dropped).toBe(0);
  });

  it('maps a Brussels company in French, the seat in French with `""` and bare empty parts as none, NACE 2025 when that is all it has', () => {
    const { fields } = unitOf(items, '0410.000.093');
    expect(fields.name).toBe('Café Bruxellois');
    expect(fields.otherNames).toEqual(['Brusselse Koffie']);
    expect(fields.address).toEqual({
      street: 'Rue du Chêne',
      number: '16',
      box: null,
      postalCode: '1000',
      place: 'Bruxelles',
    });
    expect(fields.activities).toEqual(['56301', '47291']);
    expect(fields.vatNumber).toBeNull();
    expect(fields.website).toBe('https://www.cafe-bruxellois.be');
  });

  it('names a company of the German-speaking area in German', () => {
    const { fields } = unitOf(items, '0200.000.439');
    expect(fields.name).toBe('Beispiel Eupen GmbH');
    expect(fields.otherNames).toEqual(['Exemple Eupen SPRL']);
    expect(fields.place).toBe('Eupen');
  });

  it('maps a natural person: no seat address, no legal form, the place and activities of its establishments', () => {
    const unit = unitOf(items, '0712.345.630');
    expect(unit.fields).toMatchObject({
      name: 'Peeters, Jan',
      otherNames: [],
      address: null,
      place: 'Gent',
      legalForm: null,
      foundedOn: '2021-01-02',
      activities: ['56101', '56102'],
      vatNumber: 'BE0712345630',
      website: null,
    });
  });

  it('maps a foreign seat with its country as an ISO code; an impossible date is dropped and counted', () => {
    const unit = unitOf(items, '0765.432.146');
    expect(unit.fields.address).toEqual({
      street: 'Rue de Rivoli',
      number: '1',
      box: null,
      postalCode: '75008',
      place: 'Paris',
      country: 'FR',
    });
    expect(unit.fields.name).toBe('Société Exemple France');
    expect(unit.fields.otherNames).toEqual([]); // the branch's name is the branch's
    expect(unit.fields.foundedOn).toBeNull();
    expect(unit.fields.activities).toEqual([]);
    expect(unit.dropped).toBe(1);
  });

  it("takes the establishments' activities when the enterprise has only NACE 2003 ones", () => {
    expect(unitOf(items, '0820.000.089').fields.activities).toEqual(['46761']);
  });

  it('counts NACE 2003 codes alone as a dropped field', () => {
    const unit = unitOf(items, '0830.000.096');
    expect(unit.fields.activities).toEqual([]);
    expect(unit.dropped).toBe(1);
  });

  it('cuts a 7-digit code to 5 and reads a number starting with 1', () => {
    const unit = unitOf(items, '1001.234.592');
    expect(unit.fields.activities).toEqual(['62010', '62020']);
    expect(unit.fields.vatNumber).toBe('BE1001234592');
    expect(unit.fields.address).toMatchObject({
      street: 'Rue de Fer',
      number: '7',
      box: '2',
      place: 'Namur',
    });
  });

  it('keeps the rows an update needs: the enterprise, its establishments and their addresses and activities', () => {
    const rows = unitOf(items, '0712.345.630').registryRows as Record<string, string[][]>;
    expect(rows['establishments']!.map((row) => row[0])).toEqual(['2.000.123.469', '2.000.567.887']);
    expect(rows['addresses']!.map((row) => row[0])).toEqual(['2.000.123.469', '2.000.567.887']);
    expect(rows['activities']).toHaveLength(3);
  });

  it('gives the same items from a ZIP of the folder, and with the establishments sorted in runs on disk', async () => {
    expect(
      await convert(
        await zipOf(
          join(scratch, 'KboOpenData_0127_2025_09_Full.zip'),
          (await readdir(FULL)).map((name) => join(FULL, name)),
        ),
      ),
    ).toEqual(items);
    expect(await convert(FULL, 2)).toEqual(items);
  });

  it("is read again as raw records: an enterprise's text holds its rows as published, and maps to the very items", async () => {
    const again = await readAgain(FULL);
    expect(again.items).toEqual(items);
    expect(again.raw).toBe(items.length);
    expect([...again.versions]).toEqual([expect.stringMatching(RECORDS)]);
    // A name with its quotes doubled, as the file writes it: the row is not parsed into values.
    const denominations = await readFile(join(FULL, 'denomination.csv'), 'utf8');
    const quoted = denominations.split('\r\n').find((record) => record.includes('""'))!;
    expect(quoted).toBeDefined();
    expect((await rawTexts(FULL)).filter((text) => text.includes(JSON.stringify(quoted)))).toHaveLength(1);
  });
});

describe('a KBO full extract given the stage', () => {
  it("reads the stage's KBO companies before it hands on its first enterprise, and stops those it no longer holds after its last", async () => {
    // What happened in turn: the stage read, or an item handed on.
    const events: string[] = [];
    const stored: StoredRegistry = {
      rowsOf: () => Promise.resolve(new Map()),
      linkedTo: () => Promise.resolve(new Map()),
      companiesOf: async function* () {
        events.push('stage read');
        // One the extract holds, one it no longer holds.
        yield await Promise.resolve(['0403170701', '0999999916']);
      },
    };
    const files = await openRegistryFiles(FULL);
    try {
      for await (const item of (await readKboFull(files, { stored })).items)
        events.push(item.kind === 'unit' ? `unit ${item.unit.companyNumber}` : item.kind);
    } finally {
      await files.close();
    }
    // A first import reads an empty stage, not the companies it has written meanwhile.
    expect(events[0]).toBe('stage read');
    expect(events.filter((e) => e === 'stage read')).toHaveLength(1);
    expect(events.at(-1)).toBe('unit 0999999916');
    // Held by the extract: handed on once, not stopped.
    expect(events.filter((e) => e.replace(/\./g, '') === 'unit 0403170701')).toHaveLength(1);
  });
  it('leaves nothing on disk when the stage cannot be read', async () => {
    const runs = await mkdtemp(join(scratch, 'runs-'));
    const stored: StoredRegistry = {
      rowsOf: () => Promise.resolve(new Map()),
      linkedTo: () => Promise.resolve(new Map()),
      // eslint-disable-next-line require-yield
      companiesOf: async function* () {
        throw new Error('stage unavailable');
      },
    };
    const files = await openRegistryFiles(FULL);
    try {
      const items = (await readKboFull(files, { stored, runs: { dir: runs, runSize: 2 } })).items;
      await expect(gathered(items)).rejects.toThrow('stage unavailable');
    } finally {
      await files.close();
    }
    expect(await readdir(runs)).toEqual([]);
  });
});

describe('a KBO natural person whose name the extract does not give', () => {
  const rows = (type: string) => ({
    enterprise: ['0712.345.630', 'AC', '000', type, type === '1' ? '' : '610', '', '02-01-2021'],
    establishments: [['2.000.123.469', '01-04-2019', '0712.345.630']],
    // A commercial name of its establishment, but no name (001) of its own.
    denominations: [['2.000.123.469', '2', '003', 'Frituur Jan']],
    addresses: [],
    contacts: [],
    activities: [],
  });
  const source = { file: 'enterprise.csv', line: 6 };

  it('is withheld: skipped with its company, so that a stored one is erased (§11.5.6)', () => {
    expect(kboUnit(rows('1'), { source })).toEqual({
      kind: 'skipped',
      reason: 'name withheld',
      source,
      company: { country: 'BE', companyNumber: '0712345630' },
    });
  });

  it('is still a rejection for a legal person', () => {
    expect(kboUnit(rows('2'), { source })).toEqual({
      kind: 'rejected',
      source,
      reason: 'enterprise 0712.345.630 has no name (denomination 001)',
    });
  });
});
