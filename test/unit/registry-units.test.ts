/**
 * (ext) A registry unit as the import reads it (contract §11.5.1, §11.5.5): its owned fields through the
 * record's rules, what rejects it and what is only dropped, its fingerprint, the merge over what is
 * stored; and how a registry's CSV header is recognised (§11.3).
 */
import { parseCompanyRecord } from '../../lib/companies/record';
import { companyItem, registryRowsText } from '../../lib/companies/store';
import { mergeUnit } from '../../lib/import/registry-import';
import { readUnit } from '../../lib/import/registry-unit';
import { registryFormatOfHeader } from '../../lib/import/sources';
import type { RegistryUnit } from '../../lib/import/sources/unit';
import { companyRecord, period } from '../support/records';

const unit = (fields: RegistryUnit['fields'], extra: Partial<RegistryUnit> = {}): RegistryUnit => ({
  source: { file: 'unites.csv', line: 2 },
  country: 'FR',
  companyNumber: '552100554',
  owns: ['name', 'otherNames', 'legalForm', 'foundedOn', 'stoppedOn', 'activities', 'vatNumber'],
  fields: { name: 'Acme SAS', ...fields },
  dropped: 0,
  ...extra,
});

const read = (u: RegistryUnit) => {
  const judged = readUnit(u, 1);
  if (!judged.ok) throw new Error(judged.reason);
  return judged;
};

describe('readUnit', () => {
  test('rejects only an invalid number or a missing name', () => {
    expect(readUnit(unit({}, { companyNumber: '552100555' }), 1)).toMatchObject({
      ok: false,
      reason: 'companyNumber 552100555 is not a valid FR company number (its format or check digits)',
    });
    expect(readUnit(unit({ name: undefined }), 1)).toMatchObject({ ok: false, reason: 'name is required' });
    expect(readUnit(unit({ name: '  ' }), 1)).toMatchObject({ ok: false, reason: 'name must not be empty' });
  });

  test('drops what the rules refuse, a list item alone, and counts it with what the converter dropped', () => {
    const judged = read(
      unit(
        { activities: ['6201', '62.01Z', '4711'], foundedOn: '2020-02-30', vatNumber: 'FR00552100554' },
        { dropped: 2 },
      ),
    );
    expect(judged.dropped).toBe(5);
    expect(judged.unit.owned).toMatchObject({
      activities: ['6201', '4711'],
      foundedOn: null,
      vatNumber: null,
    });
  });

  test('keeps other names as §6.5 says and cuts them at 20', () => {
    const names = ['ACME SAS', 'Acme', 'acme', ...Array.from({ length: 25 }, (_, i) => `Enseigne ${i}`)];
    const { owned } = read(unit({ otherNames: names })).unit;
    expect(owned.otherNames).toHaveLength(20);
    expect(owned.otherNames!.slice(0, 2)).toEqual(['Acme', 'Enseigne 0']);
  });

  test('the fingerprint follows the owned fields and rows, not how they were written', () => {
    const a = read(unit({ activities: ['62.01'] }, { registryRows: { r: 1 } })).unit.fingerprint;
    expect(read(unit({ activities: ['6201'] }, { registryRows: { r: 1 } })).unit.fingerprint).toBe(a);
    expect(read(unit({ activities: ['6201'] }, { registryRows: { r: 2 } })).unit.fingerprint).not.toBe(a);
    expect(read(unit({ activities: ['6202'] }, { registryRows: { r: 1 } })).unit.fingerprint).not.toBe(a);
  });
});

describe('mergeUnit', () => {
  const stored = () => {
    const parsed = parseCompanyRecord(
      companyRecord({
        country: 'FR',
        companyNumber: '552100554',
        vatNumber: null,
        name: 'Old SAS',
        website: 'https://acme.example',
        address: { street: 'Rue X', place: 'Lyon' },
        otherNames: ['Acme SAS', 'AC'],
        financials: [period(2023)],
        shareholders: [],
      }),
    );
    if (!parsed.ok) throw new Error(parsed.reason);
    return { record: parsed.record, state: { hash: 'h', changeId: 'c' } };
  };

  test('sets the owned fields (empty when absent) and keeps the others and the sections', () => {
    const merged = mergeUnit(stored(), read(unit({ otherNames: ['AC'] })).unit);
    expect(merged).toMatchObject({
      name: 'Acme SAS',
      otherNames: ['AC'],
      website: 'https://acme.example',
      address: { street: 'Rue X', place: 'Lyon' },
      legalForm: null,
      activities: [],
    });
    expect(merged.financials).toHaveLength(1);
    expect(merged.contacts).toHaveLength(1);
  });

  test('a name the unit sets leaves the kept other names without it', () => {
    const u = read(unit({ name: 'AC' }, { owns: ['name'] })).unit;
    expect(mergeUnit(stored(), u).otherNames).toEqual(['Acme SAS']);
  });

  test('a new company gets empty sections', () => {
    const merged = mergeUnit(null, read(unit({})).unit);
    expect([merged.financials, merged.shareholders, merged.contacts, merged.website]).toEqual([
      [],
      [],
      [],
      null,
    ]);
  });
});

describe('registryFormatOfHeader', () => {
  test.each([
    ['\uFEFF"EnterpriseNumber","Status","JuridicalSituation"', 'kbo'],
    ['"EntityNumber","Language","TypeOfDenomination","Denomination"', 'kbo'],
    ['"Id","StartDate","EnterpriseNumber"', 'kbo'],
    ['"Variable","Value"', 'kbo'],
    ['"Category","Code","Language","Description"', 'kbo'],
    ['siren,statutDiffusionUniteLegale,unitePurgeeUniteLegale', 'sirene'],
    ['siren,nic,siret,statutDiffusionEtablissement', 'sirene'],
    ['siret;siren', 'sirene'],
    ['{"country": "BE", "companyNumber": "0403170701", "name": "x,y"}', null],
    ['', null],
  ])('%s → %s', (line, format) => {
    expect(registryFormatOfHeader(line)).toBe(format);
  });
});

describe('registry rows in the company item', () => {
  const rows = JSON.stringify({
    enterprise: ['0200.044.781', 'AC', '000', '2', '610', '', '12-08-2004'],
    activities: Array.from({ length: 20 }, (_, i) => [
      '0200.044.781',
      '001',
      '2008',
      `7279${i % 10}`,
      'MAIN',
    ]),
  });
  const parsed = parseCompanyRecord(companyRecord({ country: 'BE', companyNumber: '0200044781' }));
  if (!parsed.ok) throw new Error(parsed.reason);
  const item = companyItem(parsed.record, {
    hash: 'h',
    changeId: 'c',
    registryRows: rows,
  });

  it('are kept deflated, far smaller than their text, and read back as the same text', () => {
    expect(item['registryRows']).toBeInstanceOf(Uint8Array);
    expect((item['registryRows'] as Uint8Array).length).toBeLessThan(rows.length / 3);
    expect(registryRowsText(item['registryRows'])).toBe(rows);
  });

  it('are read as they were once kept, as text; absent as null', () => {
    expect(registryRowsText(rows)).toBe(rows);
    expect(registryRowsText(undefined)).toBeNull();
  });
});
