/**
 * (ext) What a registry digest (lib/import/registry-digest.ts) makes of each item a converter yields: a
 * fingerprint, one line of its block's digest, which for a unit is also all that the block holds of it
 * until the block is judged.
 */
import { NAME_WITHHELD, type RegistryItem, type RegistryUnit, type UnitSource } from './sources/unit';

/**
 * What an item read is to its block's digest: a unit by a fingerprint of the unit as the converter gave
 * it (cheaper than judging it; the same unit under the same rules judges the same), a rejected or
 * skipped item by what the import reports of it; null when the block it is in can have no digest (an
 * item whose effect depends on what is stored).
 *
 * A unit's fingerprint is also what the block holds of it until the block is judged: one flat string
 * instead of the unit's objects (held through a round trip, they would outlive the garbage collector's
 * young generation), parsed back (`unitOf`) only when the block must be read afresh.
 */
export function digestEntry(item: RegistryItem, activeOnly: boolean): DigestEntry {
  if (item.kind === 'unit') {
    const { unit } = item;
    if (digestRole(item, activeOnly) === 'stored') return { company: unit, fingerprint: null };
    // The unit's own text (the rules' version is in its block's digest once): the block's digest
    // hashes its units' texts at once, one hash a block, not a unit.
    const fingerprint = JSON.stringify([
      unit.country,
      unit.companyNumber,
      unit.owns,
      unit.fields,
      unit.dropped,
      unit.registryRows ?? null,
      unit.addressForms ?? null,
      unit.links ?? null,
    ]);
    return { company: unit, fingerprint, unit: true };
  }
  if (item.kind === 'rejected') return { fingerprint: JSON.stringify(['rejected', item.reason]) };
  if (digestRole(item, activeOnly) === 'stored') return { company: item.company, fingerprint: null };
  const company = item.company ? `${item.company.country}#${item.company.companyNumber}` : '';
  // A withheld name erases its company if one is stored (§11.5.6): its block's digest is written once
  // that company was found not stored, and vouches for it until a company of the block is created
  // (lib/import/registry-digest.ts) — a block of 30 is not read for one withheld name.
  if (item.reason === NAME_WITHHELD)
    return { company: item.company, fingerprint: JSON.stringify(['withheld', company]) };
  return { company: item.company, fingerprint: JSON.stringify(['skipped', item.reason, company]) };
}

/**
 * What an item is to its block's digest: a unit the digest vouches for (`unit`), an item the import
 * reports afresh every run (`reported`: rejected, skipped, a withheld name), or one whose effect depends
 * on what is stored (`stored`: its block can have no digest).
 */
export function digestRole(item: RegistryItem, activeOnly: boolean): 'unit' | 'reported' | 'stored' {
  // A ceased unit under --active-only is left out or imported as its company is stored or not.
  if (item.kind === 'unit') return activeOnly && item.unit.fields.stoppedOn ? 'stored' : 'unit';
  // A skipped unit that a stored company should still get depends on what is stored.
  return item.kind === 'skipped' && item.unit ? 'stored' : 'reported';
}

/** The unit a fingerprint of `digestEntry` was made from, at `source`. */
export function unitOf(fingerprint: string, source: UnitSource): RegistryItem {
  const [country, companyNumber, owns, fields, dropped, rows, forms, links] = JSON.parse(fingerprint) as [
    RegistryUnit['country'],
    string,
    RegistryUnit['owns'],
    RegistryUnit['fields'],
    number,
    unknown,
    RegistryUnit['addressForms'] | null,
    string[] | null,
  ];
  const unit: RegistryUnit = { source, country, companyNumber, owns, fields, dropped };
  if (rows !== null) unit.registryRows = rows;
  if (forms !== null) unit.addressForms = forms;
  if (links !== null) unit.links = links;
  return { kind: 'unit', unit };
}

/**
 * What a read item is to the digest: its company (the converter's spelling of the number; none for a
 * rejected item), its fingerprint (null: its block can have no digest), and whether it is a unit whose
 * fingerprint stands for it (`unitOf`).
 */
export interface DigestEntry {
  company?: { country: string; companyNumber: string } | undefined;
  fingerprint: string | null;
  unit?: true;
}
