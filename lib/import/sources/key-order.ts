/**
 * Whether a registry CSV file's records come in ascending order of a fixed-width numeric first column
 * (SIRENE's `siren`), found by a pass over its raw text rather than a parse: a line that starts with the
 * number (quoted or not) and a comma starts a record; the others (the header, a quoted field's
 * continuation) are passed over. A continuation line that happens to look like a record start can only
 * make a file seem out of order, which costs a sorted copy, never a wrong join; the join checks the
 * order again as it reads.
 */
import type { Readable } from 'node:stream';

export async function firstColumnAscending(stream: Readable, width: number): Promise<boolean> {
  let previous = '';
  let rest = '';
  try {
    for await (const chunk of stream.setEncoding('utf8')) {
      const text = rest + (chunk as string);
      let start = 0;
      for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
        const key = keyOf(text, start, width);
        if (key !== null) {
          if (key < previous) return false;
          previous = key;
        }
        start = end + 1;
      }
      rest = text.slice(start);
    }
    const key = keyOf(rest, 0, width);
    return key === null || key >= previous;
  } finally {
    stream.destroy();
  }
}

/** The number a line starting at `start` begins with (`123456789,` or `"123456789",`), or null. */
function keyOf(text: string, start: number, width: number): string | null {
  const quoted = text.charCodeAt(start) === 34;
  const from = quoted ? start + 1 : start;
  for (let i = from; i < from + width; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return null;
  }
  const after = from + width;
  if (quoted ? text[after] !== '"' || text[after + 1] !== ',' : text[after] !== ',') return null;
  return text.slice(from, after);
}
