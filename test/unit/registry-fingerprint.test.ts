/**
 * (ext) A registry unit's fingerprint (lib/import/registry-fingerprint.ts): until its block's digest is
 * read, a block holds each unit as its fingerprint alone, and a block read afresh gets its units back
 * from them — so the fingerprint must give back every part of the unit the import judges, for every
 * case the sample files hold.
 */
import { join } from 'node:path';
import { digestEntry, unitOf } from '../../lib/import/registry-fingerprint';
import { openRegistryFiles } from '../../lib/import/sources/files';
import { readKboFull } from '../../lib/import/sources/kbo';
import { sireneItems } from '../../lib/import/sources/sirene';
import type { RegistryItem, RegistryUnit } from '../../lib/import/sources/unit';
import { gathered } from '../support/registry-items';

const FIXTURES = join(__dirname, '../fixtures/registries');

const units = (items: RegistryItem[]): RegistryUnit[] =>
  items.flatMap((item) => (item.kind === 'unit' ? [item.unit] : []));

/** The unit as a block read afresh gets it back from its fingerprint, at its own source. */
function roundTrip(unit: RegistryUnit): RegistryItem {
  const { fingerprint } = digestEntry({ kind: 'unit', unit }, false);
  return unitOf(fingerprint!, unit.source);
}

describe('a registry unit held as its fingerprint', () => {
  it('comes back whole from a KBO full extract: fields, rows kept for updates, links to its establishments', async () => {
    const files = await openRegistryFiles(join(FIXTURES, 'kbo-full'));
    const read = units(await gathered((await readKboFull(files)).items));
    await files.close();

    expect(read.some((unit) => (unit.links ?? []).length > 0)).toBe(true);
    expect(read.every((unit) => unit.registryRows !== undefined)).toBe(true);
    for (const unit of read) expect(roundTrip(unit)).toEqual({ kind: 'unit', unit });
  });

  it('comes back whole from a SIRENE pair: the head office address, a partially diffusible unit, a ceased one', async () => {
    const read = units(
      await gathered(
        sireneItems(
          await openRegistryFiles(join(FIXTURES, 'sirene/StockUniteLegale_utf8.csv')),
          await openRegistryFiles(join(FIXTURES, 'sirene/StockEtablissement_utf8.csv')),
        ),
      ),
    );

    expect(read.some((unit) => unit.fields.address)).toBe(true);
    expect(read.some((unit) => unit.fields.stoppedOn)).toBe(true);
    for (const unit of read) expect(roundTrip(unit)).toEqual({ kind: 'unit', unit });
  });

  it('differs when anything the import keeps of the unit differs, its source aside', () => {
    const unit: RegistryUnit = {
      source: { file: 'enterprise.csv', line: 2 },
      country: 'BE',
      companyNumber: '0403.170.701',
      owns: ['name', 'address'],
      fields: { name: 'Acme NV', address: null },
      dropped: 0,
      registryRows: { enterprise: ['0403.170.701'] },
      addressForms: [{ street: 'Kerkstraat', place: 'Gent' }],
      links: ['2000000001'],
    };
    const fingerprint = (u: RegistryUnit) => digestEntry({ kind: 'unit', unit: u }, false).fingerprint;
    const same = fingerprint({ ...unit, source: { file: 'enterprise.csv', line: 90 } });
    const others = [
      { ...unit, fields: { ...unit.fields, name: 'Acme BV' } },
      { ...unit, dropped: 1 },
      { ...unit, registryRows: { enterprise: ['0403.170.701', 'AC'] } },
      { ...unit, addressForms: [{ street: 'Rue de l’Église', place: 'Gand' }] },
      { ...unit, links: ['2000000002'] },
      { ...unit, owns: ['name'] as RegistryUnit['owns'] },
    ].map(fingerprint);

    expect(same).toBe(fingerprint(unit));
    expect(new Set([fingerprint(unit), ...others]).size).toBe(others.length + 1);
  });
});
