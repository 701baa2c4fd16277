/**
 * The SIRENE stock converter (contract §11.3, §11.5) over the sample pair in
 * test/fixtures/registries/sirene: every mapped field for each awkward case, with and without the
 * establishments file, with and without `--active-only`.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRegistryFiles } from '../../lib/import/sources/files';
import { sireneItems, type SireneOptions } from '../../lib/import/sources/sirene';
import { REGISTRY_FIELDS, type RegistryItem } from '../../lib/import/sources/unit';
import { gathered, rejected, unitOf, zipOf } from '../support/registry-items';

const UNITS = join(__dirname, '../fixtures/registries/sirene/StockUniteLegale_utf8.csv');
const ESTABLISHMENTS = join(__dirname, '../fixtures/registries/sirene/StockEtablissement_utf8.csv');

async function convert(units: string, establishments?: string, options: SireneOptions = {}) {
  const unitFiles = await openRegistryFiles(units);
  const establishmentFiles = establishments ? await openRegistryFiles(establishments) : undefined;
  return gathered(sireneItems(unitFiles, establishmentFiles, options));
}

describe('a SIRENE stock pair', () => {
  let items: RegistryItem[];
  beforeAll(async () => {
    items = await convert(UNITS, ESTABLISHMENTS);
  });

  it('gives one item per unit row, its line counted past the byte-order mark and CRLF line ends', () => {
    const lines = items.map((i) => (i.kind === 'unit' ? i.unit.source : i.source).line);
    expect(lines).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('maps a company with several establishments from its head office: address, place, shop signs, NAF rév. 2 as NACE', () => {
    const unit = unitOf(items, '552100554');
    expect(unit.country).toBe('FR');
    // Every field a registry may own but the website, which SIRENE does not publish.
    expect([...unit.owns].sort()).toEqual(REGISTRY_FIELDS.filter((field) => field !== 'website').sort());
    expect(unit.fields).toEqual({
      name: 'LES ATELIERS "DU NORD", PARIS',
      otherNames: ['ADN', 'ATELIERS DU NORD', 'ADN PARIS', 'ADN "CONSEIL"'],
      legalForm: '5710',
      foundedOn: '1955-01-01',
      stoppedOn: null,
      activities: ['6201'],
      vatNumber: 'FR96552100554',
      address: {
        street: 'BD HAUSSMANN',
        number: '12B',
        box: null,
        postalCode: '75009',
        place: 'PARIS',
      },
      place: 'PARIS',
    });
    expect(unit.dropped).toBe(0);
  });

  it('names a ceased sole proprietor by usual first name and usage name, stopped on dateDebut', () => {
    expect(unitOf(items, '300000007').fields).toMatchObject({
      name: 'MARIE MARTIN',
      legalForm: '1000',
      stoppedOn: '2019-06-30',
      activities: ['4322'],
      vatNumber: 'FR83300000007',
      place: 'BORDEAUX',
    });
  });

  it('falls back to the first name and birth name, and to NAF 2025 when there is no NAF rév. 2 code', () => {
    expect(unitOf(items, '444444442').fields).toMatchObject({ name: 'LUC BERNARD', activities: ['3212'] });
  });

  it('keeps only the municipality of a partially diffusible unit and never outputs [ND]', () => {
    const unit = unitOf(items, '400000006');
    expect(unit.fields.address).toEqual({
      street: null,
      number: null,
      box: null,
      postalCode: null,
      place: 'NANTES',
    });
    expect(unit.fields.otherNames).toEqual([]);
    expect(JSON.stringify(items)).not.toContain('[ND]');
  });

  it('skips a unit whose name is withheld, naming the company for a stored one', () => {
    expect(items.find((i) => i.kind === 'skipped')).toEqual({
      kind: 'skipped',
      reason: 'name withheld',
      source: { file: 'StockUniteLegale_utf8.csv', line: 9 },
      company: { country: 'FR', companyNumber: '800123457' },
    });
  });

  it('maps a head office abroad to its country code and foreign municipality', () => {
    expect(unitOf(items, '333333334').fields.address).toMatchObject({ place: 'BRUXELLES', country: 'BE' });
  });

  it('counts an activity of an older nomenclature as dropped, and a unit without a head office has no address', () => {
    const unit = unitOf(items, '123456782');
    expect(unit.fields.activities).toEqual([]);
    expect(unit.fields.address).toBeNull();
    expect(unit.dropped).toBe(1);
  });

  it('rejects an invalid siren and a unit without a name, with the line', () => {
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([
      rejected('StockUniteLegale_utf8.csv', 3, 'unit 200000008 has no name'),
      rejected('StockUniteLegale_utf8.csv', 11, 'siren 912345676 is not a valid FR company number'),
    ]);
  });

  it('without the establishments file owns no address or place', async () => {
    const unit = unitOf(await convert(UNITS), '552100554');
    expect(unit.owns).not.toContain('address');
    expect(unit.fields).not.toHaveProperty('address');
    expect(unit.fields.otherNames).toEqual(['ADN', 'ATELIERS DU NORD']);
  });

  it('with --active-only skips ceased units, handing on the unit for a stored company', async () => {
    const skipped = (await convert(UNITS, ESTABLISHMENTS, { activeOnly: true })).filter(
      (i) => i.kind === 'skipped',
    );
    expect(skipped.map((i) => i.kind === 'skipped' && [i.reason, i.company?.companyNumber])).toEqual([
      ['ceased', '300000007'],
      ['name withheld', '800123457'],
    ]);
    const ceased = skipped[0];
    expect(ceased?.kind === 'skipped' && ceased.unit?.fields.stoppedOn).toBe('2019-06-30');
  });
});

describe('a SIRENE stock pair out of siren order (§11.5.10)', () => {
  const UNSORTED = join(__dirname, '../fixtures/registries/sirene-unsorted');
  const withoutLines = (items: RegistryItem[]) =>
    items.map((item) =>
      item.kind === 'unit' ? { ...item, unit: { ...item.unit, source: null } } : { ...item, source: null },
    );

  it('is joined through sorted runs on disk: the same items as the sorted pair, in siren order, named by their own lines', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'sirene-runs-'));
    const items = await convert(
      join(UNSORTED, 'StockUniteLegale_utf8.csv'),
      join(UNSORTED, 'StockEtablissement_utf8.csv'),
      // Runs of two rows: the copies go through the disk.
      { runs: { runSize: 2, dir: folder } },
    );
    expect(withoutLines(items)).toEqual(withoutLines(await convert(UNITS, ESTABLISHMENTS)));
    // 552100554 is on line 5 of the unsorted units file (line 8 of the sorted one).
    expect(unitOf(items, '552100554').source).toEqual({ file: 'StockUniteLegale_utf8.csv', line: 5 });
    // The copies are gone with the conversion.
    expect(await readdir(folder)).toEqual([]);
    await rm(folder, { recursive: true });
  });

  it('sorts a units file out of order even without the establishments', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'sirene-test-'));
    const path = join(folder, 'StockUniteLegale_utf8.csv');
    await writeFile(path, 'siren,denominationUniteLegale\n912345675,B\n"552100554",A\n');
    const items = await convert(path);
    await rm(folder, { recursive: true });
    expect(items.map((i) => i.kind === 'unit' && [i.unit.companyNumber, i.unit.source.line])).toEqual([
      ['552100554', 3],
      ['912345675', 2],
    ]);
  });
});

describe('a SIRENE stock pair as published, zipped', () => {
  it('gives the same items from the ZIPs as from the CSV files', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'sirene-zip-'));
    const units = await zipOf(join(folder, 'StockUniteLegale_utf8.zip'), [UNITS]);
    const establishments = await zipOf(join(folder, 'StockEtablissement_utf8.zip'), [ESTABLISHMENTS]);
    expect(await convert(units, establishments)).toEqual(await convert(UNITS, ESTABLISHMENTS));
    await rm(folder, { recursive: true });
  });
});
