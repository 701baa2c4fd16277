/**
 * `npm run bench`: cold init and CPU per warm call of every function, each held against a floor built
 * the same way from the same public packages and measured in the same run (the closest DynamoDB calls
 * made bare, or none: bundles.ts, floor-sources.ts, list-floors.ts), on DynamoDB Local. Prints tables, writes bench-results.json.
 * Figures only: it exits 0 whatever they are, and non-zero only when the benchmark itself breaks.
 *
 * What is judged, and why:
 * - Cold init WITHOUT the time the first call had a DynamoDB request in flight: module load + the
 *   first request's own work. DynamoDB Local's 40–55 ms of service time would otherwise sit in both
 *   the function's and the floor's figure and pull every ratio towards 1. Printed as wall time (total
 *   minus in-flight) and as process CPU over load and first request; judged on the CPU, which a busy
 *   machine does not inflate (wall time there is mostly waiting for a core). The total is printed too.
 * - CPU per warm call (process CPU, process.cpuUsage around each call), not wall time outside calls:
 *   work done while a parallel call is in flight is still work.
 * - Paired rounds: in each round a function and its floor run back to back (taking turns at going
 *   first), and the verdict is the median of the per-round ratios, printed with its interquartile
 *   range [Q1–Q3]. Load from other processes on the machine hits both halves of a pair alike.
 * The cases (events, floor, budget class) are in cases.ts, one per route id; the bundles in bundles.ts, the
 * child processes that run them in processes.ts (their scripts in runners.ts), the figures and budgets in
 * figures.ts, the pairs and their paired rounds in pairing.ts, the data and the processes'
 * environment in bench-data.ts, the tables and bench-results.json in report.ts. main() below reads top-down: set up, load, measure, report.
 *
 *   npm run bench                                   21 rounds cold and warm, 20 calls per warm round
 *   npm run bench -- --rounds 41 --calls 40         steadier medians, slower
 *   npm run bench -- --only getLists,authorizer     some functions only (while working on them)
 *   npm run bench -- --floor sdk                    floors of the SDK's clients and middy's core only, as
 *                                                   they were before they loaded every public package (floors.ts)
 *   npm run bench -- --only getHealth --instructions  instead of timing, the instructions of one cold run
 *                                                   of each function, its floor and an empty bundle,
 *                                                   counted by valgrind (instructions.ts)
 *   npm run bench -- --only authorizer --profile /tmp/p   and a CPU profile of each warm process
 *                                                   (<id>.function.cpuprofile, <id>.floor.cpuprofile)
 *                                                   and of the last cold round (<id>.fn.cold.cpuprofile, …)
 *   DYNAMODB_ENDPOINT=http://localhost:8000 npm run bench   an existing DynamoDB Local (own table, dropped after)
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bundlingSettings } from '../../infra/bundling';
import { childEnvironment, loadData, selectFunctions } from './bench-data';
import { buildFloors, buildFunctions } from './bundles';
import { sdkOnly } from './floors';
import { BULK_SIZE, COMPANIES, type BenchCase, type FunctionId } from './bench-case';
import { BENCH_CASES } from './cases';
import { BUDGET, functionFigures } from './figures';
import { countInstructions, printInstructions, requireValgrind } from './instructions';
import { benchDynamoDb, type BenchDynamoDb } from './local-dynamodb';
import { measureCold, measureWarm, WARMUP_CALLS, WorkDir, writePair, type RoundOptions } from './pairing';
import { printTables, progress, writeResults } from './report';
import { COLD_RUNNER, WARM_RUNNER } from './runners';
import { kb, round } from './statistics';

const STARTING_ENV = { ...process.env };

const DEFAULT_ROUNDS = 21;
/** Calls per warm round: a single GET costs about 1 ms of CPU, and fewer calls leave the ratio to chance. */
const DEFAULT_CALLS = 20;

const CASES: Record<FunctionId, BenchCase> = BENCH_CASES;

interface Options extends RoundOptions {
  /** The function ids given to --only, or undefined for every function. */
  only: string[] | undefined;
  /** --floor sdk: floors that load the SDK's clients and middy's core only (floors.ts `sdkOnly`). */
  sdkFloors: boolean;
  /** --instructions: count a cold run's instructions (instructions.ts) instead of timing the rounds. */
  instructions: boolean;
}

/** Runs the functions' bench; true when it ran all of them (then the import bench follows). */
async function main(): Promise<boolean> {
  const started = performance.now();
  const options = readOptions();
  if (options.instructions) requireValgrind();
  const workDir = new WorkDir();
  const children = new Set<ChildProcess>();
  const tableName = `bench-${randomUUID()}`;
  let dynamoDb: BenchDynamoDb | undefined;
  try {
    // Set before anything loads the SDK (the storage client reads them when first imported).
    process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
    process.env['TABLE_NAME'] = tableName;
    process.env['AWS_REGION'] ??= 'local';

    progress('building bundles');
    const functionIds = selectFunctions(options.only);
    const functions = await buildFunctions(workDir.path);
    if (options.sdkFloors)
      for (const id of functionIds) functions[id].packages = sdkOnly(functions[id].packages);
    const floors = await buildFloors(
      workDir.path,
      functionIds.map((id) => ({ id, kind: CASES[id].floor, packages: functions[id].packages })),
      { complete: !options.sdkFloors },
    );

    dynamoDb = await benchDynamoDb({
      log: progress,
      onSignal: () => {
        for (const child of children) child.kill('SIGKILL');
        rmSync(workDir.path, { recursive: true, force: true });
      },
    });
    const { ensureTable } = await import('../../infra/local/dynamodb');
    await ensureTable(dynamoDb.endpoint, tableName);

    const data = await loadData(workDir, options.rounds, options.calls);
    for (const id of functionIds) await CASES[id].setup?.(data);

    const env = childEnvironment(tableName, dynamoDb.endpoint);
    const coldRunner = workDir.write('cold-runner.cjs', COLD_RUNNER);
    const warmRunner = workDir.write('warm-runner.cjs', WARM_RUNNER);
    const pairs = functionIds.map((id) => writePair(workDir, id, data, functions[id], floors));
    if (options.instructions) {
      printInstructions(await countInstructions(pairs, coldRunner, env, workDir));
      return false;
    }

    const cold = await measureCold(pairs, options, coldRunner, env);
    const warm = await measureWarm(pairs, options, warmRunner, env, children);

    const figures = pairs.map(({ id, benchCase, floor }) =>
      functionFigures(id, benchCase, cold.get(id)!, warm.get(id)!, functions[id].bytes, {
        name: floor.name,
        bytes: floor.subject.bytes,
      }),
    );
    const floorFigures = [...floors].map(([name, { bytes }]) => ({
      floor: name,
      bundleKb: round(kb(bytes), 1),
    }));
    const elapsedSeconds = round((performance.now() - started) / 1000, 1);
    printTables(figures, floorFigures, elapsedSeconds, { ...options, warmupCalls: WARMUP_CALLS });
    writeResults({
      generatedAt: new Date().toISOString(),
      environment: {
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        loadAverage: os.loadavg().map((l) => round(l)),
        dynamodb: dynamoDb.endpoint,
      },
      settings: {
        bundling: bundlingSettings,
        rounds: options.rounds,
        warmCallsPerRound: options.calls,
        warmupCalls: WARMUP_CALLS,
        companiesLoaded: COMPANIES,
        bulkCompanies: BULK_SIZE,
        kb: 1024,
      },
      budgets: BUDGET,
      functions: figures,
      floors: floorFigures,
      elapsedSeconds,
    });
    return !options.only;
  } finally {
    for (const child of children) child.kill('SIGKILL');
    dynamoDb?.stop();
    // On a shared DynamoDB (DYNAMODB_ENDPOINT given), leave nothing behind.
    if (dynamoDb?.shared) await dropTable(dynamoDb.endpoint, tableName);
    // With --profile the bundles and their source maps stay, to read the profiles against.
    if (options.profile) console.log(`Bundles (with source maps) kept in ${workDir.path}`);
    else rmSync(workDir.path, { recursive: true, force: true });
  }
}

function readOptions(): Options {
  const { values: args } = parseArgs({
    options: {
      rounds: { type: 'string' },
      calls: { type: 'string' },
      only: { type: 'string' },
      profile: { type: 'string' },
      floor: { type: 'string' },
      instructions: { type: 'boolean' },
    },
  });
  if (args.floor !== undefined && args.floor !== 'sdk' && args.floor !== 'all') {
    throw new Error('--floor is sdk (the SDK clients and middy core only) or all (every public package)');
  }
  const rounds = Number(args.rounds ?? DEFAULT_ROUNDS);
  const calls = Number(args.calls ?? DEFAULT_CALLS);
  if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(calls) || calls < 1) {
    throw new Error('--rounds and --calls must be positive integers');
  }
  return {
    rounds,
    calls,
    only: args.only?.split(','),
    profile: args.profile,
    sdkFloors: args.floor === 'sdk',
    instructions: args.instructions ?? false,
  };
}

async function dropTable(endpoint: string, tableName: string): Promise<void> {
  const { DeleteTableCommand } = await import('@aws-sdk/client-dynamodb');
  const { localClient } = await import('../../infra/local/dynamodb');
  const client = localClient(endpoint);
  await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  client.destroy();
}

/** `npm run bench:import`, in a process of its own (its own DynamoDB Local and memory figures). */
function runImportBench(): void {
  const child = spawnSync(process.execPath, [...process.execArgv, path.join(__dirname, 'import.ts')], {
    stdio: 'inherit',
    // As this process started: not the table and DynamoDB Local it set up (and has stopped).
    env: STARTING_ENV,
  });
  process.exitCode = child.status ?? 1;
}

main()
  .then((all) => all && runImportBench())
  .catch((error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  });
