/**
 * The import engine's state machines run locally (infra/import-engine.ts, lib/import/engine.ts): the
 * same steps in the same order, each under its worker's storage declaration, against DynamoDB Local and
 * a local S3 (test/support/local-s3.ts). A Distributed Map is every item at once.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { ImportFiles } from '../../lib/import/engine';
import {
  completeImportRun,
  importPartition,
  lookalikeWork,
  planImportLookalikes,
  splitImportFile,
} from '../../lib/import/engine';
import {
  computeLookalikeShard,
  finishLookalikes,
  planLookalikes,
  type LookalikePlan,
  type LookalikeShard,
} from '../../lib/lookalikes/fan-out';
import { workers } from '../../lib/routes';
import { withDeclaredAccess } from '../../lib/storage/access';
import { dynamodb } from '../../lib/storage/client';

/** A step as its worker runs on AWS: every storage call checked against the worker's declaration. */
export const underDeclaration = <T>(workerId: keyof typeof workers, run: () => Promise<T>) =>
  withDeclaredAccess(workers[workerId].storage, run);

export interface EngineOptions {
  partitions?: number;
  /** Subjects per lookalike shard (small, so a small file makes several shards). */
  shardSubjects?: number;
  /** Runs the lookalike shards one after the other, in plan order (the fault tests' order). */
  shardsInOrder?: boolean;
  /** Runs each shard's worker: `compute` is the worker (a fault test wraps one). */
  shardWorker?: (index: number, shard: LookalikeShard, compute: () => Promise<number>) => Promise<number>;
}

/** The import state machine over the file at `key`: split, partitions, lookalike plan and shards, complete. */
export async function runImportEngine(files: ImportFiles, key: string, options: EngineOptions = {}) {
  const run = { run: `test-${randomUUID().slice(0, 8)}`, key, startedAt: new Date().toISOString() };
  const split = await underDeclaration('importSplit', () =>
    splitImportFile(files, run, { partitions: options.partitions ?? 5 }),
  );
  await Promise.all(
    split.partitions.map((partition) =>
      underDeclaration('importPartition', () => importPartition(files, { ...split, partition })),
    ),
  );
  const plan = await underDeclaration('lookalikesPlan', () =>
    planImportLookalikes(files, {
      run: run.run,
      ...(options.shardSubjects ? { shardSubjects: options.shardSubjects } : {}),
    }),
  );
  await computeShards(files, run.run, plan, options);
  const done = await underDeclaration('importComplete', () => completeImportRun(files, split));
  return { run, split, plan, done };
}

/** The full lookalike job's state machine: every section planned, its shards, the finish. */
export async function runLookalikesJob(files: ImportFiles, options: EngineOptions = {}) {
  const run = `job-${randomUUID().slice(0, 8)}`;
  const dir = lookalikeWork(run);
  const plan = await underDeclaration('lookalikesPlan', () =>
    planLookalikes(files, {
      dir,
      mode: 'all',
      ...(options.shardSubjects ? { shardSubjects: options.shardSubjects } : {}),
    }),
  );
  await computeShards(files, run, plan, options);
  const marks = await underDeclaration('lookalikesFinish', () => finishLookalikes(files, { dir }));
  return { run, plan, marks };
}

/** The lookalike shards' Distributed Map. */
export async function computeShards(
  files: ImportFiles,
  run: string,
  plan: LookalikePlan,
  options: EngineOptions,
) {
  const dir = lookalikeWork(run);
  const worker = options.shardWorker ?? ((_, _shard, compute) => compute());
  const one = (shard: LookalikeShard, index: number) =>
    worker(index, shard, () =>
      underDeclaration('lookalikesShard', () => computeLookalikeShard(files, { dir, shard })),
    );
  if (options.shardsInOrder) for (const [index, shard] of plan.shards.entries()) await one(shard, index);
  else await Promise.all(plan.shards.map(one));
}

/**
 * Every item of the table, without what names the run that wrote it, nor the relationships items'
 * revisions (they count writes, which depend on how the companies were batched).
 */
export async function storedItems(table: string): Promise<string[]> {
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamodb().send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  // A run that ends whole marks itself done (lib/import/store.ts): one mark per partition's run.
  return items
    .filter((item) => item['entity'] !== 'ImportRunDone')
    .map(({ changeId: _run, rev: _rev, ...item }) => JSON.stringify(item, Object.keys(item).sort()))
    .map((text) => text.replace(/#[0-9a-f]{8}\.\d+"/g, '#<change>"'))
    .sort();
}
