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
  const current = accountingText === undefined ? undefined : rubricsOfText(accountingText);
  if (!current) return { kind: 'skipped', reason: NO_ACCOUNTING_DATA, source };
  const { rubrics, unreadable } = current;
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
    unreadable += rubrics.add(text(entry['Code']), entry['Value']);
  }
  return { rubrics, unreadable };
}

/**
 * An accounting file's current rubrics from its text, as `currentRubrics` picks them from its JSON;
 * undefined when the text is no JSON object whose `Rubrics` is an array (no accounting data).
 */
export function rubricsOfText(accountingText: string): { rubrics: Rubrics; unreadable: number } | undefined {
  const scanned = scannedRubrics(accountingText);
  if (scanned) return scanned;
  const accounting = jsonOf(accountingText);
  if (!isObject(accounting) || !Array.isArray(accounting['Rubrics'])) return undefined;
  return currentRubrics(accounting['Rubrics']);
}

const SCAN_HEAD = '{"Rubrics":[';
const SCAN_CODE = '{"Code":"';
const SCAN_PERIOD = '","Period":"';
const SCAN_VALUE = '","Value":"';
/**
 * A backslash or a control character (any code unit but those from space to U+FFFF and the backslash):
 * what a JSON string holds only escaped, or what the scan leaves to `JSON.parse` between tokens.
 */
const ESCAPE_OR_CONTROL = /[^\x20-\x5b\x5d-\uffff]/;
const COMMA = 0x2c;
const CLOSING_BRACKET = 0x5d;
const CLOSING_BRACE = 0x7d;
const N = 0x4e;

/**
 * The current rubrics of an accounting file written as the web services write it: compact JSON, each
 * rubric `{"Code":"…","Period":"…","Value":"…"}` in that order, no escape in any string (a byte-order
 * mark allowed). Read without parsing it into objects (most of what converting a filing cost): the
 * strings are found by their quotes, and only a current rubric's code and value are cut out. Any
 * other text, valid JSON or not, is undefined: for `JSON.parse`, which reads it the same.
 */
function scannedRubrics(t: string): { rubrics: Rubrics; unreadable: number } | undefined {
  let at = t.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (!t.startsWith(SCAN_HEAD, at) || ESCAPE_OR_CONTROL.test(t)) return undefined;
  at += SCAN_HEAD.length;
  const rubrics = new CentsOf();
  let unreadable = 0;
  if (t.charCodeAt(at) === CLOSING_BRACKET) at++;
  else
    for (;;) {
      if (!t.startsWith(SCAN_CODE, at)) return undefined;
      const codeStart = at + SCAN_CODE.length;
      const codeEnd = t.indexOf('"', codeStart);
      if (codeEnd < 0 || !t.startsWith(SCAN_PERIOD, codeEnd)) return undefined;
      const periodStart = codeEnd + SCAN_PERIOD.length;
      const periodEnd = t.indexOf('"', periodStart);
      if (periodEnd < 0 || !t.startsWith(SCAN_VALUE, periodEnd)) return undefined;
      const valueStart = periodEnd + SCAN_VALUE.length;
      const valueEnd = t.indexOf('"', valueStart);
      if (valueEnd < 0 || t.charCodeAt(valueEnd + 1) !== CLOSING_BRACE) return undefined;
      if (periodEnd - periodStart === 1 && t.charCodeAt(periodStart) === N)
        unreadable += rubrics.add(text(t.slice(codeStart, codeEnd)), t.slice(valueStart, valueEnd));
      at = valueEnd + 2;
      const next = t.charCodeAt(at++);
      if (next === CLOSING_BRACKET) break;
      if (next !== COMMA) return undefined;
    }
  return at === t.length - 1 && t.charCodeAt(at) === CLOSING_BRACE ? { rubrics, unreadable } : undefined;
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * A value's amount in cents, `Math.round(Number(value) * 100)`; NaN when it is no number or no finite
 * one. A value of at most 13 digits and 2 decimals (as the filings write them) is read digit by digit:
 * its cents below 10^15, the rounding of `Number(value) * 100` is off by less than a quarter, so
 * rounding gives them exactly.
 */
export function centsOf(value: string): number {
  const negative = value.charCodeAt(0) === MINUS;
  const length = value.length;
  let at = negative ? 1 : 0;
  let cents = 0;
  let digit: number;
  while (at < length && (digit = value.charCodeAt(at) - ZERO) >= 0 && digit <= 9) {
    cents = cents * 10 + digit;
    at++;
  }
  const digits = at - (negative ? 1 : 0);
  if (digits >= 1 && digits <= 13) {
    const decimals = length - at - 1;
    let simple = at === length;
    cents *= 100;
    if (!simple && value.charCodeAt(at) === DOT && decimals >= 1 && decimals <= 2) {
      const tenths = value.charCodeAt(at + 1) - ZERO;
      const hundredths = decimals === 2 ? value.charCodeAt(at + 2) - ZERO : 0;
      simple = tenths >= 0 && tenths <= 9 && hundredths >= 0 && hundredths <= 9;
      cents += tenths * 10 + hundredths;
    }
    if (simple) return negative ? -cents : cents;
  }
  const amount = NUMBER.test(value) ? Math.round(Number(value) * 100) : NaN;
  return Number.isFinite(amount) ? amount : NaN;
}

const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
/** Where each code the mapping reads is in a filing's `CentsOf`. */
const CODE_INDEX = new Map(RUBRIC_CODES.map((code, index) => [code, index]));

/** A filing's rubrics before it gives any: every code the mapping reads not given (NaN). */
const NO_CENTS: readonly number[] = RUBRIC_CODES.map(() => NaN);

/** A filing's rubrics by code, those the mapping reads, in one array (NaN: not given). */
class CentsOf implements Rubrics {
  // A plain array of numbers, copied from `NO_CENTS` (one copy, no callback a code): for some thirty,
  // cheaper to make than a typed array.
  readonly cents: number[] = NO_CENTS.slice();

  /**
   * A current rubric: its amount kept when the mapping reads its code. 1 when its value is no number
   * (whichever the code), else 0; nothing without a code.
   */
  add(code: string | null, given: unknown): number {
    if (code === null) return 0;
    const value = text(given);
    const amount = value === null ? NaN : centsOf(value);
    if (Number.isNaN(amount)) return 1;
    const index = CODE_INDEX.get(code);
    if (index !== undefined) this.cents[index] = amount;
    return 0;
  }
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
