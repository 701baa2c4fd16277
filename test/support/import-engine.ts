/**
 * The import engine's state machines run locally (infra/import-engine.ts, lib/import/engine.ts): the
 * same steps in the same order, each under its worker's storage declaration, against DynamoDB Local and
 * a local S3 (test/support/local-s3.ts). A Distributed Map is every item at once; the lookalike steps
 * loop as the state machines' choices do (`lookalikeRounds`).
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  importFilingPartition,
  splitFilingDrop,
  type FilingSplit,
  type FilingSplitOptions,
} from '../../lib/filings/engine';
import type { ImportFiles, ImportRun, SplitFile } from '../../lib/import/engine';
import { completeImportRun, importPartition, lookalikeWork, splitImportFile } from '../../lib/import/engine';
import {
  importRegistryPartition,
  splitRegistryDrop,
  type RegistrySplit,
  type RegistrySplitInput,
  type RegistrySplitOptions,
} from '../../lib/import/registry-engine';
import {
  computeLookalikeShard,
  finishLookalikes,
  planLookalikes,
  type LookalikeFinish,
  type LookalikePlan,
  type LookalikeShard,
} from '../../lib/lookalikes/fan-out';
import {
  IMPORT_LEASE_HELD,
  importRunStep,
  releaseImportRunLease,
  splitFreesLease,
} from '../../lib/import/lease';
import type { Clock } from '../../lib/lookalikes/lease';
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
  /** The steps' clock (the lease's expiry): a test turns it forward instead of waiting. */
  clock?: Clock;
  /** Told each time an import step found the import lease held by another run (and will be tried again). */
  onLeaseHeld?: (run: string, error: Error) => void;
}

/** How long the local state machine waits before it tries again a step that found the import lease held. */
const LEASE_RETRY_MS = 50;

/**
 * A step of the import state machine: its worker's declaration, under the run's import lease
 * (lib/import/lease.ts `importRunStep`, as functions/import-*.ts run it). A step that finds the lease
 * held by another run is tried again, as the state machine's Retry on ImportLeaseHeld does.
 */
export async function importStep<T>(
  workerId: 'importSplit' | 'importPartition',
  run: string,
  work: () => Promise<T>,
  options: EngineOptions & { release?: boolean | ((result: T) => boolean) } = {},
): Promise<T> {
  for (;;) {
    try {
      return await underDeclaration(workerId, () =>
        importRunStep(run, work, {
          release: options.release ?? false,
          ...(options.clock ? { clock: options.clock } : {}),
        }),
      );
    } catch (error) {
      if (!(error instanceof Error) || error.name !== IMPORT_LEASE_HELD) throw error;
      options.onLeaseHeld?.(run, error);
      await new Promise((resolve) => setTimeout(resolve, LEASE_RETRY_MS));
    }
  }
}

/** The import state machine over the file at `key`: split, partitions, lookalike rounds, complete. */
export async function runImportEngine(files: ImportFiles, key: string, options: EngineOptions = {}) {
  const split = await importFile(files, key, options);
  const { plans, finishes } = await lookalikeRounds(files, split.run, 'marked', options);
  const done = await completeRun(files, split);
  return {
    run: { run: split.run, key, startedAt: split.startedAt },
    split,
    plan: plans[0]!,
    plans,
    finishes,
    done,
  };
}

/** The import state machine's first steps: the file split and its partitions imported. */
export async function importFile(files: ImportFiles, key: string, options: EngineOptions = {}) {
  const run = { run: `test-${randomUUID().slice(0, 8)}`, key, startedAt: new Date().toISOString() };
  const split = await importStep(
    'importSplit',
    run.run,
    () => splitImportFile(files, run, { partitions: options.partitions ?? 5 }),
    { ...options, release: splitFreesLease },
  );
  await Promise.all(
    split.partitions.map((partition) =>
      importStep('importPartition', run.run, () => importPartition(files, { ...split, partition }), options),
    ),
  );
  await releaseLease(run.run);

  return split;
}

/**
 * The import state machine over a registry's drop at `key` (lib/import/registry-engine.ts): the split,
 * asked again while it answers `wait` (each time `wait` says how; the state machine waits a minute);
 * SIRENE's ranges split at once, then gathered; then, when it split, the partitions, the lookalike
 * rounds and the completion.
 */
export async function runRegistryDrop(
  files: ImportFiles,
  key: string,
  options: EngineOptions &
    RegistrySplitOptions & { wait?: (answer: RegistrySplit) => Promise<void> | void } = {},
) {
  const run: ImportRun = {
    run: `test-${randomUUID().slice(0, 8)}`,
    key,
    startedAt: new Date().toISOString(),
  };
  const answers: RegistrySplit[] = [];
  let split: RegistrySplit;
  let input: RegistrySplitInput = run;
  for (;;) {
    const asked: RegistrySplitInput = input;
    split = await importStep(
      'importSplit',
      run.run,
      (): Promise<RegistrySplit> => splitRegistryDrop(files, asked, options),
      { ...options, release: splitFreesLease },
    );
    answers.push(split);
    if (split.status === 'wait') await options.wait?.(split);
    else if (split.status === 'ranges') {
      // The ranges' Distributed Map, then the gathering.
      const { ranges, establishments, note } = split;
      await Promise.all(
        ranges.map((range) =>
          importStep('importSplit', run.run, () =>
            splitRegistryDrop(files, { ...run, range, establishments }, options),
          ),
        ),
      );
      input = { ...run, gather: true, note };
    } else break;
  }
  if (split.status !== 'split') return { run, answers, split, done: null };
  const file = split;
  const reports = await Promise.all(
    file.partitions.map((partition) =>
      importStep(
        'importPartition',
        run.run,
        () => importRegistryPartition(files, { ...file, format: file.format as 'kbo' | 'sirene', partition }),
        options,
      ),
    ),
  );
  await releaseLease(run.run);

  await lookalikeRounds(files, run.run, 'marked', options);
  const done = await completeRun(files, file);
  return { run, answers, split: file, reports, done };
}

/**
 * The import state machine over filings dropped at `key` (lib/filings/engine.ts): the split, asked
 * again while it answers `wait`; then, when it split, the partitions, the lookalike rounds and the
 * completion.
 */
export async function runFilingDrop(
  files: ImportFiles,
  key: string,
  options: EngineOptions & FilingSplitOptions & { wait?: (answer: FilingSplit) => Promise<void> | void } = {},
) {
  const run: ImportRun = {
    run: `test-${randomUUID().slice(0, 8)}`,
    key,
    startedAt: new Date().toISOString(),
  };
  const answers: FilingSplit[] = [];
  let split: FilingSplit;
  for (;;) {
    split = await importStep('importSplit', run.run, () => splitFilingDrop(files, run, options), {
      ...options,
      release: splitFreesLease,
    });
    answers.push(split);
    if (split.status !== 'wait') break;
    await options.wait?.(split);
  }
  if (split.status !== 'split') return { run, answers, split, done: null };
  const file = split;
  const reports = await Promise.all(
    file.partitions.map((partition) =>
      importStep(
        'importPartition',
        run.run,
        () => importFilingPartition(files, { ...file, partition }),
        options,
      ),
    ),
  );
  await releaseLease(run.run);

  await lookalikeRounds(files, run.run, 'marked', options);
  const done = await completeRun(files, file);
  return { run, answers, split: file, reports, done };
}

/** The state after the partitions: the completion's worker frees the run's import lease. */
export const releaseLease = (run: string) =>
  underDeclaration('importComplete', () => releaseImportRunLease(run));

/** The import state machine's last step. */
export const completeRun = (files: ImportFiles, split: SplitFile<string>) =>
  underDeclaration('importComplete', () => completeImportRun(files, split));

/** The full lookalike job's state machine: every section planned, its shards, the finish, round after round. */
export async function runLookalikesJob(files: ImportFiles, options: EngineOptions = {}) {
  const run = `job-${randomUUID().slice(0, 8)}`;
  const { plans, finishes } = await lookalikeRounds(files, run, 'all', options);
  return { run, plan: plans[0]!, plans, finishes, marks: finishes[0]?.marks ?? 0 };
}

/** One plan step of `run` (the lookalikesPlan worker). */
export const planRound = (
  files: ImportFiles,
  run: string,
  mode: 'marked' | 'all',
  round: number,
  options: EngineOptions = {},
) =>
  underDeclaration('lookalikesPlan', () =>
    planLookalikes(files, {
      dir: lookalikeWork(run),
      mode,
      holder: run,
      round,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.shardSubjects ? { shardSubjects: options.shardSubjects } : {}),
    }),
  );

/**
 * The state machines' lookalike loop: plan; when it planned, its shards and the finish; back to the
 * plan while the finish says `again`. `first` is a plan already made (a test that interleaves another
 * run between a plan and its shards). A full job whose plan found the lease held stops there (the state
 * machine would wait and plan again).
 */
export async function lookalikeRounds(
  files: ImportFiles,
  run: string,
  mode: 'marked' | 'all',
  options: EngineOptions = {},
  first?: LookalikePlan,
): Promise<{ plans: LookalikePlan[]; finishes: LookalikeFinish[] }> {
  const plans: LookalikePlan[] = [];
  const finishes: LookalikeFinish[] = [];
  let plan = first ?? (await planRound(files, run, mode, 1, options));
  for (;;) {
    plans.push(plan);
    if (!plan.planned) break;
    await computeShards(files, run, plan, options);
    const { round } = plan;
    const finish = await underDeclaration('lookalikesFinish', () =>
      finishLookalikes(files, {
        dir: lookalikeWork(run),
        holder: run,
        round,
        ...(options.clock ? { clock: options.clock } : {}),
      }),
    );
    finishes.push(finish);
    if (!finish.again) break;
    plan = await planRound(files, run, mode, finish.round, options);
  }
  return { plans, finishes };
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
      underDeclaration('lookalikesShard', () =>
        computeLookalikeShard(files, {
          dir,
          shard,
          holder: run,
          ...(options.clock ? { clock: options.clock } : {}),
        }),
      ),
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
  // A run that ends whole marks itself done (lib/import/store.ts): one mark per partition's run. The
  // marks of batches whose match counts moved (lib/lists/store/match-counts.ts) name each batch: the
  // counts they moved are compared, not how the file was cut into batches. A registry digest names the
  // run that wrote it and a token of its own (lib/import/registry-digest.ts).
  return items
    .filter((item) => item['entity'] !== 'ImportRunDone' && item['entity'] !== 'MatchCountsApplied')
    .map(({ changeId: _run, rev: _rev, ...item }) =>
      item['entity'] === 'RegistryDigest' ? { ...item, run: '<run>', token: '<token>' } : item,
    )
    .map((item) => JSON.stringify(item, Object.keys(item).sort()))
    .map((text) => text.replace(/#[0-9a-f]{8}\.\d+"/g, '#<change>"'))
    .sort();
}
