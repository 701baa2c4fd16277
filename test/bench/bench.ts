/**
 * `npm run bench`: bundle size, cold init and CPU per warm call of every function, each held against a
 * floor built and measured in the same run (an empty handler; a handler making only the closest
 * DynamoDB call with the bare SDK), on DynamoDB Local. Prints tables, writes bench-results.json.
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
 * The cases (events, floor, budget class) are in cases.ts, one per route id.
 *
 *   npm run bench                                   21 rounds cold and warm, 20 calls per warm round
 *   npm run bench -- --rounds 41 --calls 40         steadier medians, slower
 *   npm run bench -- --only getLists,authorizer     some functions only (while working on them)
 *   npm run bench -- --only authorizer --profile /tmp/p   and a CPU profile of each warm process
 *                                                   (<id>.function.cpuprofile, <id>.floor.cpuprofile)
 *   DYNAMODB_ENDPOINT=http://localhost:8000 npm run bench   an existing DynamoDB Local (own table, dropped after)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { build, type BuildOptions } from 'esbuild';
import { bundlingSettings } from '../../infra/bundling';
import { handlerEntry } from '../../lib/http/route';
import { authorizer, routes, type RouteId } from '../../lib/routes';
import { BENCH_CASES, BULK_SIZE, COMPANIES, type BenchCase, type BenchData, type FunctionId } from './cases';
import { ACCESS_ENFORCED_BY_IAM } from '../../lib/storage/access';
import { COLD_RUNNER, FLOOR_SOURCES, RESULT_PREFIX, WARM_RUNNER, type FloorKind } from './runners';

const ROOT = path.join(__dirname, '..', '..');
const RESULTS_FILE = path.join(ROOT, 'bench-results.json');

const STARTING_ENV = { ...process.env };

/** The budgets (README, "Benchmark"): every function that exists is held to them. */
const BUDGET = {
  /** Minified bundle, every function. */
  bundleKb: 250,
  /** Cold init without in-flight time, paired ratio to the bare-SDK floor, every DynamoDB function. */
  coldRatio: 1.0,
  /** Cold init of a function that calls no storage (health), absolute. */
  coldNoStorageMs: 4,
  /** CPU per warm call, paired ratio to the bare-SDK floor: single, bulk and authorizer cases. */
  cpuRatio: 1.1,
  singleRoundTrips: 1,
  bulkRoundTrips: 2,
  /** Issue 9: updates resolve the legal entity ids, then read their feeds and relationships. */
  updatesRoundTrips: 3,
} as const;

const DEFAULT_ROUNDS = 21;
/** Calls per warm round: a single GET costs about 1 ms of CPU, and fewer calls leave the ratio to chance. */
const DEFAULT_CALLS = 20;
const WARMUP_CALLS = 10;
const CHILD_TIMEOUT_MS = 60_000;

const CASES: Record<FunctionId, BenchCase> = BENCH_CASES;

interface Subject {
  /** The bundle on disk (temp dir). */
  file: string;
  bytes: number;
}

interface ColdSample {
  loadMs: number;
  firstMs: number;
  totalMs: number;
  inFlightMs: number;
  cpuMs: number;
  calls: number;
  ok: boolean;
  status: number | string;
}

interface WarmSample {
  wallMs: number;
  cpuMs: number;
  ok: boolean;
  status: number | string;
  found: number | null;
  socketCalls: number;
  inFlightMs: number;
  log: { durationMs: number; calls: number; ms: number } | null;
}

/** Module load + the first request's time with no DynamoDB request in flight (wall clock). */
const coldNet = (s: ColdSample) => s.loadMs + s.firstMs - s.inFlightMs;
/** Module load + the first request's own work, as process CPU: what is judged (see the top of the file). */
const coldCpu = (s: ColdSample) => s.cpuMs;

// ---- Statistics ----------------------------------------------------------------------------------

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: always a value that was measured.
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const median = (values: number[]) => percentile(values, 50);
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const kb = (bytes: number) => bytes / 1024;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** Median and interquartile range. */
interface Spread {
  median: number;
  q1: number;
  q3: number;
}
const spread = (values: number[], digits = 3): Spread => ({
  median: round(median(values), digits),
  q1: round(percentile(values, 25), digits),
  q3: round(percentile(values, 75), digits),
});
const verdict = (ok: boolean) => (ok ? 'PASS' : 'OVER');

// ---- Run -----------------------------------------------------------------------------------------

/** Runs the functions' bench; true when it ran all of them (then the import bench follows). */
async function main(): Promise<boolean> {
  const started = performance.now();
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

  const workDir = mkdtempSync(path.join(os.tmpdir(), 'company-data-bench-'));
  let stopDynamoDb: (() => void) | undefined;
  const children = new Set<ChildProcess>();
  const tableName = `bench-${randomUUID()}`;
  let endpoint = process.env['DYNAMODB_ENDPOINT'];
  try {
    // Set before anything loads the SDK (the storage client reads them when first imported).
    process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
    process.env['TABLE_NAME'] = tableName;
    process.env['AWS_REGION'] ??= 'local';

    progress('building bundles');
    const functions = await buildFunctions(workDir);
    const floors = await buildFloors(workDir);

    const { startDynamoDbLocal, ensureTable, freePort } = await import('../../infra/local/dynamodb');
    if (!endpoint) {
      progress('starting DynamoDB Local');
      const local = await startDynamoDbLocal({ port: await freePort() });
      stopDynamoDb = local.stop;
      endpoint = local.endpoint;
      // Killed by a signal, node skips 'exit' handlers: stop DynamoDB Local here, or its Java process outlives us.
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.once(signal, () => {
          local.stop();
          for (const child of children) child.kill('SIGKILL');
          rmSync(workDir, { recursive: true, force: true });
          process.exit(130);
        });
      }
    }
    process.env['DYNAMODB_ENDPOINT'] = endpoint;
    await ensureTable(endpoint, tableName);

    progress(`loading ${COMPANIES} demo companies, the demo lists and tokens`);
    const { generateDemoData } = await import('../fixtures/demo-data/companies');
    const { loadDemo, DEMO_TOKENS } = await import('../../infra/local/demo');
    const records = generateDemoData({ companies: COMPANIES });
    await loadDemo(records);
    // The demo lists (ids 1..7 on this fresh table; infra/local/demo-lists.ts).
    const { demoLists, loadDemoLists } = await import('../../infra/local/demo-lists');
    await loadDemoLists(records);
    // The call counter and the pool of ids behind '{{seq}}' and '{{pooled}}' in events (runners.ts).
    process.env['BENCH_SEQ_FILE'] = path.join(workDir, 'seq.txt');
    process.env['BENCH_POOL_FILE'] = path.join(workDir, 'pool.json');
    writeFileSync(process.env['BENCH_SEQ_FILE'], '0');
    writeFileSync(process.env['BENCH_POOL_FILE'], '[]');
    const data: BenchData = {
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
    const only = args.only?.split(',');
    const unknown = only?.filter((id) => !(id in CASES));
    if (unknown?.length) throw new Error(`--only: no bench case ${unknown.join(', ')}`);
    const functionIds = (Object.keys(CASES) as FunctionId[]).filter((id) => !only || only.includes(id));
    for (const id of functionIds) await CASES[id].setup?.(data);

    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: endpoint,
      AWS_REGION: 'local',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // As the stack sets it on every function (infra/function.ts): IAM, not the client, enforces access.
      [ACCESS_ENFORCED_BY_IAM]: 'true',
      BENCH_SEQ_FILE: process.env['BENCH_SEQ_FILE'],
      BENCH_POOL_FILE: process.env['BENCH_POOL_FILE'],
    };
    // A bare node, as in Lambda: no loader or flags inherited from tsx or the shell.
    delete childEnv['NODE_OPTIONS'];
    const writeFile = (name: string, contents: string) => {
      const file = path.join(workDir, name);
      writeFileSync(file, contents);
      return file;
    };
    const coldRunner = writeFile('cold-runner.cjs', COLD_RUNNER);
    const warmRunner = writeFile('warm-runner.cjs', WARM_RUNNER);

    // Each function with its floor: the bundles and the events files they are called with.
    const pairs = functionIds.map((id) => {
      const benchCase = CASES[id];
      const events = benchCase.events(data);
      const floorEvents = benchCase.floorEvents?.(data) ?? events;
      return {
        id,
        benchCase,
        fn: { subject: functions[id], events: writeFile(`${id}.events.json`, JSON.stringify(events)) },
        floor: {
          subject: floors[benchCase.floor],
          events: writeFile(`${id}.floor-events.json`, JSON.stringify(floorEvents)),
        },
        firstEvent: {
          fn: writeFile(`${id}.event.json`, JSON.stringify(events[0])),
          floor: writeFile(`${id}.floor-event.json`, JSON.stringify(floorEvents[0])),
        },
      };
    });

    // ---- Cold: round by round, each function right next to a run of its own floor (taking turns at
    // going first); the pairs rotate each round. Round 0 is discarded: it warms the disk cache and
    // DynamoDB Local's JIT for everyone alike.
    const cold = new Map(pairs.map(({ id }) => [id, { fn: [] as ColdSample[], floor: [] as ColdSample[] }]));
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
          const sample = await runCold(coldRunner, [file, event], childEnv);
          if (!sample.ok) throw new Error(`${pair.id} (${side}) answered ${sample.status} on its cold call`);
          if (pass > 0) cold.get(pair.id)![side].push(sample);
        }
      }
    }

    // ---- Warm: per function, one long-lived process for it and one for its floor; both warm up, then
    // take turns (`calls` calls each, the first alternating) for `rounds` rounds.
    const warm = new Map<FunctionId, { fn: WarmSample[][]; floor: WarmSample[][]; answerMs: number }>();
    for (const [index, pair] of pairs.entries()) {
      progress(`warm: ${pair.id} (${index + 1}/${pairs.length})`);
      const profile = (side: string) =>
        args.profile
          ? [`--cpu-prof`, `--cpu-prof-dir=${args.profile}`, `--cpu-prof-name=${pair.id}.${side}.cpuprofile`]
          : [];
      const fn = await startWarm(
        warmRunner,
        [pair.fn.subject.file, pair.fn.events],
        childEnv,
        children,
        profile('function'),
      );
      const floor = await startWarm(
        warmRunner,
        [pair.floor.subject.file, pair.floor.events],
        childEnv,
        children,
        profile('floor'),
      );
      try {
        await fn.run(WARMUP_CALLS);
        await floor.run(WARMUP_CALLS);
        const result = { fn: [] as WarmSample[][], floor: [] as WarmSample[][], answerMs: 0 };
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

    // ---- Figures.
    const functionFigures = pairs.map(({ id, benchCase }) => {
      const c = cold.get(id)!;
      const w = warm.get(id)!;
      const bundleKb = kb(functions[id].bytes);
      const storage = benchCase.floor !== 'empty';

      const coldCpuRatio = spread(c.fn.map((s, i) => coldCpu(s) / coldCpu(c.floor[i]!)));
      const coldTotalRatioOfMedians =
        median(c.fn.map((s) => s.totalMs)) / median(c.floor.map((s) => s.totalMs));
      const coldFigures = (samples: ColdSample[]) => ({
        netMs: spread(samples.map(coldNet), 2),
        totalMs: spread(
          samples.map((s) => s.totalMs),
          2,
        ),
        loadMs: spread(
          samples.map((s) => s.loadMs),
          2,
        ),
        inFlightMs: spread(
          samples.map((s) => s.inFlightMs),
          2,
        ),
        cpuMs: spread(
          samples.map((s) => s.cpuMs),
          2,
        ),
      });

      // Per round: mean CPU per call (GC and all), function over floor.
      const roundCpu = (side: WarmSample[][]) => side.map((samples) => mean(samples.map((s) => s.cpuMs)));
      const fnCpu = roundCpu(w.fn);
      const floorCpu = roundCpu(w.floor);
      const cpuRatio = spread(fnCpu.map((cpu, i) => cpu / floorCpu[i]!));
      // Not judged: against a floor that also sent this function's answer (the floors answer a few bytes).
      const withAnswerRatio = spread(fnCpu.map((cpu, i) => cpu / (floorCpu[i]! + w.answerMs)));
      const fnCalls = w.fn.flat();
      const floorCalls = w.floor.flat();
      const overheadInFlight = (samples: WarmSample[]) => samples.map((s) => s.wallMs - s.inFlightMs);
      const logged = fnCalls.flatMap((s) => (s.log ? [s.log] : []));
      const roundTrips = logged.length > 0 ? logged.map((l) => l.calls) : fnCalls.map((s) => s.socketCalls);
      const worstRoundTrips = Math.max(...roundTrips);

      const budget: Record<string, { limit: number; value: number; status: string }> = benchCase.document
        ? {}
        : {
            bundle: {
              limit: BUDGET.bundleKb,
              value: round(bundleKb, 1),
              status: verdict(bundleKb <= BUDGET.bundleKb),
            },
            cold: storage
              ? {
                  limit: BUDGET.coldRatio,
                  value: coldCpuRatio.median,
                  status: verdict(coldCpuRatio.median <= BUDGET.coldRatio),
                }
              : {
                  limit: BUDGET.coldNoStorageMs,
                  value: round(median(c.fn.map(coldCpu))),
                  status: verdict(median(c.fn.map(coldCpu)) <= BUDGET.coldNoStorageMs),
                },
          };
      if (benchCase.budget) {
        budget['cpu'] = {
          limit: BUDGET.cpuRatio,
          value: cpuRatio.median,
          status: verdict(cpuRatio.median <= BUDGET.cpuRatio),
        };
        const limit =
          benchCase.budget === 'bulk'
            ? BUDGET.bulkRoundTrips
            : benchCase.budget === 'updates'
              ? BUDGET.updatesRoundTrips
              : BUDGET.singleRoundTrips;
        budget['roundTrips'] = { limit, value: worstRoundTrips, status: verdict(worstRoundTrips <= limit) };
      }

      return {
        function: id,
        label: benchCase.label,
        entry: id === 'authorizer' ? authorizer.entry : handlerEntry(id),
        bundleBytes: functions[id].bytes,
        bundleKb: round(bundleKb, 1),
        floor: { kind: benchCase.floor, bundleKb: round(kb(floors[benchCase.floor].bytes), 1) },
        cold: {
          function: coldFigures(c.fn),
          floor: coldFigures(c.floor),
          /** Judged: median of the per-round ratios of cold init without in-flight time, as process CPU. */
          pairedCpuRatio: coldCpuRatio,
          /** The former verdict: median total ÷ median floor total (service time in both). */
          totalRatioOfMedians: round(coldTotalRatioOfMedians, 3),
        },
        warm: {
          calls: fnCalls.length,
          function: {
            cpuMsPerCall: spread(fnCpu, 3),
            wallP50Ms: round(median(fnCalls.map((s) => s.wallMs))),
            overheadInFlightP50Ms: round(median(overheadInFlight(fnCalls))),
          },
          floor: {
            cpuMsPerCall: spread(floorCpu, 3),
            wallP50Ms: round(median(floorCalls.map((s) => s.wallMs))),
            overheadInFlightP50Ms: round(median(overheadInFlight(floorCalls))),
          },
          /** Judged: median of the per-round ratios of mean CPU per call. */
          pairedCpuRatio: cpuRatio,
          /**
           * Not judged: CPU ms to send the function's answer at the least (its body stringified from the
           * parsed JSON, then the runtime's serialisation), which no floor pays; and the paired ratio
           * against the floor's CPU plus that: how much of the gap is the rest of the function's work.
           */
          answerMs: round(w.answerMs, 3),
          pairedCpuRatioWithAnswer: withAnswerRatio,
          dynamodbRoundTrips: {
            min: Math.min(...roundTrips),
            max: worstRoundTrips,
            from: logged.length > 0 ? 'log' : 'socket',
          },
          companiesFound: fnCalls[0]?.found ?? null,
        },
        budget,
      };
    });
    const floorFigures = (Object.keys(floors) as FloorKind[]).map((kind) => ({
      floor: kind,
      bundleKb: round(kb(floors[kind].bytes), 1),
    }));

    const results = {
      generatedAt: new Date().toISOString(),
      environment: {
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        loadAverage: os.loadavg().map((l) => round(l)),
        dynamodb: endpoint,
      },
      settings: {
        bundling: bundlingSettings,
        rounds,
        warmCallsPerRound: calls,
        warmupCalls: WARMUP_CALLS,
        companiesLoaded: COMPANIES,
        bulkCompanies: BULK_SIZE,
        kb: 1024,
      },
      budgets: BUDGET,
      functions: functionFigures,
      floors: floorFigures,
      elapsedSeconds: round((performance.now() - started) / 1000, 1),
    };

    printTables(functionFigures, floorFigures, results.elapsedSeconds, rounds, calls);
    writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`\nFigures written to ${path.relative(process.cwd(), RESULTS_FILE) || RESULTS_FILE}`);
    return !only;
  } finally {
    for (const child of children) child.kill('SIGKILL');
    stopDynamoDb?.();
    // On a shared DynamoDB (DYNAMODB_ENDPOINT given), leave nothing behind.
    if (!stopDynamoDb && endpoint) await dropTable(endpoint, tableName);
    // With --profile the bundles and their source maps stay, to read the profiles against.
    if (args.profile) console.log(`Bundles (with source maps) kept in ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
}

// ---- Bundles -------------------------------------------------------------------------------------

/**
 * The settings NodejsFunction bundles with (infra/function.ts), so the sizes are the deployed ones. The
 * floors are the bare SDK as published, with its full default credential chain: they leave out the
 * functions' aliases.
 */
function buildOptions(outfile: string, { aliases = true } = {}): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: bundlingSettings.target,
    minify: bundlingSettings.minify,
    sourcemap: bundlingSettings.sourceMap,
    mainFields: [...bundlingSettings.mainFields],
    external: [...bundlingSettings.externalModules],
    alias: aliases ? { ...bundlingSettings.alias } : {},
    absWorkingDir: ROOT,
    outfile,
    logLevel: 'warning',
  };
}

async function buildFunctions(workDir: string): Promise<Record<FunctionId, Subject>> {
  const entries = Object.fromEntries([
    ...(Object.keys(routes) as RouteId[]).map((id) => [id, handlerEntry(id)] as const),
    ['authorizer', authorizer.entry] as const,
  ]) as Record<FunctionId, string>;
  const built = await Promise.all(
    (Object.keys(entries) as FunctionId[]).map(async (id) => {
      const file = path.join(workDir, `${id}.js`);
      await build({ ...buildOptions(file), entryPoints: [path.join(ROOT, entries[id])] });
      return [id, { file, bytes: statSync(file).size }] as const;
    }),
  );
  return Object.fromEntries(built) as Record<FunctionId, Subject>;
}

async function buildFloors(workDir: string): Promise<Record<FloorKind, Subject>> {
  const built = await Promise.all(
    (Object.keys(FLOOR_SOURCES) as FloorKind[]).map(async (kind) => {
      const file = path.join(workDir, `floor-${kind}.js`);
      await build({
        ...buildOptions(file, { aliases: false }),
        // Resolved from the project, so the floors bundle the same pinned SDK as the functions.
        stdin: {
          contents: FLOOR_SOURCES[kind],
          resolveDir: ROOT,
          sourcefile: `floor-${kind}.js`,
          loader: 'js',
        },
      });
      return [kind, { file, bytes: statSync(file).size }] as const;
    }),
  );
  return Object.fromEntries(built) as Record<FloorKind, Subject>;
}

// ---- Children ------------------------------------------------------------------------------------

function runCold(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<ColdSample> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (!line) {
        reject(
          new Error(
            `${path.basename(args[0] ?? script)} exited (${signal ?? code}) without a result:\n${stderr.trim()}`,
          ),
        );
        return;
      }
      resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as ColdSample);
    });
  });
}

type WarmMessage = { ready: true } | { samples: WarmSample[] } | { answerMs: number } | { error: string };

/** A warm runner process, ready for `run(n)` (n calls, their samples) until `stop()`. */
async function startWarm(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  children: Set<ChildProcess>,
  nodeOptions: string[] = [],
): Promise<{
  run: (calls: number) => Promise<WarmSample[]>;
  answerCost: () => Promise<number>;
  stop: () => Promise<void>;
}> {
  const child = spawn(process.execPath, [...nodeOptions, script, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.add(child);
  let stderr = '';
  // Drained, or a chatty handler would block on a full pipe; the log lines are read in the runner.
  child.stdout!.resume();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  let waiting: { resolve: (m: WarmMessage) => void; reject: (e: Error) => void } | undefined;
  const next = () =>
    new Promise<WarmMessage>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${path.basename(args[0]!)}: no answer in time`)),
        CHILD_TIMEOUT_MS,
      );
      waiting = {
        resolve: (m) => (clearTimeout(timer), resolve(m)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      };
    });
  child.on('message', (message: WarmMessage) => waiting?.resolve(message));
  child.on('exit', (code, signal) =>
    waiting?.reject(new Error(`${path.basename(args[0]!)} exited (${signal ?? code}):\n${stderr.trim()}`)),
  );
  const ready = await next();
  if (!('ready' in ready)) throw new Error(`${path.basename(args[0]!)} did not start`);
  return {
    run: async (calls) => {
      const answer = next();
      child.send({ calls });
      const message = await answer;
      if ('error' in message) throw new Error(`${path.basename(args[0]!)}: ${message.error}`);
      if (!('samples' in message)) throw new Error(`${path.basename(args[0]!)}: unexpected answer`);
      return message.samples;
    },
    answerCost: async () => {
      const answer = next();
      child.send({ answerCost: true });
      const message = await answer;
      if (!('answerMs' in message)) throw new Error(`${path.basename(args[0]!)}: unexpected answer`);
      return message.answerMs;
    },
    // Asked to exit when it writes a CPU profile on the way out; killed otherwise.
    stop: async () => {
      waiting = undefined;
      if (nodeOptions.length > 0 && child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.send({ exit: true });
        await exited;
      } else child.kill('SIGKILL');
      children.delete(child);
    },
  };
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

function printTable(headers: string[], rows: (string | number | null)[][]): void {
  const cells = [headers, ...rows.map((row) => row.map((c) => (c === null ? '–' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(cells[0]!));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of cells.slice(1)) console.log(line(row));
}

type FunctionFigures = {
  function: string;
  label: string;
  bundleKb: number;
  floor: { kind: FloorKind };
  cold: {
    function: { netMs: Spread; cpuMs: Spread; totalMs: Spread };
    floor: { netMs: Spread; cpuMs: Spread; totalMs: Spread };
    pairedCpuRatio: Spread;
    totalRatioOfMedians: number;
  };
  warm: {
    function: { cpuMsPerCall: Spread; wallP50Ms: number; overheadInFlightP50Ms: number };
    floor: { cpuMsPerCall: Spread; wallP50Ms: number; overheadInFlightP50Ms: number };
    pairedCpuRatio: Spread;
    answerMs: number;
    pairedCpuRatioWithAnswer: Spread;
    dynamodbRoundTrips: { min: number; max: number };
  };
  budget: Record<string, { status: string }>;
};

function printTables(
  functions: FunctionFigures[],
  floors: { floor: FloorKind; bundleKb: number }[],
  elapsedSeconds: number,
  rounds: number,
  calls: number,
): void {
  const f = (n: number, digits = 1) => n.toFixed(digits);
  const s = (x: Spread, digits = 1) => `${f(x.median, digits)} [${f(x.q1, digits)}–${f(x.q3, digits)}]`;
  const verdicts = (budget: Record<string, { status: string }>, names: string[]) =>
    names
      .filter((name) => budget[name])
      .map((name) => `${name === 'roundTrips' ? 'round trips' : name} ${budget[name]!.status}`)
      .join(', ') || null;

  console.log(
    `\nCold init, fresh node ${process.version} process per run, ${rounds} paired rounds (function and its floor back to back).` +
      `\nNEW: cold init without DynamoDB in flight = require(bundle) + the first request's own work, median [Q1–Q3]: as wall ms` +
      `\n(total minus in-flight time) and, judged, as process CPU ms (steady on a busy machine, where wall time is mostly waiting for a core).` +
      `\nOLD: total ms = require + first request including DynamoDB Local's service time; old ratio = median ÷ floor median.` +
      `\nBudgets: bundle ≤ ${BUDGET.bundleKb} KB minified; DynamoDB functions: paired ratio ≤ ${f(BUDGET.coldRatio, 1)} × the bare-SDK floor;` +
      ` no storage (health): ≤ ${BUDGET.coldNoStorageMs} ms\n`,
  );
  printTable(
    [
      'function',
      'bundle KB',
      'floor',
      'OLD total ms',
      'OLD floor total',
      'OLD ratio',
      'NEW wall ms not in flight',
      'NEW CPU ms',
      'NEW floor CPU ms',
      'NEW paired CPU ratio',
      'budget',
    ],
    functions.map((r) => [
      r.function,
      f(r.bundleKb),
      r.floor.kind,
      f(r.cold.function.totalMs.median),
      f(r.cold.floor.totalMs.median),
      f(r.cold.totalRatioOfMedians, 2),
      s(r.cold.function.netMs),
      s(r.cold.function.cpuMs),
      s(r.cold.floor.cpuMs),
      s(r.cold.pairedCpuRatio, 2),
      verdicts(r.budget, ['bundle', 'cold']),
    ]),
  );

  console.log(
    `\nWarm, one process each for a function and its floor, ${WARMUP_CALLS} warm-up calls, then ${rounds} paired rounds of ${calls} calls.` +
      `\nNEW (judged): process CPU ms per call (mean per round), median [Q1–Q3]; paired ratio = median of the per-round ratios.` +
      `\nOLD: overhead = wall ms with no DynamoDB request in flight (p50 over all calls).` +
      `\nNot judged: answer ms = CPU to send the function's answer at the least (its body stringified from the parsed JSON, and the runtime's serialisation), which the floors (a few bytes) do not pay; vs floor + answer = the paired ratio with that added to the floor.` +
      `\nBudgets: single, bulk and authorizer: CPU paired ratio ≤ ${BUDGET.cpuRatio} × the floor's; round trips single ${BUDGET.singleRoundTrips}, bulk ≤ ${BUDGET.bulkRoundTrips}, updates (single and bulk) ≤ ${BUDGET.updatesRoundTrips}\n`,
  );
  printTable(
    [
      'case',
      'p50 ms',
      'OLD overhead ms',
      'OLD floor overhead',
      'NEW CPU ms/call',
      'NEW floor CPU ms/call',
      'NEW paired ratio',
      'answer ms',
      'vs floor + answer',
      'round trips',
      'budget',
    ],
    functions.map((r) => [
      r.label,
      f(r.warm.function.wallP50Ms, 2),
      f(r.warm.function.overheadInFlightP50Ms, 2),
      f(r.warm.floor.overheadInFlightP50Ms, 2),
      s(r.warm.function.cpuMsPerCall, 2),
      s(r.warm.floor.cpuMsPerCall, 2),
      s(r.warm.pairedCpuRatio, 2),
      f(r.warm.answerMs, 2),
      s(r.warm.pairedCpuRatioWithAnswer, 2),
      r.warm.dynamodbRoundTrips.min === r.warm.dynamodbRoundTrips.max
        ? r.warm.dynamodbRoundTrips.min
        : `${r.warm.dynamodbRoundTrips.min}–${r.warm.dynamodbRoundTrips.max}`,
      verdicts(r.budget, ['cpu', 'roundTrips']),
    ]),
  );

  console.log('\nFloors (bare SDK, same esbuild settings)\n');
  printTable(
    ['floor', 'bundle KB'],
    floors.map((r) => [r.floor, f(r.bundleKb)]),
  );
  const over = functions.flatMap((r) =>
    Object.entries(r.budget).flatMap(([name, b]) => (b.status === 'PASS' ? [] : [`${r.function} ${name}`])),
  );
  console.log(
    `\n${over.length === 0 ? 'Every function within its budgets.' : `Over budget: ${over.join(', ')}.`}` +
      ` Timings are local (DynamoDB Local, this machine, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}): compare within a run. Run took ${elapsedSeconds} s.`,
  );
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
