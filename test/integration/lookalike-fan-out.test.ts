/**
 * The lookalike recompute as a fan-out (lib/lookalikes/fan-out.ts) as the state machines run it
 * (infra/import-engine.ts): planned in shards, the shards computed by workers, the marks dropped. Each
 * run must store exactly what one process stores (`npm run import`, `npm run lookalikes`), and a worker
 * killed after writing part of its shard must leave nothing that running again does not repair.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../infra/local/dynamodb';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { importBucket } from '../../lib/import/bucket';
import { importCompanies } from '../../lib/import/import';
import { LEASE_MS } from '../../lib/lookalikes/lease';
import { recomputeAll } from '../../lib/lookalikes/recompute';
import { batchDelete } from '../../lib/storage/batch';
import { dynamodb } from '../../lib/storage/client';
import { generateDemoData } from '../fixtures/demo-data/companies';
import { runImportEngine, runLookalikesJob, storedItems } from '../support/import-engine';
import { asImportWorkers } from '../support/import-access';
import { useLocalS3 } from '../support/local-s3';
import { useFreshTable } from '../support/table';

const BUCKET = 'company-data-lookalikes';
useLocalS3(BUCKET);
const engineTable = useFreshTable();
jest.setTimeout(240_000);

const AS_OF = '2026-11-20';
const records = generateDemoData({ companies: 300 });
/**
 * A second file: 60 companies take another company's activities (many change section), 20 another
 * name, the rest unchanged.
 */
const changedRecords: CompanyRecordInput[] = records.map((record, i) =>
  i < 60
    ? { ...record, activities: records[(i + 97) % records.length]!.activities }
    : i < 80
      ? { ...record, name: `${record.name} Renamed` }
      : record,
);
const fileOf = (rows: CompanyRecordInput[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** Runs `work` with the storage client on `table`. */
async function inTable<T>(table: string, work: () => Promise<T>): Promise<T> {
  const current = process.env['TABLE_NAME'];
  process.env['TABLE_NAME'] = table;
  try {
    return await work();
  } finally {
    process.env['TABLE_NAME'] = current;
  }
}

async function newTable(): Promise<string> {
  const table = `fan-out-${randomUUID()}`;
  await ensureTable(process.env['DYNAMODB_ENDPOINT']!, table);
  return table;
}

/** One process: `npm run import` of the records, its completion included. */
async function importInOneProcess(rows: CompanyRecordInput[]) {
  async function* lines() {
    for (const row of rows) yield JSON.stringify(row);
  }
  return asImportWorkers(() => importCompanies(lines(), { asOf: AS_OF }));
}

/**
 * Kills the worker that makes the next BatchWriteItem requests: `after` of them go through, every one
 * after fails, as when the worker dies or throws midway through writing its shard. Answers once the
 * requests that went through are done (a dead worker's requests in flight still land).
 */
let killAfter: number | null = null;
let passed: Array<Promise<unknown>> = [];
dynamodb().middlewareStack.add(
  (next, context) => async (args) => {
    if (/^BatchWrite/.test(context.commandName ?? '') && killAfter !== null) {
      if (passed.length >= killAfter) throw new Error('worker killed');
      const request = next(args);
      passed.push(request);
      return request;
    }
    return next(args);
  },
  { step: 'initialize', name: 'testKillSwitch' },
);
async function killedAfter<T>(writes: number, work: () => Promise<T>): Promise<T> {
  killAfter = writes;
  passed = [];
  try {
    return await work();
  } finally {
    killAfter = null;
    await Promise.allSettled(passed);
  }
}

/** Every stored lookalike list of `table`. */
async function lookalikeLists(table: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamodb().send(
      new ScanCommand({
        TableName: table,
        FilterExpression: 'sk = :sk',
        ExpressionAttributeValues: { ':sk': 'LOOKALIKES' },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

describe('the lookalike fan-out', () => {
  let reference: string;
  let firstImport: string[];

  beforeAll(async () => {
    reference = await newTable();
    firstImport = await inTable(reference, async () => {
      await importInOneProcess(records);
      return storedItems(reference);
    });
    await importBucket(BUCKET).write(`incoming/${AS_OF}/first.jsonl`, fileOf(records));
    await importBucket(BUCKET).write(`incoming/${AS_OF}/second.jsonl`, fileOf(changedRecords));
  });

  it('ends as one uninterrupted run when a worker dies midway and the file is dropped again', async () => {
    const files = importBucket(BUCKET);
    const table = await newTable();
    await inTable(table, async () => {
      // The first shard completes; the second dies after the first of its BatchWriteItem requests (25
      // items: lists), and the run fails there for good (no later shard, no completion), its marks left.
      let cut = { listsBefore: 0, subjects: 0 };
      const failed = runImportEngine(files, `incoming/${AS_OF}/first.jsonl`, {
        shardSubjects: 100,
        shardsInOrder: true,
        shardWorker: async (index, shard, compute) => {
          if (index !== 1) return compute();
          cut = { listsBefore: (await lookalikeLists(table)).length, subjects: shard.to - shard.from };
          return killedAfter(1, compute);
        },
      });
      await expect(failed).rejects.toThrow('worker killed');
      // The shard was cut midway: some of its lists written, not all.
      const written = (await lookalikeLists(table)).length - cut.listsBefore;
      expect(cut.listsBefore).toBeGreaterThan(0);
      expect(written).toBeGreaterThan(0);
      expect(written).toBeLessThan(cut.subjects);

      // The failed run still holds the lookalike lease: the file dropped again before it expires
      // imports, and leaves its lookalikes to the lease's holder …
      const early = await runImportEngine(files, `incoming/${AS_OF}/first.jsonl`, { shardSubjects: 40 });
      expect(early.plan).toMatchObject({ planned: false, heldBy: expect.stringMatching(/^test-/) });
      // … dropped again once it expired, the run takes the lease and the marks the failed run left.
      const expired = () => Date.now() + LEASE_MS + 1;
      const again = await runImportEngine(files, `incoming/${AS_OF}/first.jsonl`, {
        shardSubjects: 40,
        clock: expired,
      });
      expect(again.done.summary).toMatchObject({ unchanged: 300, created: 0 });
      // Its plan found the marks the failed run left.
      expect(again.plan.marks).toBeGreaterThan(0);
      expect(again.plan.subjects).toBe(records.length);
      expect(await storedItems(table)).toEqual(firstImport);
    });
  });

  it("recomputes a changed file's lookalikes in shards exactly as one process, a killed worker retried", async () => {
    const files = importBucket(BUCKET);
    const first = await runImportEngine(files, `incoming/${AS_OF}/first.jsonl`, { shardSubjects: 40 });
    expect(first.plan.subjects).toBe(records.length);
    expect(await storedItems(engineTable.name)).toEqual(firstImport);

    await inTable(reference, () => importInOneProcess(changedRecords));
    // Shard 2 dies after one BatchWriteItem request; the state machine retries it (the same shard).
    const second = await runImportEngine(files, `incoming/${AS_OF}/second.jsonl`, {
      shardSubjects: 40,
      shardsInOrder: true,
      shardWorker: (index, _shard, compute) =>
        index === 2 ? killedAfter(1, compute).catch(() => compute()) : compute(),
    });
    // A few companies took activities equal to their own: unchanged.
    expect(second.done.summary.changed).toBeGreaterThan(70);
    expect(second.done.summary.changed + second.done.summary.unchanged).toBe(300);
    expect(second.plan.shards.length).toBeGreaterThan(2);
    // The changed companies' lists and those they enter or leave: more than the 80 changed, not all.
    expect(second.plan.subjects).toBeGreaterThan(second.done.summary.changed);
    expect(await storedItems(engineTable.name)).toEqual(await storedItems(reference));
  });

  it('runs the full job in shards exactly as one process', async () => {
    const files = importBucket(BUCKET);
    // Every list gone (as in a table imported before lookalikes), in both tables.
    for (const table of [engineTable.name, reference]) {
      const lists = await lookalikeLists(table);
      expect(lists).toHaveLength(records.length);
      await inTable(table, () =>
        batchDelete(
          table,
          lists.map(({ pk, sk }) => ({ pk: pk as string, sk: sk as string })),
        ),
      );
    }
    await inTable(reference, () => recomputeAll());

    const { run, plan, marks } = await runLookalikesJob(files, { shardSubjects: 40 });

    expect(plan.subjects).toBe(records.length);
    expect(plan.shards.every(({ from, to }) => to - from <= 40)).toBe(true);
    expect(marks).toBe(0);
    expect(await storedItems(engineTable.name)).toEqual(await storedItems(reference));
    // Its work files are gone (a failed run's stay for the bucket's lifecycle rule).
    expect(await files.list(`work/${run}/`)).toEqual([]);
  });
});
