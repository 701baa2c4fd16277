/**
 * How the import engine (lib/import/engine.ts) cuts a file into parts that import in parallel and
 * still give the file's verdicts (contract §11.2): by company, not by line range. Every line whose
 * record names a company goes to that company's partition, in file order, so "a company already
 * seen earlier in the same file — the first one wins" is decided inside one partition exactly as in
 * one run over the file. A line that names no valid company is rejected wherever it goes.
 */
import { createHash } from 'node:crypto';
import { companyKey, parseCompanyRef } from '../companies/identifiers';
import { RECORD_LIMITS } from '../companies/record';

/** Uncompressed bytes a partition is sized for: about 16,000 records, well within one worker's time limit. */
export const PARTITION_BYTES = 32 * 1024 * 1024;
export const MAX_PARTITIONS = 1000;
/** What gzip typically saves on JSON Lines: the file's uncompressed size is estimated from it. */
const GZIP_RATIO = 8;

export function partitionCount(storedBytes: number, compressed: boolean): number {
  const bytes = storedBytes * (compressed ? GZIP_RATIO : 1);
  return Math.min(MAX_PARTITIONS, Math.max(1, Math.ceil(bytes / PARTITION_BYTES)));
}

/** The partition of line `line`: its company's, else one by its line number. */
export function partitionOf(text: string, partitions: number, line: number): number {
  const company = companyOfLine(text);
  if (company === null) return line % partitions;
  return createHash('sha256').update(company).digest().readUInt32BE(0) % partitions;
}

/** The canonical key of the company a line's record names, null when it names none (it is rejected). */
function companyOfLine(text: string): string | null {
  // Too long to be a record: rejected before it is parsed, as in the import itself.
  if (text.length > RECORD_LIMITS.bytes) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof json !== 'object' || json === null) return null;
  const { country, companyNumber } = json as Record<string, unknown>;
  const ref = parseCompanyRef(country, companyNumber);
  return ref && companyKey(ref);
}

/** A line in a partition's part file: its number in the file, a tab, the line as it was. */
export function numbered(line: number, text: string): string {
  return `${line}\t${text}`;
}

export function unnumbered(stored: string): { line: number; text: string } {
  const tab = stored.indexOf('\t');
  return { line: Number(stored.slice(0, tab)), text: stored.slice(tab + 1) };
}
