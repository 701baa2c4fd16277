/**
 * (ext) A block of a registry's items as a registry digest (lib/import/registry-digest.ts) holds it
 * until its stored digest is read: each entry as its part of the digest, units unmapped.
 */
import { createHash } from 'node:crypto';
import type { CompanyRef } from '../companies/identifiers';
import { unitOf, type DigestEntry } from './registry-fingerprint';
import {
  NAME_WITHHELD,
  type RawMapping,
  type RawUnit,
  type ReadItem,
  type RegistryItem,
} from './sources/unit';

/**
 * The rules a registry unit is judged by (lib/import/registry-import.ts `readUnit`), in its fingerprint
 * and its block's digest: bump when they change, so every unit is merged again.
 */
export const UNIT_RULES_VERSION = 'registry-unit-1';

/**
 * Digits dropped from a company number to name its block: about 30 companies of a registry share a
 * block (KBO numbers end in two check digits, SIREN numbers in one).
 */
const BLOCK_DIGITS: Record<string, number> = { BE: 4, FR: 3 };

/** The block of a company's (canonical) number. */
export function digestBlock(ref: CompanyRef): string {
  return blockOf(ref.country, ref.companyNumber);
}

/** The block of a company number of `country` in any spelling (its digits count). */
export function blockOf(country: string, companyNumber: string): string {
  // Most numbers come as digits alone (SIRENE's): then nothing is copied but the block's digits.
  const digits = ALL_DIGITS.test(companyNumber) ? companyNumber : companyNumber.replace(/\D/g, '');
  return digits.slice(0, Math.max(0, digits.length - (BLOCK_DIGITS[country] ?? 3)));
}

const ALL_DIGITS = /^\d*$/;

/** Whether `company` falls in the block (one with a first company). */
export const sameBlock = (block: Block, company: { country: string; companyNumber: string }) =>
  block.ref!.country === company.country && blockOf(company.country, company.companyNumber) === block.key;

export interface Block {
  /** Its number block (`blockOf`; '' for items before any company). */
  key: string;
  /** Its first company (none: items before any company, never a digest). */
  ref: CompanyRef | undefined;
  /**
   * Each entry's part of the digest (JSON text, never a line break; '' when it has none), in file
   * order: a raw unit's text as read (`RawUnit`), a mapped unit's fingerprint, what the import reports
   * of another item — hashed when the block is judged, one hash a block, not one a unit.
   * A unit is held as its part alone: a raw one is mapped, a mapped one rebuilt (`unitOf`), only when
   * the block must be read afresh.
   */
  parts: string[];
  /** Each entry's file and line (a unit mapped or rebuilt from its part takes them back). */
  files: string[];
  lines: number[];
  /** The entries held whole (items the converter made without mapping that are no unit), by index. */
  whole: Map<number, RegistryItem>;
  /** The mapped units held as their fingerprint (`unitOf`), by index; every other entry is raw. */
  fingerprinted: Set<number>;
  /** What its raw units are mapped with (one mapping a stream). */
  mapping: RawMapping | undefined;
  /** Entries that may be units (raw ones are known only once mapped). */
  units: number;
  eligible: boolean;
}

/**
 * A block's digest: the rules' version, the raw units' mapping version, `--active-only`, and its
 * entries' parts, one a line.
 */
export function blockDigest(block: Block, activeOnly: boolean): string {
  const hash = createHash('sha256').update(
    `${UNIT_RULES_VERSION}\n${block.mapping?.version ?? ''}\n${activeOnly ? 'active-only' : ''}\n`,
  );
  // Part by part, the same bytes as the parts joined by line breaks: no copy of the whole block's text.
  const { parts } = block;
  for (let at = 0; at < parts.length; at++) hash.update(at === 0 ? parts[at]! : `\n${parts[at]!}`);
  return hash.digest('base64url');
}
/** A block of items, from its first company. */
export const newBlock = (key: string, ref: CompanyRef | undefined, eligible: boolean): Block => ({
  key,
  ref,
  parts: [],
  files: [],
  lines: [],
  whole: new Map(),
  fingerprinted: new Set(),
  mapping: undefined,
  units: 0,
  eligible,
});

/**
 * Whether an item is numbered in the run: a unit, or a withheld name with its company (read as a unit,
 * lib/import/registry-import.ts: it erases its company if one is stored).
 */
export const numbered = (item: RegistryItem) =>
  item.kind === 'unit' ||
  (item.kind === 'skipped' && item.reason === NAME_WITHHELD && item.company !== undefined);

/** A block's entry as an item: held whole, or its unit mapped from its raw text or rebuilt from its fingerprint. */
export function blockEntry(block: Block, at: number): RegistryItem {
  const whole = block.whole.get(at);
  if (whole) return whole;
  const source = { file: block.files[at]!, line: block.lines[at]! };
  if (block.fingerprinted.has(at)) return unitOf(block.parts[at]!, source);
  return block.mapping!.map(block.parts[at]!, source);
}

/**
 * A withheld name as its block's digest item keeps it (lib/import/registry-digest.ts), at the entry's
 * own file and line, without mapping its unit again: with its company, to be looked up; without, when
 * the digest vouches that it is not stored (only counted as skipped).
 */
export function withheldEntry(block: Block, at: number, company?: [string, string]): RegistryItem {
  return {
    kind: 'skipped',
    reason: NAME_WITHHELD,
    source: { file: block.files[at]!, line: block.lines[at]! },
    ...(company ? { company: { country: company[0] as 'BE' | 'FR', companyNumber: company[1] } } : {}),
  };
}

/** Adds an item read to its block: a raw unit as its text, another item as `digestEntry` saw it (`seen`). */
export function addEntry(block: Block, item: ReadItem, seen: DigestEntry | undefined): void {
  const at = block.parts.length;
  const source = item.kind === 'unit' ? item.unit.source : item.source;
  block.files.push(source.file);
  block.lines.push(source.line);
  if (!seen) {
    const raw = item as RawUnit;
    block.parts.push(raw.text);
    block.mapping ??= raw.mapping;
    // One block's raw units have one mapping version in its digest.
    if (block.mapping !== raw.mapping) block.eligible = false;
    block.units++;
    return;
  }
  block.parts.push(seen.fingerprint ?? '');
  if (seen.unit) {
    block.units++;
    block.fingerprinted.add(at);
  } else block.whole.set(at, item as RegistryItem);
  if (seen.fingerprint === null) block.eligible = false;
}

/** An item to import or report, in file order, with its sequence number (units and withheld names). */
export interface Walked {
  item: RegistryItem;
  seq: number;
}

/** A round of blocks judged: the items to import or report, and the units their digest found unchanged. */
export interface CheckedRound {
  items: Walked[];
  unchanged: number;
}

/** A digest to write once its block's units are through (`lib/import/registry-digest.ts `batchDone``). */
export interface Pending {
  ref: CompanyRef;
  first: number;
  last: number;
  digest: string;
  /** The item's token when it was read (absent: there was no item). */
  token: string | undefined;
  units: number;
  /** The block's entries that are no unit (reported afresh every run when the digest matches), by index. */
  others: number[];
  /** Of those, the withheld names: their company, by index (reported again without mapping their unit). */
  withheld: Record<string, [string, string]>;
  /** Fields its units' judging dropped (the skipped line counts them again when the digest matches). */
  dropped: number;
  rejected: boolean;
}
