/**
 * A CSV file sorted by its first column, cut by key range from its bytes (lib/import/key-ranges.ts):
 * rows found outside quoted fields whatever the chunks, the header kept, rows with a malformed key kept
 * with the row before them, and the physical line of the first row kept.
 */
import { Readable } from 'node:stream';
import { keyRange, sampleKeys } from '../../lib/import/key-ranges';

const KEYS = { name: 'units.csv', wellFormed: (key: string) => /^\d{9}$/.test(key) };

const FILE = [
  '\uFEFFsiren,name',
  '100000001,"One, Inc."',
  '200000002,"Two ""quoted"" with a',
  'line break inside"',
  'bad,no key',
  '300000003,Three',
  '"400000004",Four',
  '500000005,Five',
  '',
].join('\r\n');

/** The file in chunks of `size` bytes: a row, a quote or a line break may straddle two chunks. */
const chunks = (size: number) => {
  const bytes = Buffer.from(FILE, 'utf8');
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) parts.push(bytes.subarray(at, at + size));
  return parts;
};

async function cut(from: string | null, to: string | null, size: number) {
  const { stream, firstLine } = keyRange(Readable.from(chunks(size)), { from, to }, KEYS);
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return { text: Buffer.concat(parts).toString('utf8'), firstLine: firstLine() };
}

describe('keyRange', () => {
  it.each([1, 3, 7, 4096])(
    'keeps the header and the rows of the range, in chunks of %i bytes',
    async (size) => {
      expect(await cut('200000002', '400000004', size)).toEqual({
        text: [
          '\uFEFFsiren,name',
          '200000002,"Two ""quoted"" with a',
          'line break inside"',
          'bad,no key',
          '300000003,Three',
          '',
        ].join('\r\n'),
        // Its first row's physical line in the file (the header is line 1).
        firstLine: 3,
      });
    },
  );

  it('takes a quoted key, and everything from the start or to the end when a bound is open', async () => {
    expect((await cut('400000004', null, 5)).text).toBe(
      ['\uFEFFsiren,name', '"400000004",Four', '500000005,Five', ''].join('\r\n'),
    );
    const start = await cut(null, '200000000', 5);
    expect(start).toEqual({
      text: ['\uFEFFsiren,name', '100000001,"One, Inc."', ''].join('\r\n'),
      firstLine: 2,
    });
  });

  it('keeps the header alone when no row is in the range', async () => {
    expect(await cut('600000000', null, 8)).toEqual({ text: '\uFEFFsiren,name\r\n', firstLine: null });
  });
});

describe('sampleKeys', () => {
  it('counts the rows (a quoted line break is no row) and samples every n-th key', async () => {
    expect(await sampleKeys(Readable.from(chunks(3)), 2, KEYS)).toEqual({
      rows: 6,
      samples: ['100000001', 'bad', '400000004'],
    });
  });
});

describe('a file out of order', () => {
  const unordered = ['siren,name', '100000001,One', '300000003,Three', '200000002,Two', ''].join('\n');

  it('is refused by the sampling and by any cut that passes over the row out of order', async () => {
    await expect(sampleKeys(Readable.from([Buffer.from(unordered)]), 1, KEYS)).rejects.toThrow(
      'units.csv line 4: 200000002 comes after 300000003 (line 3)',
    );
    const { stream } = keyRange(
      Readable.from([Buffer.from(unordered)]),
      { from: '250000000', to: null },
      KEYS,
    );
    await expect(stream.toArray()).rejects.toThrow(
      'units.csv line 4: 200000002 comes after 300000003 (line 3)',
    );
  });
});
