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
