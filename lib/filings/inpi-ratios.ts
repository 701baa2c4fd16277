/**
 * The French ratios file, "Ratios financiers BCE/INPI" (contract §11.4, `registries.md` §3.1): `;`-
 * separated, UTF-8 with a byte-order mark, decimal point, dates `yyyy-mm-dd`, one row per `siren`,
 * `date_cloture_exercice` and `type_bilan`. Streamed through csv-parse, columns found by their names.
 * Pure: the file in, filings out.
 *
 * - The period's figures: the money columns (whole euros) through the mapping (lib/filings/mapping.ts);
 *   its health the ratios scorecard (lib/filings/health.ts). Its `startDate` and `dateReceived` are the
 *   import's to work out (lib/filings/apply.ts).
 * - Its rank: `type_bilan`, consolidated (`K`) > complete (`C`) > simplified (`S`) (§11.5.9).
 * - An invalid `siren` rejects the row (`FILE line N: …`); a row without a readable closing date or with
 *   another `type_bilan` cannot be a period and is skipped (counted). A cell that is no number is left
 *   out and counted as a field dropped.
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'csv-parse';
import { parseCompanyNumber } from '../companies/identifiers';
import { isCalendarDate } from '../http/schemas';
import { RegistryFileError } from '../import/sources/files';
import { frenchRatiosHealth } from './health';
import { figuresOf } from './figures';
import { MAPPING, type RatioRow } from './mapping';
import type { Filing, FilingItem } from './filing';
import { INPI_RANK } from './filing';

/** The ranks of `type_bilan` (§11.5.9): higher is preferred. */
export const TYPE_BILAN_RANKS: Readonly<Record<string, number>> = { K: 3, C: 2, S: 1 };

export const UNKNOWN_TYPE = 'unknown type_bilan';
export const NO_CLOSING_DATE = 'no closing date';

const REQUIRED = ['siren', 'date_cloture_exercice', 'type_bilan'] as const;

/** The columns the mapping reads as money (whole euros in the file, cents for the mapping). */
const MONEY = new Set(
  MAPPING.filter((row) => row.kind === 'amount' && row.inpi.source !== '—').map((row) => row.inpi.source),
);
/** The ratio columns the health scorecard reads (percent). */
const RATIOS = ['autonomie_financiere', 'ratio_de_liquidite', 'resultat_courant_avant_impots_sur_ca'];

export async function* inpiRatioFilings(path: string): AsyncGenerator<FilingItem> {
  const file = basename(path);
  const stream = createReadStream(path);
  const parser = stream.pipe(
    parse({ delimiter: ';', bom: true, relax_column_count: true, skip_empty_lines: true, info: true }),
  );
  stream.on('error', (error) => parser.destroy(error));
  let header: string[] | undefined;
  let columns: Record<string, number> = {};
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      if (!header) {
        header = record.map((name) => name.trim());
        const missing = REQUIRED.filter((name) => !header!.includes(name));
        if (missing.length > 0)
          throw new RegistryFileError(`${file} line 1: the header lacks ${missing.join(', ')}`);
        columns = Object.fromEntries(header.map((name, i) => [name, i]));
        continue;
      }
      yield rowItem(record, columns, { file, line: info.lines });
    }
  } catch (error) {
    if (error instanceof RegistryFileError) throw error;
    throw new RegistryFileError(`${file}: not a readable CSV (${(error as Error).message})`, {
      cause: error,
    });
  } finally {
    stream.destroy();
  }
  if (!header) throw new RegistryFileError(`${file} is empty: it has no header line`);
}

function rowItem(values: string[], columns: Record<string, number>, source: Filing['source']): FilingItem {
  const cell = (name: string) => (columns[name] === undefined ? '' : (values[columns[name]!] ?? '').trim());
  const siren = cell('siren');
  const companyNumber = parseCompanyNumber('FR', siren);
  if (!companyNumber)
    return {
      kind: 'rejected',
      reason: `siren ${siren || '(none)'} is not a valid FR company number`,
      source,
    };
  const rank = TYPE_BILAN_RANKS[cell('type_bilan').toUpperCase()];
  if (rank === undefined) return { kind: 'skipped', reason: UNKNOWN_TYPE, source };
  const end = cell('date_cloture_exercice').slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(end) || !isCalendarDate(end))
    return { kind: 'skipped', reason: NO_CLOSING_DATE, source };
  let unreadable = 0;
  /** Money in cents (`cents`), a ratio as written. */
  const number = (name: string, cents: boolean) => {
    const text = cell(name);
    if (text === '') return null;
    const value = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
    if (Number.isFinite(value)) return cents ? Math.round(value * 100) : value;
    unreadable++;
    return null;
  };
  const row: RatioRow = {};
  for (const name of MONEY) row[name] = number(name, true);
  for (const name of RATIOS) row[name] = number(name, false);
  const { figures, dropped } = figuresOf('inpi', row);
  const filing: Filing = {
    source,
    format: 'inpi-ratios',
    country: 'FR',
    companyNumber,
    endDate: end,
    startDate: null,
    dateReceived: null,
    rank: `${INPI_RANK}${rank}`,
    healthIndicator: frenchRatiosHealth({
      autonomieFinanciere: row['autonomie_financiere'] ?? null,
      ratioDeLiquidite: row['ratio_de_liquidite'] ?? null,
      resultatCourantSurCa: row['resultat_courant_avant_impots_sur_ca'] ?? null,
    }),
    figures,
    dropped: dropped + unreadable,
  };
  return { kind: 'filing', filing };
}
