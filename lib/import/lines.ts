/**
 * The lines of an import file (contract §11.2), whether it is gzip-compressed or not: recognised by
 * gzip's magic bytes, whatever the file is called, and what one line says. Used by the import command
 * and by the import engine's workers on AWS.
 */
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parseCompanyRef, type CompanyRef } from '../companies/identifiers';
import {
  parseCompanyRecord,
  recordHash,
  RECORD_LIMITS,
  type CompanyRecord,
  type ParsedRecord,
} from '../companies/record';

export interface FileLines {
  lines: AsyncIterable<string>;
  /** Whether the file is gzip-compressed. */
  compressed: boolean;
}

/** The file's lines; `onBytes` counts the bytes read as stored (for a progress report). */
export async function fileLines(raw: Readable, onBytes?: (bytes: number) => void): Promise<FileLines> {
  const head = await new Promise<Buffer | null>((resolve, reject) => {
    raw.once('readable', () => resolve(raw.read() as Buffer | null));
    raw.once('end', () => resolve(null));
    raw.once('error', reject);
  });
  // A counting transform, not a 'data' listener: a listener would start the flow before readline listens.
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onBytes?.(chunk.length);
      done(null, chunk);
    },
  });
  raw.on('error', (error) => counted.destroy(error));
  if (head) counted.write(head);
  raw.pipe(counted);
  const compressed = head !== null && head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
  const text = compressed ? counted.pipe(createGunzip()) : counted;
  return { lines: createInterface({ input: text, crlfDelay: Infinity }), compressed };
}

/**
 * What the import knows of a line before it parses it: the company it most likely names and the
 * fingerprint of its text. A stored company remembers the fingerprint of the line it was written
 * from, so a line byte for byte the same as then is unchanged without being parsed and validated
 * again (the bulk of a re-import's work). The company is a guess read off the text: it only picks
 * which stored fingerprint to compare, and a match proves it (that line was parsed to that company
 * before, and parsing is deterministic); a wrong guess matches nothing and the line is parsed.
 */
export interface LineSketch {
  /** The company the line seems to name, or null when it does not say so plainly. */
  guess: CompanyRef | null;
  lineHash: string;
}

/**
 * The rules a line is judged by, in the fingerprint: when they change (a field becomes stricter), bump
 * this so that every line is parsed and judged by the new rules once.
 */
const RULES_VERSION = 'record-rules-2';

/** The first `"country": "…"` and `"companyNumber": "…"` of the text (without escapes). */
const COUNTRY = /"country"\s*:\s*"([^"\\]*)"/;
const COMPANY_NUMBER = /"companyNumber"\s*:\s*"([^"\\]*)"/;

export function sketchLine(text: string): LineSketch {
  const country = COUNTRY.exec(text)?.[1];
  const companyNumber = country === undefined ? undefined : COMPANY_NUMBER.exec(text)?.[1];
  return {
    guess: companyNumber === undefined ? null : parseCompanyRef(country, companyNumber),
    lineHash: createHash('sha256').update(RULES_VERSION).update('\n').update(text).digest('base64url'),
  };
}

/** A line as a company record, or why it is rejected (contract §11.2). */
export function parseLine(text: string): ParsedRecord {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > RECORD_LIMITS.bytes) {
    return {
      ok: false,
      reason: `record is ${Math.ceil(bytes / 1024)} KB, more than ${RECORD_LIMITS.bytes / 1024} KB`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
  return parseCompanyRecord(json);
}

/** A line as read, not yet judged. */
export interface Line extends LineSketch {
  line: number;
  text: string;
}

/** A line that holds a valid record of a company it is the first line of. */
export interface Entry {
  line: number;
  record: CompanyRecord;
  /** The canonical record's hash (`recordHash`). */
  hash: string;
  lineHash: string;
}

/** What a run's judging keeps and tells. */
export interface Judge {
  /** The first line of each company read so far (`companyNumberKey`), to reject a company seen again. */
  firstLineOf: Map<number, number>;
  reject: (line: number, reason: string) => void;
  /** Hears of each line found unchanged without being parsed. */
  unchanged: () => void;
}

/**
 * The verdict on each line of a batch, in file order (the import's batches take turns, so that "the
 * first line of a company wins" holds across batches in flight): a line byte for byte the one its
 * stored company was written from (`storedLineHash`) is unchanged, unparsed; any other line is parsed
 * and validated, rejected with its reason, or rejected as a company seen on an earlier line; the
 * others are answered, to be compared with what is stored by their canonical record's hash.
 */
export function judgeLines(
  lines: Line[],
  storedLineHash: (ref: CompanyRef) => string | undefined,
  judge: Judge,
): Entry[] {
  const entries: Entry[] = [];
  const first = (ref: CompanyRef, line: number) => {
    const key = companyNumberKey(ref);
    const earlier = judge.firstLineOf.get(key);
    if (earlier !== undefined) {
      judge.reject(line, `${ref.country} ${ref.companyNumber} already appeared on line ${earlier}`);
      return false;
    }
    judge.firstLineOf.set(key, line);
    return true;
  };
  for (const { line, text, guess, lineHash } of lines) {
    if (guess && storedLineHash(guess) === lineHash) {
      if (first(guess, line)) judge.unchanged();
      continue;
    }
    const parsed = parseLine(text);
    if (!parsed.ok) judge.reject(line, parsed.reason);
    else if (first(parsed.record, line))
      entries.push({ line, record: parsed.record, hash: recordHash(parsed.record), lineHash });
  }
  return entries;
}

const COUNTRY_INDEX = { BE: 0, NL: 1, FR: 2 } as const;
/** Every canonical number has at most 10 digits: country and number fit one safe integer. */
const companyNumberKey = (ref: CompanyRef) => COUNTRY_INDEX[ref.country] * 1e10 + Number(ref.companyNumber);
