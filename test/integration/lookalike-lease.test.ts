/**
 * One lookalike recompute at a time (lib/lookalikes/lease.ts) against DynamoDB Local and a local S3: a
 * recompute that planned from an older snapshot never leaves its lists over a newer one's, whichever
 * order the two write in, and a run that dies holding the lease only delays the next one. An import in
 * one process waits for a lease held by another recompute and returns with its lookalikes written; it
 * takes over at once the lease of a process of this host that is gone, never another holder's before
 * it expires.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { AsyncResource } from 'node:async_hooks';
import { hostname } from 'node:os';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { importBucket } from '../../lib/import/bucket';
import { completeImport } from '../../lib/import/derive';
import { getMarks } from '../../lib/lookalikes/block-store';
import { LEASE_MS, releaseLease, takeLease, type Clock } from '../../lib/lookalikes/lease';
import { recomputeAll, recomputeMarked } from '../../lib/lookalikes/recompute';
import { getLookalikesOf, unpackLookalikes } from '../../lib/lookalikes/store';
import { isolateRequestScopes } from '../../lib/request-scope';
import { chunk, getItem } from '../../lib/storage/batch';
import * as keys from '../../lib/storage/keys';
import { asImportWorkers } from '../support/import-access';
import { completeRun, importFile, lookalikeRounds, planRound } from '../support/import-engine';
import { useLocalS3 } from '../support/local-s3';
import { bareCompany, importRecords, period } from '../support/records';
import { useFreshTable } from '../support/table';

const BUCKET = 'company-data-lease';
// The tests' own storage calls run beside an import's, outside its workers' declaration (importWaiting).
isolateRequestScopes();
useLocalS3(BUCKET);
const table = useFreshTable();
jest.setTimeout(180_000);

/** NL company n of division 62 (section J, more companies than a list keeps), `employees` its size. */
const company = (n: number, employees = 1 + ((n * 7) % 90)): CompanyRecordInput => {
  const base = period(2024);
  return bareCompany(30_000_000 + n, {
    name: `Company ${n} B.V.`,
    place: ['Utrecht', 'Delft', 'Zwolle'][n % 3]!,
    activities: [['62010', '62020', '6203'][n % 3]!],
    foundedOn: `${1990 + (n % 30)}-01-01`,
    financials: [{ ...base, people: { ...base.people, employees } }],
  });
};
const COMPANIES = Array.from({ length: 130 }, (_, n) => company(n));
const refs = COMPANIES.map((c) => ({ country: 'NL' as const, companyNumber: c.companyNumber }));
const fileOf = (rows: CompanyRecordInput[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** Every company's stored list, by company. */
async function allLists(): Promise<Map<string, string>> {
  const lists = new Map<string, string>();
  for (const part of chunk(refs, 100)) {
    for (const [key, stored] of await getLookalikesOf(part))
      lists.set(key, JSON.stringify(unpackLookalikes(stored.packed, 0, 100)));
  }
  return lists;
}

/** The companies whose stored list differs from what a full recompute of the data as it is gives. */
async function staleLists(): Promise<string[]> {
  const stored = await allLists();
  await recomputeAll();
  const fresh = await allLists();
  return [...fresh].filter(([key, list]) => stored.get(key) !== list).map(([key]) => key);
}

const importInOneProcess = (records: CompanyRecordInput[]) => asImportWorkers(() => importRecords(records));
/** An import in one process whose completion, finding the lease held, leaves its marks to the holder. */
const importLeavingMarks = (records: CompanyRecordInput[]) =>
  asImportWorkers(() =>
    importRecords(records, { complete: () => completeImport({ lookalikes: { wait: false } }) }),
  );
/**
 * An import in one process whose completion waits for a held lease with `sleep` between two tries
 * (instead of a timer: the test frees or expires the lease there, outside the workers' declaration),
 * on `clock`.
 */
function importWaiting(records: CompanyRecordInput[], sleep: () => Promise<void>, clock?: Clock) {
  const outside = AsyncResource.bind(sleep);
  return asImportWorkers(() =>
    importRecords(records, {
      complete: () =>
        completeImport({ lookalikes: { ...(clock ? { clock } : {}), wait: { sleep: outside } } }),
    }),
  );
}
const lease = () => getItem(table.name, keys.lookalikeLease());
const holderNow = async () => (await lease())?.['holder'];
/** A one-process holder name (lib/lookalikes/lease.ts `processHolder`) for `pid` on `host`. */
const processHolder = (pid: number, host = hostname()) => `process-${host}-${pid}-${randomUUID()}`;

/** The JSON lines the recompute wrote on stderr while `run` ran. */
async function logged<T>(
  run: () => Promise<T>,
): Promise<{ result: T; lines: Array<Record<string, unknown>> }> {
  const lines: Array<Record<string, unknown>> = [];
  const spy = jest.spyOn(console, 'error').mockImplementation((text: unknown) => {
    if (typeof text === 'string' && text.startsWith('{'))
      lines.push(JSON.parse(text) as Record<string, unknown>);
  });
  try {
    return { result: await run(), lines };
  } finally {
    spy.mockRestore();
  }
}

/** The id of a process that ran here and has ended (and was reaped): nothing answers to it now. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '']);
    child.on('error', reject);
    child.on('exit', () => resolve(child.pid!));
  });
}

beforeAll(async () => {
  await importInOneProcess(COMPANIES);
});

describe('one lookalike recompute at a time', () => {
  it("keeps an import's change that completes while a full job planned before it writes its lists", async () => {
    const files = importBucket(BUCKET);
    // The full job plans: every section's snapshot, as it is now.
    const job = await planRound(files, 'job-1', 'all', 1);
    expect(job).toMatchObject({ planned: true, round: 1, subjects: 130 });
    // An import grows two companies; its completion finds the lease held and leaves its marks.
    const summary = await importLeavingMarks([company(20, 3000), company(21, 2500)]);
    expect(summary.changed).toBe(2);
    expect((await getMarks()).flatMap((m) => m.changes.map((c) => c.company.companyNumber))).toEqual([
      '30000020',
      '30000021',
    ]);

    // The full job's shards write lists from its snapshot, and its finish finds the marks: one more round.
    const { plans, finishes } = await lookalikeRounds(files, 'job-1', 'all', {}, job);

    expect(plans.map((p) => [p.round, p.planned, p.marks])).toEqual([
      [1, true, 0],
      [2, true, 1],
    ]);
    expect(finishes.map((f) => f.again)).toEqual([true, false]);
    expect(await getMarks()).toEqual([]);
    expect(await lease()).toBeUndefined();
    expect(await staleLists()).toEqual([]);
  });

  it('keeps the later of two imports whose completions interleave: the first planned, the second wrote', async () => {
    const files = importBucket(BUCKET);
    await files.write('incoming/2026-11-21/a.jsonl', fileOf([company(30, 2000)]));
    await files.write('incoming/2026-11-21/b.jsonl', fileOf([company(31, 1500), company(30, 5)]));
    // Import A's partitions, then its plan (a snapshot with company 30 grown).
    const a = await importFile(files, 'incoming/2026-11-21/a.jsonl', { partitions: 2 });
    const planA = await planRound(files, a.run, 'marked', 1);
    expect(planA.planned).toBe(true);
    // Import B changes company 30 back and grows 31; its plan finds A's lease and plans nothing …
    const b = await importFile(files, 'incoming/2026-11-21/b.jsonl', { partitions: 2 });
    const roundsB = await lookalikeRounds(files, b.run, 'marked');
    expect(roundsB.plans).toEqual([expect.objectContaining({ planned: false, heldBy: a.run })]);
    expect(roundsB.finishes).toEqual([]);
    // … and B's run completes, its report written, its marks left.
    expect((await completeRun(files, b)).summary.changed).toBe(2);
    expect(await getMarks()).not.toEqual([]);

    // A writes what it planned, then takes B's marks in a second round.
    const roundsA = await lookalikeRounds(files, a.run, 'marked', {}, planA);
    await completeRun(files, a);

    expect(roundsA.plans.map((p) => [p.round, p.planned])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(await getMarks()).toEqual([]);
    expect(await lease()).toBeUndefined();
    expect(await staleLists()).toEqual([]);
  });

  it('lets the next recompute take over the lease of a run that died, with the marks it left', async () => {
    const files = importBucket(BUCKET);
    let now = Date.now();
    const clock = () => now;
    // An import cut off before its completion; a run takes the lease, plans its mark, and dies (no
    // shard, no finish).
    await asImportWorkers(() => importRecords([company(40, 4000)], { complete: async () => undefined }));
    const dead = await planRound(files, 'dead-run', 'marked', 1, { clock });
    expect(dead).toMatchObject({ planned: true, marks: 1 });
    expect(dead.shards.length).toBeGreaterThan(0);
    // A change while it holds the lease: its completion leaves its mark beside the dead run's.
    expect((await importLeavingMarks([company(41, 3500)])).changed).toBe(1);
    expect(await getMarks()).toHaveLength(2);
    const heldUntil = new Date(now + LEASE_MS).toISOString();
    expect(await recomputeMarked({ clock, wait: false })).toMatchObject({
      rounds: 0,
      heldBy: 'dead-run',
      heldUntil,
    });

    // Past its expiry the next recompute takes the lease and the mark.
    now += LEASE_MS + 1;
    const summary = await recomputeMarked({ clock });

    expect(summary).toMatchObject({ rounds: 1 });
    expect(summary.companies).toBeGreaterThan(0);
    expect(await getMarks()).toEqual([]);
    expect(await lease()).toBeUndefined();
    expect(await staleLists()).toEqual([]);
    // The dead run's lease is gone: a step of it now writes nothing.
    expect(await takeLease('another', clock)).toBeUndefined();
    await expect(lookalikeRounds(files, 'dead-run', 'marked', { clock }, dead)).rejects.toThrow(
      'taken over by another recompute',
    );
    await releaseLease('another');
  });
});

describe('an import in one process and a held lease', () => {
  afterEach(async () => {
    expect(await getMarks()).toEqual([]);
    expect(await lease()).toBeUndefined();
    expect(await staleLists()).toEqual([]);
  });

  it('waits for a live holder, then recomputes its own marks before it returns', async () => {
    // This test's own process: a holder of this host that is alive.
    const live = processHolder(process.pid);
    expect(await takeLease(live)).toBeUndefined();
    const seen: unknown[] = [];
    const { result, lines } = await logged(() =>
      importWaiting([company(50, 4200), company(51, 3)], async () => {
        seen.push(await holderNow());
        // Held through three tries; then the holder ends.
        if (seen.length === 3) await releaseLease(live);
      }),
    );

    expect(result.changed).toBe(2);
    expect(seen).toEqual([live, live, live]);
    // Said once, whom it waits for and until when.
    expect(lines.filter((l) => String(l['message']).startsWith('waiting'))).toEqual([
      expect.objectContaining({
        level: 'INFO',
        message: expect.stringMatching(
          new RegExp(
            `^waiting for the lookalike recompute of ${live} \\(lease until \\d{4}-\\d{2}-\\d{2}T.*Z\\)$`,
          ),
        ),
        heldBy: live,
      }),
    ]);
  });

  it('stops waiting once the holder took its marks: the holder recomputed them', async () => {
    const files = importBucket(BUCKET);
    const job = await planRound(files, 'job-2', 'all', 1);
    expect(job.planned).toBe(true);
    let rounds: Awaited<ReturnType<typeof lookalikeRounds>> | undefined;
    let tries = 0;
    const { result } = await logged(() =>
      importWaiting([company(52, 2800)], async () => {
        tries++;
        // The full job writes its lists, and its re-check takes the import's marks in a second round.
        rounds ??= await lookalikeRounds(files, 'job-2', 'all', {}, job);
      }),
    );

    expect(result.changed).toBe(1);
    expect(tries).toBe(1);
    expect(rounds!.plans.map((p) => [p.round, p.planned, p.marks])).toEqual([
      [1, true, 0],
      [2, true, 1],
    ]);
  });

  it('takes over at once the lease of a process of this host that is gone: the import run again ends up current', async () => {
    // An import cut off after its companies were written, while its recompute held the lease: its
    // process is gone, its marks and its lease are left.
    await asImportWorkers(() => importRecords([company(53, 3300)], { complete: async () => undefined }));
    expect(await getMarks()).toHaveLength(1);
    const dead = processHolder(await deadPid());
    expect(await takeLease(dead)).toBeUndefined();

    // The same import run again, at once: nothing changes, and its completion takes the lease over
    // without waiting and recomputes what the cut-off run marked.
    const { result, lines } = await logged(() =>
      importWaiting([company(53, 3300)], () =>
        Promise.reject(new Error('waited for a process that is gone')),
      ),
    );

    expect(result).toMatchObject({ changed: 0, unchanged: 1 });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'INFO',
        message: `took over the lookalike lease of ${dead}: its process is gone`,
      }),
    );
  });

  it.each([
    ['a process of another host', 56, async () => processHolder(await deadPid(), `not-${hostname()}`)],
    ['an import engine run', 57, async () => `import-2026-11-21-${randomUUID()}`],
  ])('leaves the lease of %s until it expires, then takes it', async (_, n, holderName) => {
    const holder = await holderName();
    let now = Date.now();
    const clock = () => now;
    expect(await takeLease(holder, clock)).toBeUndefined();
    const seen: unknown[] = [];
    const { result } = await logged(() =>
      importWaiting(
        [company(n, 4800)],
        async () => {
          seen.push(await holderNow());
          // Held through three tries; then past its expiry (the holder gone, its lease never renewed).
          if (seen.length === 3) now += LEASE_MS + 1;
        },
        clock,
      ),
    );

    expect(result.changed).toBe(1);
    expect(seen).toEqual([holder, holder, holder]);
  });
});
