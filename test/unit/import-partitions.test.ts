/** How the import engine cuts a file (lib/import/partitions.ts, lib/import/engine.ts): by company. */
import { asOfOf } from '../../lib/import/engine';
import {
  MAX_PARTITIONS,
  numbered,
  partitionCount,
  partitionOf,
  PARTITION_BYTES,
  unnumbered,
} from '../../lib/import/partitions';

const line = (fields: Record<string, unknown>) => JSON.stringify({ name: 'x', ...fields });

describe('partitions', () => {
  it('send every line of one company to one partition, in whatever form its number is written', () => {
    const forms = ['0403170701', '0403.170.701', 'BE0403170701', '403170701', ' 0403 170 701 '];
    for (const partitions of [2, 7, 64, 1000]) {
      const seen = new Set(
        forms.map((companyNumber, i) =>
          partitionOf(line({ country: 'BE', companyNumber }), partitions, i + 1),
        ),
      );
      expect(seen.size).toBe(1);
      // Wherever the line is in the file.
      expect(partitionOf(line({ country: 'be', companyNumber: '0403170701' }), partitions, 999)).toBe(
        [...seen][0],
      );
    }
  });

  it('spread companies evenly', () => {
    const counts = new Array<number>(8).fill(0);
    for (let n = 0; n < 8000; n++) {
      counts[partitionOf(line({ country: 'NL', companyNumber: String(10_000_000 + n) }), 8, n + 1)]!++;
    }
    for (const count of counts) expect(count).toBeGreaterThan(850);
  });

  it('place a line that names no valid company by its line number (it is rejected wherever it goes)', () => {
    expect(partitionOf('not json', 4, 7)).toBe(3);
    expect(partitionOf('[1,2]', 4, 8)).toBe(0);
    expect(partitionOf(line({ country: 'DE', companyNumber: '0403170701' }), 4, 9)).toBe(1);
    expect(partitionOf(line({ country: 'BE', companyNumber: '0403170702' }), 4, 10)).toBe(2);
    expect(partitionOf('x'.repeat(300 * 1024), 4, 11)).toBe(3);
  });

  it('are sized by the file, gzip counted as about eight times its size, within bounds', () => {
    expect(partitionCount(0, false)).toBe(1);
    expect(partitionCount(PARTITION_BYTES, false)).toBe(1);
    expect(partitionCount(PARTITION_BYTES + 1, false)).toBe(2);
    expect(partitionCount(PARTITION_BYTES, true)).toBe(8);
    expect(partitionCount(1e12, false)).toBe(MAX_PARTITIONS);
  });

  it('keep each line as it was, with its number, tabs and all', () => {
    const text = '{"name":"A\\tB"}\t{"tail":true}';
    expect(unnumbered(numbered(12345, text))).toEqual({ line: 12345, text });
  });
});

describe('the as-of date of a dropped file', () => {
  it('is its folder under incoming/, else the day the run started', () => {
    const started = '2026-11-22T05:01:02.345Z';
    expect(asOfOf('incoming/2026-11-20/companies.jsonl.gz', started)).toBe('2026-11-20');
    expect(asOfOf('incoming/companies.jsonl', started)).toBe('2026-11-22');
    expect(asOfOf('incoming/2026-02-30/companies.jsonl', started)).toBe('2026-11-22');
    expect(asOfOf('incoming/latest/2026-11-20.jsonl', started)).toBe('2026-11-22');
  });
});
