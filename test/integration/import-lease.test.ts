/**
 * One import run at a time per stage (lib/import/lease.ts): two imports of one company started together
 * keep both imports' data; a run waits for another's lease and says whom it waits for; a dead holder's
 * lease expires, a dead process of this host is taken over at once; the lease is freed at a run's end,
 * also when it fails; an execution's step that finds it held fails with ImportLeaseHeld.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { CompanyRef } from '../../lib/companies/identifiers';
import { deriveChange } from '../../lib/import/derive';
import { IMPORT_LEASE, IMPORT_LEASE_HELD, IMPORT_LEASE_LOST, importRunStep } from '../../lib/import/lease';
import { importBucket } from '../../lib/import/bucket';
import { getItem } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { LEASE_MS, takeLease } from '../../lib/storage/lease';
import { getFeeds } from '../../lib/updates/store';
import { importRecords } from '../support/records';
import { ref as kboRef, registry, unit } from '../support/registry-units';
import { runImportEngine } from '../support/import-engine';
import { useLocalS3 } from '../support/local-s3';
import { bare, filing, importOf, storedOf } from '../support/filings';
import { useFreshTable } from '../support/table';

const BUCKET = 'company-data-imports';
useLocalS3(BUCKET);
useFreshTable();
jest.setTimeout(180_000);

const leaseItem = () => getItem(tableName(), keys.importLease());

/** Messages of the JSON lines written to stderr while `work` runs. */
async function stderrOf<T>(work: () => Promise<T>): Promise<{ result: T; messages: string[] }> {
  const messages: string[] = [];
  const spy = jest.spyOn(console, 'error').mockImplementation((line: unknown) => {
    const text = String(line);
    messages.push(text.startsWith('{') ? (JSON.parse(text) as { message: string }).message : text);
  });
  try {
    return { result: await work(), messages };
  } finally {
    spy.mockRestore();
  }
}

describe('two filing imports of one company at the same moment', () => {
  const PARALLEL: CompanyRef = { country: 'BE', companyNumber: '0412345614' };
  /** Five rounds, each two imports started together, each bringing another year. */
  const years = Array.from({ length: 10 }, (_, i) => `${2010 + i}-12-31`);
  const runRounds = async () => {
    await importRecords([bare(PARALLEL, 'Parallel Bouw NV')], { asOf: '2024-01-01' });
    for (let i = 0; i < years.length; i += 2)
      await Promise.all(
        [years[i]!, years[i + 1]!].map((end, j) =>
          importOf([filing(PARALLEL, end, '2024-06-01', i + j, 900_000)]),
        ),
      );
  };
  let rounds: Promise<void> | undefined;
  const ran = () => (rounds ??= runRounds());

  it('keep every update in the feed: each addition is its own attribute, added where the feed lacks it', async () => {
    await ran();
    const feed = (await getFeeds([PARALLEL])).get(`BE#${PARALLEL.companyNumber}`) ?? [];
    const published = feed.filter((u) => u.type === 'PUBLISHED_FINANCIALS').map((u) => u.time);
    expect(published).toHaveLength(years.length);
  });

  it('keep both imports’ periods on the company item', async () => {
    await ran();
    const ends = (await storedOf(PARALLEL)).record.financials.map((p) => p.endDate);
    expect(ends.sort()).toEqual(years);
  });
});

describe('imports of other kinds of one company at the same moment', () => {
  const years = Array.from({ length: 5 }, (_, i) => `${2015 + i}-12-31`);

  it('a JSON Lines import and a filing import: the company keeps the line’s name and every filing’s period', async () => {
    const company: CompanyRef = { country: 'BE', companyNumber: '0712345630' };
    // A twin given the same filings first: its periods are what a line exported after each round says.
    const twin: CompanyRef = { country: 'BE', companyNumber: '0555123476' };
    await importRecords([bare(company, 'Lines Round 0 NV'), bare(twin, 'Twin NV')], { asOf: '2024-01-01' });
    for (const [round, end] of years.entries()) {
      await importOf([filing(twin, end, '2024-06-01', round, 900_000)]);
      const periods = (await storedOf(twin)).record.financials;
      await Promise.all([
        importRecords([bare(company, `Lines Round ${round + 1} NV`, periods)], { asOf: '2024-01-01' }),
        importOf([filing(company, end, '2024-06-01', round, 900_000)]),
      ]);
      // In either order the line's name and both imports' periods stay.
      const { record } = await storedOf(company);
      expect(record.name).toBe(`Lines Round ${round + 1} NV`);
      expect(record.financials.map((p) => p.endDate).sort()).toEqual(years.slice(0, round + 1));
    }
  });

  it('a KBO registry change and a filing import: the company keeps the registry’s fields and every filing’s period', async () => {
    await registry([unit(7)]);
    const company = kboRef(7);
    for (const [round, end] of years.entries()) {
      await Promise.all([
        registry([unit(7, { name: `Registry Round ${round + 1} NV`, place: `Place ${round + 1}` })]),
        importOf([filing(company, end, '2024-06-01', round, 900_000)]),
      ]);
    }
    const { record } = await storedOf(company);
    expect(record.name).toBe(`Registry Round ${years.length} NV`);
    expect(record.place).toBe(`Place ${years.length}`);
    expect(record.financials.map((p) => p.endDate).sort()).toEqual(years);
  });
});

describe('the import lease', () => {
  const company: CompanyRef = { country: 'BE', companyNumber: '0654321022' };
  let round = 0;
  const importOnce = (options: Parameters<typeof importRecords>[1] = {}) =>
    importRecords([bare(company, `Lease Round ${++round} NV`)], { asOf: '2024-01-01', ...options });

  it('is free once the companies are written (the completions run after it), and after a run that failed', async () => {
    await importOnce({
      complete: async () => {
        expect(await leaseItem()).toBeUndefined();
      },
    });
    await expect(
      importOnce({
        onProgress: () => {
          throw new Error('progress failed');
        },
      }),
    ).rejects.toThrow('progress failed');
    expect(await leaseItem()).toBeUndefined();
  });

  it('held by another run: a run waits, says once whom it waits for and until when, and runs when it is freed', async () => {
    const other = `execution-${randomUUID()}`;
    expect(await takeLease(IMPORT_LEASE, other)).toBeUndefined();
    let slept = 0;
    const { messages } = await stderrOf(() =>
      importOnce({
        lease: {
          wait: {
            sleep: async () => {
              // Still held for two tries; then the other run ends.
              if (++slept === 3) await importRunStep(other, async () => undefined, { release: true });
            },
          },
        },
      }),
    );
    expect(slept).toBe(3);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(
      new RegExp(`^waiting for import ${other} \\(lease until \\d{4}-\\d{2}-\\d{2}T.*Z\\)$`),
    );
    expect((await storedOf(company)).record.name).toBe(`Lease Round ${round} NV`);
    expect(await leaseItem()).toBeUndefined();
  });

  it('held by a run that died: taken once expired, LEASE_MS after its last renewal', async () => {
    const dead = `execution-${randomUUID()}`;
    expect(await takeLease(IMPORT_LEASE, dead)).toBeUndefined();
    const started = Date.now();
    let now = started;
    const { messages } = await stderrOf(() =>
      importOnce({
        lease: {
          clock: () => now,
          wait: {
            sleep: async () => {
              now += LEASE_MS / 2;
            },
          },
        },
      }),
    );
    // Waited while the dead run's lease was within LEASE_MS of its last renewal, taken after.
    expect(now - started).toBeGreaterThanOrEqual(LEASE_MS);
    expect(messages).toEqual([expect.stringMatching(`^waiting for import ${dead} `)]);
    expect(await leaseItem()).toBeUndefined();
  });

  it('held by a dead process of this host: taken over at once', async () => {
    // A process that has ended: its pid is free.
    const { pid } = spawnSync(process.execPath, ['-e', '0']);
    const dead = `process-${hostname()}-${pid}-${randomUUID()}`;
    expect(await takeLease(IMPORT_LEASE, dead)).toBeUndefined();
    const sleep = jest.fn(async () => undefined);
    const { messages } = await stderrOf(() => importOnce({ lease: { wait: { sleep } } }));
    expect(sleep).not.toHaveBeenCalled();
    expect(messages).toEqual([`took over the import lease of ${dead}: its process is gone`]);
    expect(await leaseItem()).toBeUndefined();
  });

  it('taken over while a run stalled past its expiry: the run writes nothing more (ImportLeaseLost)', async () => {
    const [first, second] = ['0654321121', '0654321220'].map((companyNumber) => ({
      country: 'BE' as const,
      companyNumber,
    }));
    const other = `execution-${randomUUID()}`;
    let now = Date.now();
    let derived = 0;
    const clock = () => now;
    const run = importRecords([bare(first!, 'Written Before NV'), bare(second!, 'Never Written NV')], {
      batchSize: 1,
      concurrency: 1,
      lease: { clock },
      // Once the first company is written the run stalls past its lease's expiry, and another takes it.
      derive: async (change) => {
        if (++derived === 1) {
          now += LEASE_MS + 1;
          expect(await takeLease(IMPORT_LEASE, other, clock)).toBeUndefined();
        }
        return deriveChange(change);
      },
    });

    await expect(run).rejects.toMatchObject({ name: IMPORT_LEASE_LOST });
    expect((await storedOf(first!)).record.name).toBe('Written Before NV');
    expect(await getItem(tableName(), keys.company(second!))).toBeUndefined();
    expect(await leaseItem()).toMatchObject({ holder: other });
    await importRunStep(other, async () => undefined, { release: true });
  });

  it('not taken by another while a run stalled: the run renews it before it writes, and goes on', async () => {
    const [first, second] = ['0654321319', '0654321418'].map((companyNumber) => ({
      country: 'BE' as const,
      companyNumber,
    }));
    let now = Date.now();
    await importRecords([bare(first!, 'Stalled One NV'), bare(second!, 'Stalled Two NV')], {
      batchSize: 1,
      concurrency: 1,
      lease: { clock: () => now },
      onProgress: () => {
        now += LEASE_MS + 1;
      },
    });

    expect((await storedOf(second!)).record.name).toBe('Stalled Two NV');
    expect(await leaseItem()).toBeUndefined();
  });

  it('held by another run: an execution’s step fails with ImportLeaseHeld and does nothing', async () => {
    const holder = `execution-${randomUUID()}`;
    expect(await takeLease(IMPORT_LEASE, holder)).toBeUndefined();
    const work = jest.fn(async () => undefined);
    await expect(importRunStep('execution-second', work)).rejects.toMatchObject({
      name: IMPORT_LEASE_HELD,
      message: expect.stringContaining(`waits for import ${holder}`),
    });
    expect(work).not.toHaveBeenCalled();
    await importRunStep(holder, async () => undefined, { release: true });
    expect(await leaseItem()).toBeUndefined();
  });
});

describe('two executions of the import engine at the same moment', () => {
  it('run one after the other: the second waits (ImportLeaseHeld, retried) until the first freed the lease', async () => {
    const files = importBucket(BUCKET);
    const company: CompanyRef = { country: 'BE', companyNumber: '0412345614' };
    const keysOf = ['a', 'b'].map((name) => `incoming/2024-01-01/${name}.jsonl`);
    for (const [i, key] of keysOf.entries())
      await files.write(key, Buffer.from(JSON.stringify(bare(company, `Engine ${i} NV`)) + '\n'));
    const held: string[] = [];
    const runs = await Promise.all(
      keysOf.map((key) =>
        runImportEngine(files, key, {
          partitions: 2,
          onLeaseHeld: (_run, error) => held.push(error.message),
        }),
      ),
    );
    expect(runs.map((r) => r.done.summary.imported)).toEqual([1, 1]);
    // One of them waited for the other, named.
    expect(held.length).toBeGreaterThan(0);
    const names = runs.map((r) => r.run.run);
    expect(held.every((m) => names.some((n) => m.includes(`waits for import ${n}`)))).toBe(true);
    expect(await leaseItem()).toBeUndefined();
  });
});
