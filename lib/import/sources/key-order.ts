/**
 * Whether a registry CSV file's records come in ascending order of a fixed-width numeric first column
 * (SIRENE's `siren`), found by a pass over its raw bytes rather than a parse: a line that starts with
 * the number (quoted or not) and a comma starts a record; the others (the header, a quoted field's
 * continuation) are passed over. A continuation line that happens to look like a record start can only
 * make a file seem out of order, which costs a sorted copy, never a wrong join; the join checks the
 * order again as it reads.
 *
 * The bytes are neither decoded nor copied (a line cut between two chunks keeps only the few bytes of
 * its key): the pass allocates next to nothing, so it leaves the garbage collector alone. Given a
 * `PlainQuoting`, the same pass also finds whether the file's quoting is plain.
 */
import type { Readable } from 'node:stream';

const NEWLINE = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;
const ZERO = 0x30;
const BOM = [0xef, 0xbb, 0xbf];

export async function firstColumnAscending(
  stream: Readable,
  width: number,
  quoting?: PlainQuoting,
): Promise<boolean> {
  let previous = -1;
  // The start of a line that a chunk's end cut: enough bytes to read its key.
  let cut: Buffer | undefined;
  const keep = width + 3;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      quoting?.feed(chunk);
      let start = 0;
      if (cut) {
        const end = chunk.indexOf(NEWLINE);
        if (cut.length < keep) cut = Buffer.concat([cut, chunk.subarray(0, keep - cut.length)]);
        if (end === -1) continue;
        const key = keyOf(cut, 0, cut.length, width);
        if (key >= 0) {
          if (key < previous) return false;
          previous = key;
        }
        cut = undefined;
        start = end + 1;
      }
      for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        const key = keyOf(chunk, start, end, width);
        if (key >= 0) {
          if (key < previous) return false;
          previous = key;
        }
        start = end + 1;
      }
      if (start < chunk.length) cut = Buffer.from(chunk.subarray(start, start + keep));
    }
    quoting?.end();
    const key = cut ? keyOf(cut, 0, cut.length, width) : -1;
    return key < 0 || key >= previous;
  } finally {
    stream.destroy();
  }
}

/** The number a line (`start` to `end`) begins with (`123456789,` or `"123456789",`), or -1. */
function keyOf(bytes: Buffer, start: number, end: number, width: number): number {
  const quoted = bytes[start] === QUOTE;
  const from = quoted ? start + 1 : start;
  const after = from + width;
  if (after + (quoted ? 1 : 0) >= end) return -1;
  let key = 0;
  for (let i = from; i < after; i++) {
    const digit = bytes[i]! - ZERO;
    if (digit < 0 || digit > 9) return -1;
    key = key * 10 + digit;
  }
  if (quoted ? bytes[after] !== QUOTE || bytes[after + 1] !== COMMA : bytes[after] !== COMMA) return -1;
  return key;
}

/**
 * (ext) Whether a file's quoting is plain RFC 4180, found from its bytes as they stream (`feed`, then
 * `end`): a quote opens a field only at the field's start, a doubled quote inside stands for one, and
 * the quote that closes the field comes right before a comma, the line ending or the end of the file;
 * with CRLF line endings (the first line's), no bare line feed outside quotes. In such a file a
 * record's bounds and values are the same to csv-records.ts as to the parser (csv.ts), which also
 * reads files that are not plain (a stray quote inside a field is text to it).
 */
export class PlainQuoting {
  plain = true;
  /** CRLF line endings (undefined until the first line break). */
  private crlf: boolean | undefined;
  private quoted = false;
  /** A quote inside a quoted field ended the last chunk: the next byte says whether it closed it. */
  private quoteAtEnd = false;
  /** A closing quote's carriage return ended the last chunk: a line feed must follow. */
  private returnAtEnd = false;
  /** The byte before the chunk (a line break at the file's start: a field starts there). */
  private last = NEWLINE;
  /** Bytes of the file seen, and how many of its first ones are a byte-order mark's (a field starts after one). */
  private offset = 0;
  private bom = 0;

  feed(chunk: Buffer): void {
    if (!this.plain) return;
    const n = chunk.length;
    for (let i = 0; this.offset + i < BOM.length && i < n; i++)
      if (this.bom === this.offset + i && chunk[i] === BOM[this.bom]) this.bom++;
    let pos = 0;
    if (this.returnAtEnd && n > 0) {
      this.returnAtEnd = false;
      if (chunk[0] !== NEWLINE) return this.fail();
    }
    if (this.quoteAtEnd && n > 0) {
      this.quoteAtEnd = false;
      pos = this.afterQuote(chunk, 0);
    }
    while (pos < n && this.plain) {
      if (this.quoted) {
        const q = chunk.indexOf(QUOTE, pos);
        if (q === -1) break;
        if (q + 1 >= n) {
          this.quoteAtEnd = true;
          break;
        }
        pos = this.afterQuote(chunk, q + 1);
        continue;
      }
      const q = chunk.indexOf(QUOTE, pos);
      const to = q === -1 ? n : q;
      // Outside quotes, each line break ends a record: with CRLF endings, after a carriage return.
      if (this.crlf !== false)
        for (
          let nl = chunk.indexOf(NEWLINE, pos);
          nl !== -1 && nl < to;
          nl = chunk.indexOf(NEWLINE, nl + 1)
        ) {
          const returned = (nl > 0 ? chunk[nl - 1] : this.last) === CR;
          if (this.crlf === undefined) this.crlf = returned;
          if (!this.crlf) break;
          if (!returned) return this.fail();
        }
      if (q === -1) break;
      const before = q > 0 ? chunk[q - 1] : this.last;
      const afterMark = this.offset + q === BOM.length && this.bom === BOM.length;
      if (before !== COMMA && before !== NEWLINE && !afterMark) return this.fail();
      this.quoted = true;
      pos = q + 1;
    }
    this.offset += n;
    if (n > 0) this.last = chunk[n - 1]!;
  }

  /** True when the whole file was plain. */
  end(): boolean {
    if ((this.quoted && !this.quoteAtEnd) || this.returnAtEnd) this.plain = false;
    return this.plain;
  }

  /** The byte at `at` follows a quote inside a quoted field: where to go on (outside quotes when it closed). */
  private afterQuote(chunk: Buffer, at: number): number {
    const next = chunk[at];
    if (next === QUOTE) return at + 1;
    this.quoted = false;
    if (next === COMMA || (next === NEWLINE && this.crlf !== true)) return at;
    if (next === CR && this.crlf !== false) {
      if (at + 1 >= chunk.length) this.returnAtEnd = true;
      else if (chunk[at + 1] !== NEWLINE) this.fail();
      return at;
    }
    this.fail();
    return chunk.length;
  }

  private fail(): void {
    this.plain = false;
  }
}
