/**
 * Whether a registry CSV file's records come in ascending order of a fixed-width numeric first column
 * (SIRENE's `siren`), found by a pass over its raw bytes rather than a parse: a line that starts with
 * the number (quoted or not) and a comma starts a record; the others (the header, a quoted field's
 * continuation) are passed over. A continuation line that happens to look like a record start can only
 * make a file seem out of order, which costs a sorted copy, never a wrong join; the join checks the
 * order again as it reads.
 *
 * The bytes are neither decoded nor copied (a line cut between two chunks keeps only the few bytes of
 * its key): the pass allocates next to nothing, so it leaves the garbage collector alone.
 */
import type { Readable } from 'node:stream';

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;
const ZERO = 0x30;

export async function firstColumnAscending(stream: Readable, width: number): Promise<boolean> {
  let previous = -1;
  // The start of a line that a chunk's end cut: enough bytes to read its key.
  let cut: Buffer | undefined;
  const keep = width + 3;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
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
