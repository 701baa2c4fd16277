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
import { openFilingFiles, type FilingTexts } from './cbso-files';
import { healthOfFigures } from './health';
import { figuresOf } from './figures';
import { RUBRIC_CODES, type Rubrics } from './mapping';
import type { Filing, FilingItem } from './filing';

const REFERENCE = '.reference.json';
const ACCOUNTING = '.accountingData.json';

export const UNREADABLE = 'unreadable filing';
export const NO_ACCOUNTING_DATA = 'no accounting data';

/**
 * The filings under `path`: a folder, a ZIP, or one filing's reference or accounting file. In the
 * delivery's order (lib/filings/cbso-files.ts); memory flat with its size.
 */
export async function* cbsoFilings(path: string): AsyncGenerator<FilingItem> {
  const lower = path.toLowerCase();
  const single = [REFERENCE, ACCOUNTING].find((suffix) => lower.endsWith(suffix.toLowerCase()));
  const files = await openFilingFiles(single ? dirname(path) : path);
  try {
    const only = single ? basename(path).slice(0, -single.length) : undefined;
    const filings = files.filings(only);
    // A folder's filings come at once (a filing costs no promise there); a ZIP's are awaited.
    if (Symbol.iterator in filings) for (const f of filings) yield itemOf(f);
    else for await (const f of filings) yield itemOf(f);
  } finally {
    files.close();
  }
}

const itemOf = (f: FilingTexts) =>
  filingOf(`${f.ref}${REFERENCE}`, f.ref, jsonOf(f.referenceText), f.accountingText);

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

/** A filing's rubrics before it gives any: every code the mapping reads not given (NaN). */
const NO_CENTS: readonly number[] = RUBRIC_CODES.map(() => NaN);

/** A filing's rubrics by code, those the mapping reads, in one array (NaN: not given). */
class CentsOf implements Rubrics {
  // A plain array of numbers, copied from `NO_CENTS` (one copy, no callback a code): for some thirty,
  // cheaper to make than a typed array.
  readonly cents: number[] = NO_CENTS.slice();
  get(code: string): number | null {
    const index = CODE_INDEX.get(code);
    const cents = index === undefined ? NaN : this.cents[index]!;
    return Number.isNaN(cents) ? null : cents;
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

/** The value as trimmed text (a number as JSON writes it), null when it is none or blank. */
function text(value: unknown): string | null {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? null : trimmed;
  }
  return typeof value === 'number' ? String(value) : null;
}

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
