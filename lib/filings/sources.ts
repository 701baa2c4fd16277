/**
 * The filing formats the import command knows (contract §11.4): each one's converter, a path in,
 * filings out, streamed (lib/filings/filing.ts).
 */
import { cbsoFilings } from './cbso';
import type { FilingFormat, FilingItem } from './filing';
import { inpiRatioFilings } from './inpi-ratios';

export { FILING_FORMATS, type FilingFormat } from './filing';

/** A CBSO path is a folder or ZIP of filings (or one filing's file); a ratios path is the CSV file. */
export const FILING_SOURCES: Record<FilingFormat, (path: string) => AsyncIterable<FilingItem>> = {
  cbso: cbsoFilings,
  'inpi-ratios': inpiRatioFilings,
};

/**
 * `inpi-ratios` when `line` is the ratios file's header (a first line naming `siren`, like SIRENE's,
 * but also `date_cloture_exercice` and `type_bilan`), else null: the JSON Lines import names the format.
 */
export function ratiosFormatOfHeader(line: string): 'inpi-ratios' | null {
  const columns = new Set(
    line
      .replace(/^\uFEFF/, '')
      .split(/[;,]/)
      .map((column) =>
        column
          .trim()
          .replace(/^"(.*)"$/, '$1')
          .toLowerCase(),
      ),
  );
  return columns.has('siren') && columns.has('date_cloture_exercice') && columns.has('type_bilan')
    ? 'inpi-ratios'
    : null;
}
