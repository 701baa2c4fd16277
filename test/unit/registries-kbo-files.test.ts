/**
 * The KBO full extract converter over folders that are not the sample extract as published
 * (test/fixtures/registries/kbo-full changed): no meta.csv, files out of entity order, quoting the
 * parser reads leniently, ugly but valid names, an update extract; each read as a first import and
 * as a re-import reads it.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { openRegistryFiles } from '../../lib/import/sources/files';
import { readKboFull } from '../../lib/import/sources/kbo';
import type { RegistryItem } from '../../lib/import/sources/unit';
import { convert, FULL, RECORDS, readAgain } from '../support/kbo-extract';
import { unitOf } from '../support/registry-items';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kbo-files-test-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('a KBO folder that is not a full extract as published', () => {
  async function variant(name: string, change: (folder: string) => Promise<void>): Promise<string> {
    const folder = join(scratch, name);
    await cp(FULL, folder, { recursive: true });
    await change(folder);
    return folder;
  }

  it('is refused without meta.csv', async () => {
    const folder = await variant('no-meta', (f) => rm(join(f, 'meta.csv')));
    const files = await openRegistryFiles(folder);
    await expect(readKboFull(files)).rejects.toThrow(/has no meta\.csv/);
  });

  /** The file with the first entity's rows moved to the end (each entity's rows kept in their order). */
  async function firstEntityLast(folder: string, name: string): Promise<void> {
    const [header, ...rows] = (await readFile(join(folder, name), 'utf8')).trimEnd().split(/\r?\n/);
    const first = rows[0]!.split(',')[0];
    const moved = rows.filter((row) => row.split(',')[0] === first);
    const kept = rows.filter((row) => row.split(',')[0] !== first);
    await writeFile(join(folder, name), [header, ...kept, ...moved, ''].join('\n'));
  }

  it.each(['contact.csv', 'activity.csv', 'establishment.csv', 'denomination.csv', 'address.csv'])(
    'sorts %s on disk when it is out of entity order, and gives the same items',
    async (name) => {
      const folder = await variant(`out-of-order-${name}`, (f) => firstEntityLast(f, name));
      expect(await convert(folder)).toEqual(await convert(FULL));
      // Read again, the sorted copy as raw records.
      const again = await readAgain(folder);
      expect(again.items).toEqual(await convert(FULL));
      expect([...again.versions]).toEqual([expect.stringMatching(RECORDS)]);
    },
  );

  it.each([
    ['a stray quote inside a bare field', '"0403.170.701","2","003",Bakkerij "De Zon"'],
    ['text after a closing quote', '"0403.170.701","2","003","Bakkerij" De Zon'],
    [
      'a bare line feed in a CRLF file',
      '"0403.170.701","2","003","Bakkerij De Zon"\n"0403.170.701","1","003","Boulangerie"',
    ],
  ])(
    'is read again parsed when a file holds %s (its quoting not plain), to the very items',
    async (_, row) => {
      const folder = await variant(`not-plain-${row.length}`, async (f) => {
        const name = join(f, 'denomination.csv');
        const [header, first, ...rest] = (await readFile(name, 'utf8')).split('\r\n');
        // After the first row, in entity order (0200… < 0403…).
        await writeFile(name, [header, first, row, ...rest].join('\r\n'));
      });
      const items = await convert(folder);
      expect(JSON.stringify(items)).toMatch(/Bakkerij/);
      const again = await readAgain(folder);
      expect(again.items).toEqual(items);
      expect([...again.versions]).toEqual(['kbo-map-2']);
    },
  );

  it('sorts enterprise.csv when it is out of order, handing on each enterprise once, with its own line', async () => {
    const folder = await variant('out-of-order-enterprises', (f) => firstEntityLast(f, 'enterprise.csv'));
    const items = await convert(folder);
    const lineOf = (i: RegistryItem) => (i.kind === 'unit' ? i.unit.source : i.source).line;
    // The first enterprise (line 2) moved to the last line (11): the others each moved up a line.
    const expected = (await convert(FULL)).map((item) => {
      const line = lineOf(item) === 2 ? 11 : lineOf(item) - 1;
      return item.kind === 'unit'
        ? { ...item, unit: { ...item.unit, source: { ...item.unit.source, line } } }
        : { ...item, source: { ...item.source, line } };
    });
    const byLine = (a: RegistryItem, b: RegistryItem) => lineOf(a) - lineOf(b);
    expect([...items].sort(byLine)).toEqual(expected.sort(byLine));
    // In the sorted copy's order (by number), each with its line in the file as given.
    expect(items.map(lineOf)).toEqual([11, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await readAgain(folder)).items).toEqual(items);
  });
});

describe('the KBO converter over ugly but valid denominations', () => {
  /** A quoted field, its quotes doubled. */
  const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`;
  const COLUMNS = ['EntityNumber', 'Language', 'TypeOfDenomination', 'Denomination', 'Remark'];

  it('keeps every name with its quotes, commas and line breaks, and each enterprise its own line, in any column order and line ending, read again alike', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc
            .array(fc.constantFrom('a', 'Z', ' ', ',', '"', '\n', '\r\n', 'é', '€'), {
              minLength: 1,
              maxLength: 10,
            })
            .map((parts) => parts.join(''))
            .filter((name) => name.trim() !== ''),
          { minLength: 3, maxLength: 3 },
        ),
        // The file's columns in any order, with a column the converter does not read or without it.
        fc.shuffledSubarray([0, 1, 2, 3, 4], { minLength: 5, maxLength: 5 }),
        fc.boolean(),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        async (names, order, remark, eol, bom) => {
          const folder = join(scratch, `ugly-${run++}`);
          await cp(FULL, folder, { recursive: true });
          const numbers = ['0403.170.701', '0410.000.093', '0712.345.630'];
          const columns = order.filter((column) => remark || column !== 4);
          const rows = names.map((name, i) => [numbers[i]!, '2', '001', name, 'x, "y"']);
          const line = (values: string[]) => columns.map((column) => quoted(values[column]!)).join(',');
          await writeFile(
            join(folder, 'denomination.csv'),
            (bom ? '\ufeff' : '') + [line(COLUMNS), ...rows.map(line), ''].join(eol),
          );
          const items = await convert(folder);
          expect(numbers.map((n) => unitOf(items, n).fields.name)).toEqual(names.map((name) => name.trim()));
          expect(unitOf(items, '0712.345.630').source.line).toBe(6);
          // Read again as raw records (the quoting is plain), to the very items.
          const again = await readAgain(folder);
          expect(again.items).toEqual(items);
          expect([...again.versions]).toEqual([expect.stringMatching(RECORDS)]);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('a KBO update extract given as a full one', () => {
  it('is refused', async () => {
    const files = await openRegistryFiles(join(FULL, '..', 'kbo-update'));
    await expect(readKboFull(files)).rejects.toThrow(/is a KBO update extract, not a full one/);
  });
});
