/**
 * Belgian annual accounts as the National Bank's Central Balance Sheet Office gives them (contract
 * §11.4, `registries.md` §3.2): a folder or ZIP holding, per filing, `<ReferenceNumber>.reference.json`
 * (the reference object) and `<ReferenceNumber>.accountingData.json` (`{"Rubrics": [{"Code", "Period",
 * "Value"}]}`), or one of those two files (its pair beside it). Pure: files in, filings out.
 *
 * - The period: `ExerciseDates` `startDate`/`endDate` in either capitalisation (`StartDate`), its
 *   `dateReceived` the `DepositDate`, its figures the rubrics of `Period` `N` through the mapping
 *   (lib/filings/mapping.ts). Rubrics of other periods (the previous year's figures, `NM1`) are not
 *   this period's and are left out. Values are strings with a decimal point.
 * - Its rank: `DepositDate`, then `ReferenceNumber` (§11.5.9).
 * - An invalid `EnterpriseNumber` rejects the filing (`FILE line 1: …`); a filing without its dates or
 *   its accounting data cannot be a period and is skipped (counted).
 */
import { basename, dirname } from 'node:path';
import { parseCompanyNumber } from '../companies/identifiers';
import { isCalendarDate } from '../http/schemas';
import { openFilingFiles, type FilingFiles } from './cbso-files';
import { healthOfFigures } from './health';
import { figuresOf } from './figures';
import { RUBRIC_CODES, type Rubrics } from './mapping';
import type { Filing, FilingItem } from './filing';

const REFERENCE = '.reference.json';
const ACCOUNTING = '.accountingData.json';
const REFERENCE_LOWER = REFERENCE.toLowerCase();
const ACCOUNTING_LOWER = ACCOUNTING.toLowerCase();

export const UNREADABLE = 'unreadable filing';
export const NO_ACCOUNTING_DATA = 'no accounting data';

/** The filings under `path`: a folder, a ZIP, or one filing's reference or accounting file. */
export async function* cbsoFilings(path: string): AsyncGenerator<FilingItem> {
  const single = [REFERENCE, ACCOUNTING].find((suffix) => path.toLowerCase().endsWith(suffix.toLowerCase()));
  const files = await openFilingFiles(single ? dirname(path) : path);
  try {
    const only = single ? basename(path).slice(0, -single.length) : undefined;
    const pairs = pairsOf(files.names).filter((pair) => only === undefined || pair.ref === only);
    // In the order of where a filing's later file is (a ZIP is then read front to back), then by name.
    const at = (pair: Pair) =>
      pair.accounting === undefined
        ? files.position(pair.reference)
        : Math.max(files.position(pair.reference), files.position(pair.accounting));
    const ordered = pairs
      .map((pair) => ({ pair, at: at(pair) }))
      .sort((a, b) => a.at - b.at || (a.pair.ref < b.pair.ref ? -1 : a.pair.ref > b.pair.ref ? 1 : 0));
    // One after the other: a filing's files are small (lib/filings/cbso-files.ts). A folder's are read
    // at once, so a filing costs no promise there; a ZIP's are awaited.
    for (const { pair } of ordered) {
      let reference = textOf(files, pair.reference);
      if (reference instanceof Promise) reference = await reference;
      let accounting = pair.accounting === undefined ? undefined : textOf(files, pair.accounting);
      if (accounting instanceof Promise) accounting = await accounting;
      yield filingOf(`${pair.ref}${REFERENCE}`, pair.ref, jsonOf(reference), accounting);
    }
  } finally {
    files.close();
  }
}

/** A filing's files as they are spelt in the folder or ZIP; `ref` is its reference file's name less the suffix. */
interface Pair {
  ref: string;
  reference: string;
  accounting: string | undefined;
}

/**
 * Each reference file with its accounting file: the one of the same name but the suffix, the name's
 * case aside (preferring the same case). One pass over the names, a name lower-cased only when its
 * suffix is not spelt as the format spells it, or when a reference has no accounting file of its case.
 */
function pairsOf(names: readonly string[]): Pair[] {
  const references: Array<[ref: string, name: string]> = [];
  const accounting = new Map<string, string>();
  for (const name of names) {
    if (name.endsWith(REFERENCE)) references.push([name.slice(0, -REFERENCE.length), name]);
    else if (name.endsWith(ACCOUNTING)) accounting.set(name.slice(0, -ACCOUNTING.length), name);
    else {
      const lower = name.toLowerCase();
      if (lower.endsWith(REFERENCE_LOWER)) references.push([name.slice(0, -REFERENCE.length), name]);
      else if (lower.endsWith(ACCOUNTING_LOWER)) {
        const stem = name.slice(0, -ACCOUNTING.length);
        if (!accounting.has(stem)) accounting.set(stem, name);
      }
    }
  }
  let byLowerCase: Map<string, string> | undefined;
  return references.map(([ref, reference]) => {
    let pair = accounting.get(ref);
    if (pair === undefined) {
      byLowerCase ??= new Map([...accounting].map(([stem, name]) => [stem.toLowerCase(), name]));
      pair = byLowerCase.get(ref.toLowerCase());
    }
    return { ref, reference, accounting: pair };
  });
}

/** The filing from its reference object and its accounting file's text (undefined: none, or unreadable). */
function filingOf(
  file: string,
  ref: string,
  reference: unknown,
  accountingText: string | undefined,
): FilingItem {
  const source = { file, line: 1 };
  if (!isObject(reference)) return { kind: 'skipped', reason: UNREADABLE, source };
  const raw = text(reference['EnterpriseNumber']);
  const companyNumber = parseCompanyNumber('BE', raw ?? '');
  if (!companyNumber)
    return {
      kind: 'rejected',
      reason: `EnterpriseNumber ${raw ?? '(none)'} is not a valid BE company number`,
      source,
    };
  const dates = reference['ExerciseDates'];
  const start = isObject(dates) ? date(dates['startDate'] ?? dates['StartDate']) : null;
  const end = isObject(dates) ? date(dates['endDate'] ?? dates['EndDate']) : null;
  const deposit = date(reference['DepositDate']);
  const number = text(reference['ReferenceNumber']) ?? ref;
  if (end === null || deposit === null || (start !== null && start >= end))
    return { kind: 'skipped', reason: UNREADABLE, source };
  const accounting = jsonOf(accountingText);
  if (!isObject(accounting) || !Array.isArray(accounting['Rubrics']))
    return { kind: 'skipped', reason: NO_ACCOUNTING_DATA, source };
  const { rubrics, unreadable } = currentRubrics(accounting['Rubrics']);
  const { figures, dropped } = figuresOf('cbso', rubrics);
  const filing: Filing = {
    source,
    format: 'cbso',
    country: 'BE',
    companyNumber,
    endDate: end,
    startDate: start,
    dateReceived: deposit,
    rank: `cbso:${deposit}#${number}`,
    healthIndicator: healthOfFigures(figures),
    figures,
    dropped: dropped + unreadable,
  };
  return { kind: 'filing', filing };
}

/**
 * The rubrics of the current year (`Period` `N`) the mapping reads (`RUBRIC_CODES`), in cents; values
 * that are no number are counted, whichever the rubric.
 */
export function currentRubrics(list: unknown[]): { rubrics: Rubrics; unreadable: number } {
  const rubrics = new CentsOf();
  let unreadable = 0;
  for (const entry of list) {
    if (!isObject(entry) || entry['Period'] !== 'N') continue;
    const code = text(entry['Code']);
    if (code === null) continue;
    const value = text(entry['Value']);
    if (value === null || !NUMBER.test(value)) {
      unreadable++;
      continue;
    }
    const amount = Math.round(Number(value) * 100);
    if (!Number.isFinite(amount)) unreadable++;
    else {
      const index = CODE_INDEX.get(code);
      if (index !== undefined) rubrics.cents[index] = amount;
    }
  }
  return { rubrics, unreadable };
}

const NUMBER = /^-?\d+(\.\d+)?$/;
/** Where each code the mapping reads is in a filing's `CentsOf`. */
const CODE_INDEX = new Map(RUBRIC_CODES.map((code, index) => [code, index]));

/** A filing's rubrics by code, those the mapping reads, in one array (NaN: not given). */
class CentsOf implements Rubrics {
  // A plain array of numbers: for some thirty, cheaper to make than a typed array.
  readonly cents: number[] = RUBRIC_CODES.map(() => NaN);
  get(code: string): number | null {
    const index = CODE_INDEX.get(code);
    const cents = index === undefined ? NaN : this.cents[index]!;
    return Number.isNaN(cents) ? null : cents;
  }
}

/** The file's text, or undefined when it cannot be read: at once from a folder, a promise from a ZIP. */
function textOf(files: FilingFiles, name: string): string | undefined | Promise<string | undefined> {
  try {
    const text = files.read(name);
    return typeof text === 'string' ? text : text.catch(() => undefined);
  } catch {
    return undefined;
  }
}

/** The text's JSON (a byte-order mark allowed), or undefined when there is none or it cannot be parsed. */
function jsonOf(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== ''
    ? value.trim()
    : typeof value === 'number'
      ? String(value)
      : null;

/** `YYYY-MM-DD`, also the date part of a timestamp the web services may give; null otherwise. */
function date(value: unknown): string | null {
  const day = text(value)?.slice(0, 10) ?? null;
  if (day === null) return null;
  let valid = checkedDays.get(day);
  if (valid === undefined) {
    valid = /^\d{4}-\d{2}-\d{2}$/.test(day) && isCalendarDate(day);
    // Filings share few dates (year ends, deposit days): a small memo of checked days, emptied when full.
    if (checkedDays.size >= 10_000) checkedDays.clear();
    checkedDays.set(day, valid);
  }
  return valid ? day : null;
}

const checkedDays = new Map<string, boolean>();
