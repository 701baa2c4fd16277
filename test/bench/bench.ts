/**
 * `npm run bench`: cold init and CPU per warm call of every function, each held against a floor built
 * the same way from the same public packages and measured in the same run (the closest DynamoDB calls
 * made bare, or none: bundles.ts, runners.ts), on DynamoDB Local. Prints tables, writes bench-results.json.
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
 * figures.ts, the tables in report.ts. main() below reads top-down: set up, load, measure, report.
 *
 *   npm run bench                                   21 rounds cold and warm, 20 calls per warm round
 *   npm run bench -- --rounds 41 --calls 40         steadier medians, slower
 *   npm run bench -- --only getLists,authorizer     some functions only (while working on them)
 *   npm run bench -- --only authorizer --profile /tmp/p   and a CPU profile of each warm process
 *                                                   (<id>.function.cpuprofile, <id>.floor.cpuprofile)
 *                                                   and of the last cold round (<id>.fn.cold.cpuprofile, …)
 *   DYNAMODB_ENDPOINT=http://localhost:8000 npm run bench   an existing DynamoDB Local (own table, dropped after)
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bundlingSettings } from '../../infra/bundling';
import { functionEnvironment } from '../../infra/function';
import { buildFloors, buildFunctions, type FunctionBundle, type Subject } from './bundles';
import { BENCH_CASES, BULK_SIZE, COMPANIES, type BenchCase, type BenchData, type FunctionId } from './cases';
import { BUDGET, functionFigures, type ColdSamples, type WarmSamples } from './figures';
import { benchDynamoDb, type BenchDynamoDb } from './local-dynamodb';
import { runCold, startWarm } from './processes';
import { printTables } from './report';
import { COLD_RUNNER, floorName, WARM_RUNNER } from './runners';
import { kb, round } from './statistics';

const ROOT = path.join(__dirname, '..', '..');
const RESULTS_FILE = path.join(ROOT, 'bench-results.json');

const STARTING_ENV = { ...process.env };

const DEFAULT_ROUNDS = 21;
/** Calls per warm round: a single GET costs about 1 ms of CPU, and fewer calls leave the ratio to chance. */
const DEFAULT_CALLS = 20;
const WARMUP_CALLS = 10;

const CASES: Record<FunctionId, BenchCase> = BENCH_CASES;

interface Options {
  rounds: number;
  calls: number;
  /** The function ids given to --only, or undefined for every function. */
  only: string[] | undefined;
  /** --profile: where the warm processes write their CPU profiles. */
  profile: string | undefined;
}

/** One function with its floor: their bundles and the events files they are called with. */
interface Pair {
  id: FunctionId;
  benchCase: BenchCase;
  /**
   * The function's call counter behind '{{seq}}' (runners.ts): its own, so '{{seq}}' stays below
   * `callsPerFunction` whatever ran before it (its setup prepares that many accounts or endpoints).
   */
  seqFile: string;
  fn: { subject: Subject; events: string };
  floor: { name: string; subject: Subject; events: string };
  /** The first event alone, for the cold runs. */
  firstEvent: { fn: string; floor: string };
}

/** The run's scratch: bundles, events, runner scripts, the call counter and pool (runners.ts). */
class WorkDir {
  readonly path = mkdtempSync(path.join(os.tmpdir(), 'company-data-bench-'));

  write(name: string, contents: string): string {
    const file = path.join(this.path, name);
    writeFileSync(file, contents);
    return file;
  }
}

// ---- Run -----------------------------------------------------------------------------------------

/** Runs the functions' bench; true when it ran all of them (then the import bench follows). */
async function main(): Promise<boolean> {
  const started = performance.now();
  const options = readOptions();
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
    const floors = await buildFloors(
      workDir.path,
      functionIds.map((id) => ({ kind: CASES[id].floor, packages: functions[id].packages })),
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
    },
  });
  const rounds = Number(args.rounds ?? DEFAULT_ROUNDS);
  const calls = Number(args.calls ?? DEFAULT_CALLS);
  if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(calls) || calls < 1) {
    throw new Error('--rounds and --calls must be positive integers');
  }
  return { rounds, calls, only: args.only?.split(','), profile: args.profile };
}

/** The demo companies, lists and tokens on the bench's table, and what the cases build their events from. */
async function loadData(workDir: WorkDir, rounds: number, calls: number): Promise<BenchData> {
  progress(`loading ${COMPANIES} demo companies, the demo lists and tokens`);
  const { generateDemoData } = await import('../fixtures/demo-data/companies');
  const { loadDemo, DEMO_TOKENS } = await import('../../infra/local/demo');
  const records = generateDemoData({ companies: COMPANIES });
  await loadDemo(records);
  // The demo lists (ids 1..7 on this fresh table; infra/local/demo-lists.ts).
  const { demoLists, loadDemoLists } = await import('../../infra/local/demo-lists');
  await loadDemoLists(records);
  // The pool of ids behind '{{pooled}}' in events (runners.ts); each function counts '{{seq}}' in a
  // file of its own (writePair).
  process.env['BENCH_POOL_FILE'] = workDir.write('pool.json', '[]');
  return {
    companies: records.map(({ country, companyNumber }) => ({ countryCode: country, companyNumber })),
    token: DEMO_TOKENS[0].token,
    // Cold (one per round and the warm-up round) and warm calls, for the function and its floor.
    callsPerFunction: 2 * (rounds + 1 + WARMUP_CALLS + rounds * calls),
    smartListCompany: (() => {
      const [, , , software] = demoLists(records);
      const { country, companyNumber } = software!.groups[0]!.companies[0]!;
      return { country, companyNumber };
    })(),
  };
}

function selectFunctions(only: string[] | undefined): FunctionId[] {
  const unknown = only?.filter((id) => !(id in CASES));
  if (unknown?.length) throw new Error(`--only: no bench case ${unknown.join(', ')}`);
  return (Object.keys(CASES) as FunctionId[]).filter((id) => !only || only.includes(id));
}

/** What the function and floor processes run with. */
function childEnvironment(tableName: string, endpoint: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoint,
    AWS_REGION: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // As the stack sets it on every route function and the authorizer: IAM, not the client, enforces
    // access; the storage client's per-attempt deadlines (armed on every request; the floors, bare SDK,
    // arm none); the request log's sample.
    ...functionEnvironment({ requestPath: true }),
    BENCH_POOL_FILE: process.env['BENCH_POOL_FILE'],
  };
  // A bare node, as in Lambda: no loader or flags inherited from tsx or the shell.
  delete env['NODE_OPTIONS'];
  return env;
}

function writePair(
  workDir: WorkDir,
  id: FunctionId,
  data: BenchData,
  subject: FunctionBundle,
  floors: Map<string, Subject>,
): Pair {
  const benchCase = CASES[id];
  const floorNamed = floorName(benchCase.floor, subject.packages);
  const events = benchCase.events(data);
  const floorEvents = benchCase.floorEvents?.(data) ?? events;
  return {
    id,
    benchCase,
    seqFile: workDir.write(`${id}.seq.txt`, '0'),
    fn: { subject, events: workDir.write(`${id}.events.json`, JSON.stringify(events)) },
    floor: {
      name: floorNamed,
      subject: floors.get(floorNamed)!,
      events: workDir.write(`${id}.floor-events.json`, JSON.stringify(floorEvents)),
    },
    firstEvent: {
      fn: workDir.write(`${id}.event.json`, JSON.stringify(events[0])),
      floor: workDir.write(`${id}.floor-event.json`, JSON.stringify(floorEvents[0])),
    },
  };
}

/** With --profile, node's options for a CPU profile of the process, written as `<dir>/<name>.cpuprofile`. */
const profileArgs = (dir: string | undefined, name: string): string[] =>
  dir
    ? ['--cpu-prof', '--cpu-prof-interval=50', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}.cpuprofile`]
    : [];

/**
 * Cold: round by round, each function right next to a run of its own floor (taking turns at going first);
 * the pairs rotate each round. Round 0 is discarded: it warms the disk cache and DynamoDB Local's JIT for
 * everyone alike. With --profile, the last round's runs are profiled.
 */
async function measureCold(
  pairs: Pair[],
  { rounds, profile }: Options,
  coldRunner: string,
  env: NodeJS.ProcessEnv,
): Promise<Map<FunctionId, ColdSamples>> {
  const cold = new Map(pairs.map(({ id }): [FunctionId, ColdSamples] => [id, { fn: [], floor: [] }]));
  for (let pass = 0; pass <= rounds; pass++) {
    progress(pass === 0 ? 'cold: warm-up round' : `cold: round ${pass}/${rounds}`);
    for (let i = 0; i < pairs.length; i++) {
      const pair = pairs[(i + pass) % pairs.length]!;
      const runs = [
        { side: 'fn' as const, file: pair.fn.subject.file, event: pair.firstEvent.fn },
        { side: 'floor' as const, file: pair.floor.subject.file, event: pair.firstEvent.floor },
      ];
      if ((pass + i) % 2 === 1) runs.reverse();
      for (const { side, file, event } of runs) {
        const sample = await runCold(
          coldRunner,
          [file, event],
          { ...env, BENCH_SEQ_FILE: pair.seqFile },
          pass === rounds ? profileArgs(profile, `${pair.id}.${side}.cold`) : [],
        );
        if (!sample.ok) throw new Error(`${pair.id} (${side}) answered ${sample.status} on its cold call`);
        if (pass > 0) cold.get(pair.id)![side].push(sample);
      }
    }
  }
  return cold;
}

/**
 * Warm: per function, one long-lived process for it and one for its floor; both warm up, then take turns
 * (`calls` calls each, the first alternating) for `rounds` rounds.
 */
async function measureWarm(
  pairs: Pair[],
  { rounds, calls, profile }: Options,
  warmRunner: string,
  env: NodeJS.ProcessEnv,
  children: Set<ChildProcess>,
): Promise<Map<FunctionId, WarmSamples>> {
  const warm = new Map<FunctionId, WarmSamples>();
  for (const [index, pair] of pairs.entries()) {
    progress(`warm: ${pair.id} (${index + 1}/${pairs.length})`);
    const start = (side: 'function' | 'floor', { subject, events }: Pair['fn']) =>
      startWarm(
        warmRunner,
        [subject.file, events],
        { ...env, BENCH_SEQ_FILE: pair.seqFile },
        children,
        profileArgs(profile, `${pair.id}.${side}`),
      );
    const fn = await start('function', pair.fn);
    const floor = await start('floor', pair.floor);
    try {
      await fn.run(WARMUP_CALLS);
      await floor.run(WARMUP_CALLS);
      const result: WarmSamples = { fn: [], floor: [], answerMs: 0 };
      for (let pass = 0; pass < rounds; pass++) {
        const order = pass % 2 === 0 ? (['fn', 'floor'] as const) : (['floor', 'fn'] as const);
        for (const side of order) {
          const samples = await (side === 'fn' ? fn : floor).run(calls);
          const failed = samples.filter((s) => !s.ok);
          if (failed.length > 0) {
            throw new Error(
              `warm ${pair.id} (${side}): ${failed.length} calls failed (${failed[0]!.status})`,
            );
          }
          result[side].push(samples);
        }
      }
      result.answerMs = await fn.answerCost();
      warm.set(pair.id, result);
    } finally {
      await fn.stop();
      await floor.stop();
    }
  }
  return warm;
}

function writeResults(results: object): void {
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nFigures written to ${path.relative(process.cwd(), RESULTS_FILE) || RESULTS_FILE}`);
}

async function dropTable(endpoint: string, tableName: string): Promise<void> {
  const { DeleteTableCommand } = await import('@aws-sdk/client-dynamodb');
  const { localClient } = await import('../../infra/local/dynamodb');
  const client = localClient(endpoint);
  await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  client.destroy();
}

// ---- Output --------------------------------------------------------------------------------------

function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
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
