/**
 * (ext) What a key dropped under a registry's prefix of the import bucket is (contract §11.5.11,
 * lib/import/registry-engine.ts): a KBO ZIP, a SIRENE units or establishments file and the month that
 * pairs them, or a drop refused with its reason.
 */
import { establishmentsOf, monthOf, registryDropOf } from '../../lib/import/registry-engine';

describe('registryDropOf', () => {
  it('takes a full or update ZIP under kbo/, and refuses anything else there', () => {
    expect(registryDropOf('kbo/KboOpenData_0140_2025_10_05_Full.zip')).toEqual({
      kind: 'kbo',
      key: 'kbo/KboOpenData_0140_2025_10_05_Full.zip',
    });
    expect(registryDropOf('kbo/2025-10/KboOpenData_0140_2025_10_05_FULL.ZIP')).toMatchObject({
      kind: 'kbo',
    });
    // An update applies to the rows kept with the stored companies, as the command applies it.
    expect(registryDropOf('kbo/KboOpenData_0147_2025_10_12_Update.zip')).toEqual({
      kind: 'kbo',
      key: 'kbo/KboOpenData_0147_2025_10_12_Update.zip',
    });
    expect(registryDropOf('kbo/enterprise.csv')).toEqual({
      kind: 'refused',
      key: 'kbo/enterprise.csv',
      reason: 'enterprise.csv is not a ZIP: drop the KBO extract as published (KboOpenData_…_Full.zip)',
    });
  });

  it('tells a SIRENE units file, with its folder and month, from an establishments file', () => {
    expect(registryDropOf('sirene/StockUniteLegale_utf8_2025-05.zip')).toEqual({
      kind: 'sirene-units',
      key: 'sirene/StockUniteLegale_utf8_2025-05.zip',
      folder: 'sirene/',
      month: '2025-05',
    });
    expect(registryDropOf('sirene/2025_05/stockunitelegale_utf8.csv')).toMatchObject({
      kind: 'sirene-units',
      folder: 'sirene/2025_05/',
      month: '2025-05',
    });
    expect(registryDropOf('sirene/StockUniteLegale_utf8.zip')).toMatchObject({ month: null });
    expect(registryDropOf('sirene/StockEtablissement_utf8_2025-05.zip')).toEqual({
      kind: 'sirene-establishments',
      key: 'sirene/StockEtablissement_utf8_2025-05.zip',
    });
    expect(registryDropOf('sirene/readme.txt')).toMatchObject({ kind: 'refused' });
  });

  it('leaves keys under no registry prefix to the JSON Lines import', () => {
    expect(registryDropOf('incoming/2026-11-21/companies.jsonl.gz')).toBeNull();
    expect(registryDropOf('kbofiles/x.zip')).toBeNull();
  });
});

describe('monthOf', () => {
  it.each([
    ['StockUniteLegale_utf8_2025-05.zip', '2025-05'],
    ['StockUniteLegale_utf8_2025_12.csv', '2025-12'],
    ['StockUniteLegale_utf8_202501.zip', '2025-01'],
    ['2025-05/StockUniteLegale_utf8.zip', '2025-05'],
    ['StockUniteLegale_utf8.zip', null],
    // Not a month: a 13th month, a date's digits run on, a longer number.
    ['StockUniteLegale_2025-13.zip', null],
    ['StockUniteLegale_20250501.zip', null],
    ['StockUniteLegale_1202505.zip', null],
  ])('%s names %s', (path, month) => {
    expect(monthOf(path)).toBe(month);
  });
});

describe('establishmentsOf', () => {
  const keys = [
    'sirene/StockEtablissement_utf8_2025-04.zip',
    'sirene/StockEtablissement_utf8_2025-05.zip',
    'sirene/StockUniteLegale_utf8_2025-05.zip',
    'sirene/old/StockEtablissement_utf8_2025-05.zip',
    'sirene/2025-06/StockEtablissement_utf8.zip',
  ];

  it('finds the establishments file of the same month in the same folder only', () => {
    expect(establishmentsOf(keys, { folder: 'sirene/', month: '2025-05' })).toEqual([
      'sirene/StockEtablissement_utf8_2025-05.zip',
    ]);
    expect(establishmentsOf(keys, { folder: 'sirene/2025-06/', month: '2025-06' })).toEqual([
      'sirene/2025-06/StockEtablissement_utf8.zip',
    ]);
  });

  it('pairs nothing with a units file that names no month', () => {
    expect(establishmentsOf(keys, { folder: 'sirene/', month: null })).toEqual([]);
  });
});
