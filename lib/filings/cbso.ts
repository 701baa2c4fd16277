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
import type { Rubrics } from './mapping';
import type { Filing, FilingItem } from './filing';

const REFERENCE = '.reference.json';
const ACCOUNTING = '.accountingData.json';

export const UNREADABLE = 'unreadable filing';
export const NO_ACCOUNTING_DATA = 'no accounting data';

/** The filings under `path`: a folder, a ZIP, or one filing's reference or accounting file. */
export async function* cbsoFilings(path: string): AsyncGenerator<FilingItem> {
  const single = [REFERENCE, ACCOUNTING].find((suffix) => path.toLowerCase().endsWith(suffix.toLowerCase()));
  const files = await openFilingFiles(single ? dirname(path) : path);
  try {
    const only = single ? basename(path).slice(0, -single.length) : undefined;
    // In the order of where a filing's later file is (a ZIP is then read front to back), then by name.
    const references = files.names
      .filter((name) => name.toLowerCase().endsWith(REFERENCE.toLowerCase()))
      .map((name) => name.slice(0, -REFERENCE.length))
      .filter((ref) => only === undefined || ref === only)
      .map((ref) => {
        const accounting = files.find(`${ref}${ACCOUNTING}`);
        const at = files.position(`${ref}${REFERENCE}`);
        return { ref, at: accounting === undefined ? at : Math.max(at, files.position(accounting)) };
      })
      .sort((a, b) => a.at - b.at || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
    // One after the other: a filing's files are small (lib/filings/cbso-files.ts). A folder's are read
    // at once, so a filing costs no promise there; a ZIP's are awaited.
    for (const { ref } of references) {
      const file = `${ref}${REFERENCE}`;
      const accountingFile = files.find(`${ref}${ACCOUNTING}`);
      let reference = textOf(files, file);
      if (reference instanceof Promise) reference = await reference;
      let accounting = accountingFile === undefined ? undefined : textOf(files, accountingFile);
      if (accounting instanceof Promise) accounting = await accounting;
      yield filingOf(file, ref, jsonOf(reference), accounting);
    }
  } finally {
    files.close();
  }
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

/** The rubrics of the current year (`Period` `N`), in cents; values that are no number are counted. */
export function currentRubrics(list: unknown[]): { rubrics: Rubrics; unreadable: number } {
  const cents = new Map<string, number>();
  let unreadable = 0;
  for (const entry of list) {
    if (!isObject(entry) || entry['Period'] !== 'N') continue;
    const code = text(entry['Code']);
    const value = text(entry['Value']);
    if (code === null) continue;
    const amount = value !== null && /^-?\d+(\.\d+)?$/.test(value) ? Math.round(Number(value) * 100) : NaN;
    if (Number.isFinite(amount)) cents.set(code, amount);
    else unreadable++;
  }
  return { rubrics: new CentsOf(cents), unreadable };
}

/** A filing's rubrics by code (a class, not a closure a filing: the conversion makes one per filing). */
class CentsOf implements Rubrics {
  constructor(private readonly cents: Map<string, number>) {}
  get(code: string): number | null {
    return this.cents.get(code) ?? null;
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
