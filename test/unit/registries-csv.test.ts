/**
 * The streamed readers under the registry converters: the CSV reader (values and physical lines of ugly
 * but valid RFC 4180 files, whatever the chunking), the raw records' reader beside it (the same values
 * and lines wherever the quoting is found plain, and the same verdict on it) and the order check over
 * raw bytes; then the SIRENE converter over such files (names with quotes, commas and line breaks; the
 * rejected unit's line; the same items from its raw texts). Sorted runs on disk:
 * registries-sorted-runs.test.ts.
 */
import { Readable } from 'node:stream';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { readCsv, type CsvRow } from '../../lib/import/sources/csv';
import {
  fieldAt,
  parseRecord,
  parseRecords,
  readCsvRecords,
  type CsvRecord,
} from '../../lib/import/sources/csv-records';
import { firstColumnAscending, PlainQuoting } from '../../lib/import/sources/key-order';
import { openRegistryFiles } from '../../lib/import/sources/files';
import { sireneItems } from '../../lib/import/sources/sirene';
import type { ReadItem, RegistryItem } from '../../lib/import/sources/unit';

/** Text with everything RFC 4180 makes awkward: quotes, commas, line breaks (LF and CRLF), accents. */
const ugly = fc
  .array(fc.constantFrom('a', 'Z', ' ', ',', '"', '\n', '\r\n', 'é', '€', '0', '.'), { maxLength: 12 })
  .map((parts) => parts.join(''));

/** A field as a writer may put it: quoted or not (when it can be bare), an empty one as `""` or nothing. */
const written = (value: string, quote: boolean) =>
  quote || /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;

const breaks = (value: string) => value.split('\n').length - 1;

async function rowsOf(text: string, chunk: number, file = 'x.csv'): Promise<CsvRow[]> {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) chunks.push(bytes.subarray(i, i + chunk));
  const csv = await readCsv(Readable.from(chunks), file);
  const rows: CsvRow[] = [];
  for await (const batch of csv.rows) rows.push(...batch);
  return rows;
}

/**
 * An ugly but valid file: 2 to 4 columns (`c0`…), rows of ugly values each written quoted or not, LF or
 * CRLF, with or without a byte-order mark; and a chunk size to stream it in.
 */
const uglyFile = fc
  .tuple(
    fc.integer({ min: 2, max: 4 }).chain((columns) =>
      fc.array(fc.array(fc.tuple(ugly, fc.boolean()), { minLength: columns, maxLength: columns }), {
        maxLength: 8,
      }),
    ),
    fc.constantFrom('\n' as const, '\r\n' as const),
    fc.boolean(),
    fc.integer({ min: 1, max: 64 }),
  )
  .map(([rows, eol, bom, chunk]) => {
    const columns = rows[0]?.length ?? 2;
    const header = Array.from({ length: columns }, (_, i) => `"c${i}"`).join(',');
    const text =
      (bom ? '\ufeff' : '') +
      [header, ...rows.map((row) => row.map(([v, q]) => written(v, q)).join(','))].join(eol) +
      eol;
    return { rows, columns, eol, text, chunk };
  });

describe('the registry CSV reader', () => {
  it('reads the values and the physical line of every row of an ugly but valid file, however it is chunked', async () => {
    await fc.assert(
      fc.asyncProperty(uglyFile, async ({ rows, text, chunk }) => {
        let line = 2;
        const expected = rows.map((row) => {
          const at = line;
          line += 1 + row.reduce((sum, [v]) => sum + breaks(v), 0);
          return { line: at, values: row.map(([v]) => v) };
        });
        expect(await rowsOf(text, chunk)).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it('reads `""` and a bare empty field alike, strips a byte-order mark and counts blank lines', async () => {
    const text = '\ufeff"a","b","c"\r\n"1","",\r\n\r\n"2",,""\r\n';
    expect(await rowsOf(text, 5)).toEqual([
      { line: 2, values: ['1', '', ''] },
      { line: 4, values: ['2', '', ''] },
    ]);
  });

  it('stops at a quote never closed instead of holding the rest of the file, naming the file and line', async () => {
    const runaway = [
      '"a","b"\n"1","2"\n"3","never closed\n',
      ...Array.from({ length: 20 }, () => 'x'.repeat(1 << 20)),
    ];
    await expect(rowsOf(runaway.join(''), 1 << 16)).rejects.toThrow(
      /^x\.csv line 3: not a readable CSV \(a quoted field is not closed/,
    );
  });

  it('refuses a file without the columns the converter needs, naming it', async () => {
    await expect(
      readCsv(Readable.from([Buffer.from('"x"\n"1"\n')]), 'enterprise.csv', ['EnterpriseNumber']),
    ).rejects.toThrow('enterprise.csv line 1: the header lacks EnterpriseNumber');
  });
});

/** The bytes of `text` in chunks of `size`. */
const bytesIn = (text: string, size: number) => {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
};

/** The records of `text` streamed in chunks of `size`, and whether the reader found its quoting plain. */
async function recordsOf(
  text: string,
  chunk: number,
): Promise<{ header: string[]; records: CsvRecord[]; plain: boolean }> {
  const csv = await readCsvRecords(Readable.from(bytesIn(text, chunk)), 'x.csv');
  const records: CsvRecord[] = [];
  for await (const batch of csv.rows) records.push(...batch);
  return { header: csv.header, records, plain: csv.plain() };
}

/** The records reader's verdict on the quoting of `text`, read to its end (a runaway quote: not plain). */
const readerFindsPlain = (text: string, chunk: number) =>
  recordsOf(text, chunk).then(
    ({ plain }) => plain,
    () => false,
  );

/** Whether the quoting of `text` is plain, its bytes fed in chunks of `size`. */
function plainQuoting(text: string, size: number): boolean {
  const quoting = new PlainQuoting();
  for (const chunk of bytesIn(text, size)) quoting.feed(chunk);
  return quoting.end();
}

describe('the raw records reader', () => {
  it('reads the lines and, field by field, the values the parser reads of an ugly but valid file, however it is chunked', async () => {
    await fc.assert(
      fc.asyncProperty(uglyFile, async ({ columns, eol, text, chunk }) => {
        expect(plainQuoting(text, chunk)).toBe(true);
        const parsed = await rowsOf(text, chunk);
        const { header: read, records, plain } = await recordsOf(text, chunk);
        expect(plain).toBe(true);
        expect(read).toEqual(Array.from({ length: columns }, (_, i) => `c${i}`));
        expect(records.map((r) => r.line)).toEqual(parsed.map((r) => r.line));
        records.forEach((record, i) => {
          const values = parsed[i]!.values;
          expect(parseRecord(record.text, eol)).toEqual(values);
          expect(values.map((_, column) => fieldAt(record.text, column))).toEqual(values);
          expect(fieldAt(record.text, values.length)).toBe('');
        });
        // All of them parsed in one call, as one at a time.
        expect(
          parseRecords(
            records.map((r) => r.text),
            eol,
          ),
        ).toEqual(parsed.map((r) => r.values));
      }),
      { numRuns: 150 },
    );
  });

  it('finds the quoting plain only where its records are the rows the parser reads, however it is chunked', async () => {
    // Any text at all of the characters that matter: where the check says plain, both readers agree.
    const anyText = fc
      .array(fc.constantFrom('a', ' ', ',', '"', '""', '\n', '\r\n', '\r'), { maxLength: 30 })
      .map((parts) => parts.join(''));
    let plain = 0;
    await fc.assert(
      fc.asyncProperty(
        anyText,
        fc.constantFrom('\n', '\r\n'),
        fc.integer({ min: 1, max: 16 }),
        async (body, eol, chunk) => {
          const text = `k,v${eol}${body}`;
          const whole = plainQuoting(text, text.length + 1);
          expect(plainQuoting(text, chunk)).toBe(whole);
          // The records reader, which finds it as it reads, says the same, however it is chunked.
          expect(await readerFindsPlain(text, chunk)).toBe(whole);
          if (!whole) return;
          plain++;
          const parsed = await rowsOf(text, chunk);
          const { records } = await recordsOf(text, chunk);
          expect(
            records.map((r) => ({ line: r.line, values: parseRecord(r.text, eol as '\n' | '\r\n') })),
          ).toEqual(parsed);
          expect(
            parseRecords(
              records.map((r) => r.text),
              eol as '\n' | '\r\n',
            ),
          ).toEqual(parsed.map((r) => r.values));
        },
      ),
      { numRuns: 400 },
    );
    expect(plain).toBeGreaterThan(40);
  });

  it('finds quoting that the parser reads leniently not plain', async () => {
    for (const text of [
      'k,v\nx"y,1\n', // a stray quote inside a field
      'k,v\n"a"b,1\n', // text after a closing quote
      'k,v\n"a" ,1\n', // a space after it
      'k,v\n"never closed\n',
      'k,v\r\n1,2\n3,4\r\n', // a bare line feed in a CRLF file
      'k,v\n"a"\r\n', // a closing quote's carriage return in an LF file
    ])
      for (const size of [1, 2, 3, 100]) {
        expect([text, size, plainQuoting(text, size)]).toEqual([text, size, false]);
        expect([text, size, await readerFindsPlain(text, size)]).toEqual([text, size, false]);
      }
    for (const text of ['\ufeff"k","v"\r\n"1",""\r\n', '"k",v\n"a\nb","c""d"\n,\n"e"'])
      for (const size of [1, 2, 3, 100]) {
        expect([text, size, plainQuoting(text, size)]).toEqual([text, size, true]);
        expect([text, size, await readerFindsPlain(text, size)]).toEqual([text, size, true]);
      }
  });
});

describe('a registry file opened to be scanned', () => {
  it('is read from disk in chunks of the size asked, from a folder or as a single file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'registry-chunks-'));
    try {
      const path = join(dir, 'units.csv');
      await writeFile(path, 'x'.repeat(3 << 20));
      const sizes = async (stream: AsyncIterable<Buffer>) => {
        const seen: number[] = [];
        for await (const chunk of stream) seen.push(chunk.length);
        return seen;
      };
      for (const files of [await openRegistryFiles(dir), await openRegistryFiles(path)]) {
        expect(await sizes(await files.open('units.csv', { chunkBytes: 1 << 20 }))).toEqual([
          1 << 20,
          1 << 20,
          1 << 20,
        ]);
        expect(new Set(await sizes(await files.open('units.csv')))).toEqual(new Set([64 << 10]));
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the order check over raw bytes', () => {
  /** The bytes of `text` in chunks of `size`: a key may be cut anywhere. */
  const chunked = (text: string, size: number) => {
    const bytes = Buffer.from(text);
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
    return Readable.from(chunks);
  };

  it('tells a file in ascending key order from one out of it, quoted or not, however it is chunked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 999 }), fc.boolean(), ugly), { maxLength: 12 }),
        fc.constantFrom('\n', '\r\n'),
        fc.integer({ min: 1, max: 40 }),
        async (rows, eol, size) => {
          const key = (n: number) => String(n).padStart(3, '0');
          // A continuation line that looks like a record start is a record to the check (see key-order.ts).
          const text =
            [
              'k,name',
              ...rows.map(([n, q, name]) => `${q ? `"${key(n)}"` : key(n)},${written(name, true)}`),
            ].join(eol) + eol;
          const keys = text
            .split('\n')
            .map((line) => /^"?(\d{3})"?,/.exec(line)?.[1])
            .filter((k): k is string => k !== undefined);
          const ascending = keys.every((k, i) => i === 0 || k >= keys[i - 1]!);
          expect(await firstColumnAscending(chunked(text, size), 3)).toBe(ascending);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads the last line without a line break, and passes over lines too short to hold a key', async () => {
    expect(await firstColumnAscending(chunked('siren,x\n12,a\n552100554,a\n"300000007",b', 4), 9)).toBe(
      false,
    );
    expect(await firstColumnAscending(chunked('siren,x\n300000007,a\n\n1\n552100554,b', 3), 9)).toBe(true);
  });
});

describe('the SIRENE converter over ugly but valid files', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'sirene-ugly-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('keeps names with quotes, commas and line breaks, and names the right line of a rejected unit after them', async () => {
    const sirens = ['552100554', '912345675'];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          ugly.filter((name) => name.trim() !== '' && name.trim() !== '[ND]'),
          {
            minLength: 2,
            maxLength: 2,
          },
        ),
        fc.constantFrom('\n', '\r\n'),
        async (names, eol) => {
          const path = join(folder, `StockUniteLegale_${run++}.csv`);
          const lines = [
            'siren,denominationUniteLegale,categorieJuridiqueUniteLegale',
            ...names.map((name, i) => `${sirens[i]},${written(name, false)},5710`),
            '912345676,NUMERO FAUX,5710',
          ];
          await writeFile(path, lines.join(eol) + eol);
          const items: RegistryItem[] = [];
          for await (const item of sireneItems(await openRegistryFiles(path), undefined)) items.push(item);
          expect(items.map((i) => (i.kind === 'unit' ? i.unit.fields.name : i.kind))).toEqual([
            ...names.map((name) => name.trim()),
            'rejected',
          ]);
          const rejectedLine = 2 + names.reduce((sum, name) => sum + 1 + breaks(name), 0);
          expect(items[2]?.kind === 'rejected' && items[2].source.line).toBe(rejectedLine);
          // Handed on raw (a re-import's stream) and mapped back: the very items.
          const back: RegistryItem[] = [];
          for await (const batch of sireneItems(await openRegistryFiles(path), undefined, { unmapped: true }))
            for (const item of batch as ReadItem[]) {
              expect(item.kind).toBe('raw');
              back.push(item.kind === 'raw' ? item.mapping.map(item.text, item.source) : item);
            }
          expect(back).toEqual(items);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('hands its units on mapped, the very items, from a file whose quoting is not plain or whose order is not', async () => {
    const header = 'siren,denominationUniteLegale,categorieJuridiqueUniteLegale';
    for (const [name, lines] of [
      // A stray quote inside a field: text to the parser, so the records' reader is not used.
      ['stray', [header, '552100554,ACME "THE" SA,5710', '912345675,"B, C",5710']],
      ['unordered', [header, '912345675,B,5710', '552100554,A,5710']],
    ] as const) {
      const path = join(folder, `StockUniteLegale_${name}.csv`);
      await writeFile(path, lines.join('\n') + '\n');
      const items: RegistryItem[] = [];
      for await (const item of sireneItems(await openRegistryFiles(path), undefined)) items.push(item);
      const handed: ReadItem[] = [];
      for await (const batch of sireneItems(await openRegistryFiles(path), undefined, { unmapped: true }))
        handed.push(...(batch as ReadItem[]));
      expect(handed.filter((item) => item.kind === 'raw')).toEqual([]);
      expect(handed).toEqual(items);
      expect(items.map((i) => (i.kind === 'unit' ? i.unit.fields.name : i.kind))).toEqual(
        name === 'stray' ? ['ACME "THE" SA', 'B, C'] : ['A', 'B'],
      );
    }
  });
});
