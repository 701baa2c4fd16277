/**
 * A CSV file sorted by its first column, cut by key range without parsing it (the SIRENE stock on AWS,
 * lib/import/sirene-ranges.ts): its bytes are scanned for row starts — a line break outside quotes, as
 * RFC 4180 quotes (a doubled quote toggles twice) — and each row's key is the text before its first
 * comma. Scanning finds line breaks and quotes with `indexOf`, far cheaper than parsing the rows, so a
 * worker can pass over the rows before its range and parse only its own.
 */
import { Readable } from 'node:stream';
import { RegistryFileError } from './sources/files';

const LF = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;

/** A row start met by `scanRows`: its physical line (the header is 1) and its key. */
export interface RowStart {
  line: number;
  key: string;
}

type OnLine = (line: number, rowStart: boolean, bytes: Buffer) => boolean | void;

/**
 * Cuts chunks into lines, synchronously (a promise per line would cost more than the scan), each with
 * the physical line it starts on and whether a row starts there (not inside a quoted field). `onLine`
 * answers true to stop.
 */
class LineScanner {
  private carry: Buffer | null = null;
  private line = 1;
  private inQuotes = false;

  /** False once `onLine` asked to stop. */
  push(chunk: Buffer, onLine: OnLine): boolean {
    const buffer: Buffer = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = null;
    let position = 0;
    let quote = buffer.indexOf(QUOTE, position);
    for (;;) {
      const end = buffer.indexOf(LF, position);
      if (end < 0) break;
      const rowStart = !this.inQuotes;
      while (quote >= 0 && quote < end) {
        this.inQuotes = !this.inQuotes;
        quote = buffer.indexOf(QUOTE, quote + 1);
      }
      if (onLine(this.line++, rowStart, buffer.subarray(position, end + 1)) === true) return false;
      position = end + 1;
    }
    if (position < buffer.length) this.carry = buffer.subarray(position);
    return true;
  }

  /** The last line, when the file does not end with a line break. */
  end(onLine: OnLine): void {
    if (this.carry) onLine(this.line, !this.inQuotes, this.carry);
    this.carry = null;
  }
}

/**
 * Checks that the well-formed keys a scan meets ascend: a range cut from a file out of order would
 * lose rows, where the command refuses the file.
 */
class Ascending {
  private previous = '';
  private previousLine = 0;

  constructor(private readonly name: string) {}

  check(key: string, line: number): void {
    if (key < this.previous)
      throw new RegistryFileError(
        `${this.name} line ${line}: ${key} comes after ${this.previous} (line ${this.previousLine}); ` +
          'the file is cut by key range, which relies on its rows being in ascending order as published',
      );
    this.previous = key;
    this.previousLine = line;
  }
}

/** The key of a row starting with `bytes`: the text before its first comma (quotes stripped). */
function keyOf(bytes: Buffer): string {
  const comma = bytes.indexOf(COMMA);
  const text = bytes.subarray(0, comma < 0 ? Math.min(bytes.length, 32) : comma).toString('utf8');
  return text
    .replace(/^\uFEFF/, '')
    .replace(/^"(.*)"$/, '$1')
    .trim();
}

/**
 * Every `every`-th row start after the header (and how many rows there are), for cutting ranges; the
 * file `name` is refused when its well-formed keys do not ascend.
 */
export async function sampleKeys(
  source: AsyncIterable<Buffer>,
  every: number,
  { name, wellFormed }: { name: string; wellFormed: KeyTest },
): Promise<{ rows: number; samples: string[] }> {
  const samples: string[] = [];
  const order = new Ascending(name);
  let rows = 0;
  const onLine: OnLine = (line, rowStart, bytes) => {
    if (!rowStart || line === 1 || bytes.length <= 2) return;
    const key = keyOf(bytes);
    if (wellFormed(key)) order.check(key, line);
    if (rows++ % every === 0) samples.push(key);
  };
  const scanner = new LineScanner();
  for await (const chunk of source) scanner.push(chunk, onLine);
  scanner.end(onLine);
  return { rows, samples };
}

/** A key range: from `from` (inclusive; null: the first row) to `to` (exclusive; null: the last row). */
export interface KeyRange {
  from: string | null;
  to: string | null;
}

/** Whether `key` is one a range is cut at: a key well formed by `wellFormed`; other rows follow the row before. */
export type KeyTest = (key: string) => boolean;

/**
 * The stream cut to its header and the rows whose keys lie in `range` (a row whose key is not well
 * formed goes with the row before it), and the physical line of the first row it keeps in the file
 * (`firstLine()`: known once the stream has given its first row; null while none). The stream fails
 * when the well-formed keys it passes over do not ascend (file `name`).
 */
export function keyRange(
  source: Readable,
  range: KeyRange,
  { name, wellFormed }: { name: string; wellFormed: KeyTest },
): { stream: Readable; firstLine: () => number | null } {
  const order = new Ascending(name);
  let first: number | null = null;
  let inside = range.from === null;
  let kept: Buffer[] = [];
  const onLine: OnLine = (line, rowStart, bytes) => {
    if (line === 1) {
      kept.push(bytes);
      return;
    }
    if (rowStart) {
      const key = keyOf(bytes);
      if (wellFormed(key)) {
        order.check(key, line);
        if (range.to !== null && key >= range.to) return true;
        if (!inside && range.from !== null && key >= range.from) inside = true;
      }
      if (inside && first === null) first = line;
    }
    if (inside) kept.push(bytes);
  };
  const take = () => {
    const out = Buffer.concat(kept);
    kept = [];
    return out;
  };
  async function* cut(): AsyncGenerator<Buffer> {
    const scanner = new LineScanner();
    try {
      for await (const chunk of source) {
        const more = scanner.push(chunk as Buffer, onLine);
        if (kept.length > 0) yield take();
        if (!more) return;
      }
      scanner.end(onLine);
      if (kept.length > 0) yield take();
    } finally {
      source.destroy();
    }
  }
  return { stream: Readable.from(cut(), { objectMode: false }), firstLine: () => first };
}
