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
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { parseCompanyNumber } from '../companies/identifiers';
import { isCalendarDate } from '../http/schemas';
import { openRegistryFiles, type RegistryFiles } from '../import/sources/files';
import { healthOfFigures } from './health';
import { figuresOf } from './figures';
import type { Rubrics } from './mapping';
import type { Filing, FilingItem } from './filing';

const REFERENCE = '.reference.json';
const ACCOUNTING = '.accountingData.json';

export const UNREADABLE = 'unreadable filing';
const READ_AHEAD = 16;
export const NO_ACCOUNTING_DATA = 'no accounting data';

/** The filings under `path`: a folder, a ZIP, or one filing's reference or accounting file. */
export async function* cbsoFilings(path: string): AsyncGenerator<FilingItem> {
  const single = [REFERENCE, ACCOUNTING].find((suffix) => path.toLowerCase().endsWith(suffix.toLowerCase()));
  const files = await openRegistryFiles(single ? dirname(path) : path);
  if ((await stat(files.origin)).isDirectory()) folder.add(files);
  try {
    const only = single ? basename(path).slice(0, -single.length) : undefined;
    const references = files.names
      .filter((name) => name.toLowerCase().endsWith(REFERENCE.toLowerCase()))
      .map((name) => name.slice(0, -REFERENCE.length))
      .filter((ref) => only === undefined || ref === only)
      .sort();
    // Filings are read a few at a time (small files: opening them is most of the cost), yielded in order.
    const ahead: Array<Promise<FilingItem>> = [];
    for (const ref of references) {
      ahead.push(filingOf(files, ref));
      if (ahead.length === READ_AHEAD) yield await ahead.shift()!;
    }
    while (ahead.length > 0) yield await ahead.shift()!;
  } finally {
    await files.close();
  }
}

async function filingOf(files: RegistryFiles, ref: string): Promise<FilingItem> {
  const file = `${ref}${REFERENCE}`;
  const source = { file, line: 1 };
  const reference = await jsonOf(files, file);
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
  const accountingFile = files.find(`${ref}${ACCOUNTING}`);
  const accounting = accountingFile === undefined ? undefined : await jsonOf(files, accountingFile);
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
  return { rubrics: { get: (code) => cents.get(code) ?? null }, unreadable };
}

async function jsonOf(files: RegistryFiles, name: string): Promise<unknown> {
  try {
    // A folder's file is read whole at once (a stream per small file costs more than its parse).
    const text = folder.has(files)
      ? await readFile(join(files.origin, files.find(name) ?? name), 'utf8')
      : await readAll(await files.open(name));
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch {
    return undefined;
  }
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The opened paths that are folders (their files are read with readFile). */
const folder = new WeakSet<RegistryFiles>();

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
  return day !== null && /^\d{4}-\d{2}-\d{2}$/.test(day) && isCalendarDate(day) ? day : null;
}
