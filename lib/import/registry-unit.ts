/**
 * (ext) A registry unit judged by the record's rules (contract §11.5.5), for the registry import
 * (lib/import/registry-import.ts): its owned fields validated, the ones the rules refuse dropped, and
 * its fingerprint; or the reason it is rejected.
 */
import { createHash } from 'node:crypto';
import type { CompanyRef } from '../companies/identifiers';
import {
  otherNamesOf,
  parseCompanyRecord,
  type CompanyRecord,
  type CompanyRecordInput,
} from '../companies/record';
import { UNIT_RULES_VERSION } from './registry-digest-block';
import { REGISTRY_FIELDS, type RegistryField, type RegistryUnit, type UnitSource } from './sources/unit';

/** A unit as read: validated, with its fingerprint, or rejected. */
export interface ReadUnit {
  seq: number;
  source: UnitSource;
  ref: CompanyRef;
  /** The owned fields, canonical (absent ones empty). */
  owned: Partial<CompanyRecord>;
  owns: readonly RegistryField[];
  fingerprint: string;
  registryRows?: string;
  /** The address in each language the registry gives it, JSON text (`addressForms`). */
  addressForms?: string;
  /** The registry's sub-entities that belong to it (`RegistryUnit.links`). */
  links?: string[];
  /** (ext) Its registry withholds its name: a stored company of this number is erased (§11.5.6). */
  erase?: boolean;
}

export type Judged =
  { ok: true; unit: ReadUnit; dropped: number } | { ok: false; reason: string; dropped: number };

/**
 * A unit's owned fields through the record's rules: the fields the rules refuse are dropped (left
 * empty) one by one until the record passes, but the number and the name, which reject the unit.
 */
export function readUnit(unit: RegistryUnit, seq: number): Judged {
  let dropped = unit.dropped;
  const owns = unit.owns.filter((field) => (REGISTRY_FIELDS as readonly string[]).includes(field));
  const input: Record<string, unknown> = { country: unit.country, companyNumber: unit.companyNumber };
  for (const field of owns) input[field] = unit.fields[field] ?? null;
  // A name the unit does not have is missing (`name is required`), whatever the converter wrote.
  if (input['name'] === null) delete input['name'];
  if (typeof input['name'] === 'string' && Array.isArray(input['otherNames']))
    input['otherNames'] = otherNamesOf(input['name'], input['otherNames'] as string[]);
  // A unit that does not own its name (an update of other tables) names nobody new: any name passes here.
  if (!owns.includes('name')) input['name'] = '-';
  else if (!('name' in input)) return { ok: false, reason: 'name is required', dropped };
  for (;;) {
    const parsed = parseCompanyRecord(input as CompanyRecordInput);
    if (parsed.ok) {
      const owned: Partial<CompanyRecord> = {};
      for (const field of owns) (owned as Record<string, unknown>)[field] = parsed.record[field];
      const rows = unit.registryRows === undefined ? undefined : JSON.stringify(unit.registryRows);
      const forms = addressForms(unit);
      const ref = { country: parsed.record.country, companyNumber: parsed.record.companyNumber };
      const fingerprint = createHash('sha256')
        .update(JSON.stringify([UNIT_RULES_VERSION, ref, owns, owned, rows ?? null, forms ?? null]))
        .digest('base64url');
      return {
        ok: true,
        dropped,
        unit: {
          seq,
          source: unit.source,
          ref,
          owned,
          owns,
          fingerprint,
          ...(rows === undefined ? {} : { registryRows: rows }),
          ...(forms === undefined ? {} : { addressForms: forms }),
          ...(unit.links === undefined ? {} : { links: unit.links }),
        },
      };
    }
    // The field the rules refuse: an item of a list goes alone, another field is left empty.
    const [, field, item] = /^([A-Za-z]+)(?:\[(\d+)\])?/.exec(parsed.reason) ?? [];
    const value = field === undefined ? undefined : input[field];
    if (
      field === undefined ||
      !DROPPABLE.has(field) ||
      !owns.includes(field as RegistryField) ||
      value === null
    )
      return { ok: false, reason: parsed.reason, dropped };
    input[field] =
      item !== undefined && Array.isArray(value) ? value.filter((_, i) => i !== Number(item)) : null;
    dropped++;
  }
}

/**
 * The unit's address forms as JSON text, each with the record's parts (trimmed, empty as null), when it
 * gives any; a form without a part is none.
 */
function addressForms(unit: RegistryUnit): string | undefined {
  const forms = (unit.addressForms ?? [])
    .map((form) => Object.fromEntries(ADDRESS_PARTS.map((part) => [part, form[part]?.trim() || null])))
    .filter((form) => Object.values(form).some((part) => part !== null));
  return forms.length === 0 ? undefined : JSON.stringify(forms);
}

const ADDRESS_PARTS = ['street', 'number', 'box', 'postalCode', 'place'] as const;

/** The owned fields that are dropped rather than reject their unit (§11.5.5: all but the name). */
const DROPPABLE = new Set<string>(REGISTRY_FIELDS.filter((field) => field !== 'name'));
