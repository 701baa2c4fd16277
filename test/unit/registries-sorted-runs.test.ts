/**
 * Records re-ordered by key on local disk (lib/import/sources/sorted-runs.ts), as the registry
 * converters join and sort with them: every record back in key order whatever the run size and
 * fan-in, a page of keys added at once, and runs merged once there are as many as the fan-in.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { SortedRuns } from '../../lib/import/sources/sorted-runs';

describe('sorted runs on disk', () => {
  it('gives back every record in key order, equal keys in the order added, whatever the run size and fan-in', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.stringMatching(/^[0-9]{1,3}$/), fc.integer()), { maxLength: 60 }),
        fc.integer({ min: 1, max: 10 }),
        // A small fan-in merges runs into bigger ones, and those again, before the final merge.
        fc.integer({ min: 2, max: 4 }),
        fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
        async (records, runSize, fanIn, runChars) => {
          const runs = new SortedRuns<number>({ runSize, fanIn, runChars });
          for (const [key, value] of records) await runs.add(key, value);
          const out: [string, number][] = [];
          for await (const record of runs.sorted()) out.push(record);
          const expected = records
            .map((r, i) => [r, i] as const)
            .sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]))
            .map(([r]) => r);
          expect(out).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('adds a page of keys with one value as a record a key: the same records in the same order, the same runs on disk', async () => {
    const runFiles = async (dir: string) =>
      (await readdir(dir, { recursive: true }))
        .filter((f) => f.includes('run-'))
        .map((f) => f.slice(f.lastIndexOf('run-')))
        .sort();
    const sorted = async (runs: SortedRuns<number>) => {
      const out: [string, number][] = [];
      for await (const record of runs.sorted()) out.push(record);
      return out;
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.stringMatching(/^[0-9]{1,3}$/), { maxLength: 12 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 10 }),
        async (pages, runSize) => {
          const [one, bulk] = await Promise.all([0, 1].map(() => mkdtemp(join(tmpdir(), 'sorted-keys-'))));
          try {
            const byOne = new SortedRuns<number>({ runSize, fanIn: 3, dir: one });
            const byPage = new SortedRuns<number>({ runSize, fanIn: 3, dir: bulk });
            for (const page of pages) {
              for (const key of page) await byOne.add(key, 7);
              await byPage.addKeys(page, 7);
            }
            expect(await runFiles(bulk!)).toEqual(await runFiles(one!));
            expect(await sorted(byPage)).toEqual(await sorted(byOne));
          } finally {
            await Promise.all([one, bulk].map((dir) => rm(dir!, { recursive: true, force: true })));
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('merges runs of one size into one once there are as many as the fan-in, so a merge reads few files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sorted-runs-'));
    try {
      const runs = new SortedRuns<number>({ runSize: 1, fanIn: 3, dir });
      const files = async () => (await readdir(dir, { recursive: true })).filter((f) => f.includes('run-'));
      for (let i = 0; i < 8; i++) await runs.add(String(9 - i), i);
      // 8 runs of one record: two merged runs of three, then two single ones.
      expect(await files()).toHaveLength(4);
      await runs.add('0', 8);
      // The ninth run makes three single ones, then three merged ones: one run of nine records.
      expect(await files()).toHaveLength(1);
      const out: number[] = [];
      for await (const [, value] of runs.sorted()) out.push(value);
      expect(out).toEqual([8, 7, 6, 5, 4, 3, 2, 1, 0]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
