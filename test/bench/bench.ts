/**
 * `npm run bench`: bundle size, cold init and warm latency of every function, against floors built and
 * measured in the same run (an empty handler; a handler making only the same DynamoDB call with the
 * bare SDK), on DynamoDB Local. Prints tables, writes bench-results.json. Figures only: it exits 0
 * whatever they are, and non-zero only when the benchmark itself breaks.
 *
 *   npm run bench                    11 cold runs per function and floor, 50 warm calls per case
 *   npm run bench -- --runs 21 --calls 100   steadier medians, slower
 *   DYNAMODB_ENDPOINT=http://localhost:8000 npm run bench   an existing DynamoDB Local (own table, dropped after)
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { build, type BuildOptions } from 'esbuild';
import { bundlingSettings } from '../../infra/bundling';
import { handlerEntry } from '../../lib/http/route';
import { authorizer, routes, type RouteId } from '../../lib/routes';
import { proxyEvent } from '../support/events';
import { COLD_RUNNER, FLOOR_SOURCES, RESULT_PREFIX, WARM_RUNNER, type FloorKind } from './runners';

const ROOT = path.join(__dirname, '..', '..');
const RESULTS_FILE = path.join(ROOT, 'bench-results.json');

const BUDGET = {
  bundleKb: 450,
  coldRatio: 1.2,
  singleRoundTrips: 1,
  bulkRoundTrips: 2,
  bulkOverheadMs: 10,
} as const;

const COMPANIES = 300;
const BULK_SIZE = 100;
const WARMUP_CALLS = 5;
const WARM_ROUNDS = 3;
const CHILD_TIMEOUT_MS = 60_000;

type FunctionId = RouteId | 'authorizer';
type BenchEvent = APIGatewayProxyEvent | APIGatewayTokenAuthorizerEvent;

interface Subject {
  id: string;
  /** The bundle on disk (temp dir). */
  file: string;
  bytes: number;
}

interface ColdSample {
  loadMs: number;
  firstMs: number;
  totalMs: number;
  ok: boolean;
  status: number | string;
}

interface WarmSample {
  wallMs: number;
  ok: boolean;
  status: number | string;
  found: number | null;
  socketCalls: number;
  inFlightMs: number;
  log: { durationMs: number; calls: number; ms: number } | null;
}

/**
 * Which floor each function stands against, and the call it makes (storage adapter, lib/storage/store.ts).
 * A Record over the route ids: a new route does not compile until the benchmark knows its floor.
 */
const FLOOR_OF: Record<FunctionId, FloorKind> = {
  getHealth: 'empty',
  getCompanyFinancials: 'getCompany',
  getCompanyFinancialsBulk: 'batchGetCompanies',
  // One GetItem / one BatchGetItem of the lists' items: the same calls as the company floors.
  getCompanyLookalikes: 'getCompany',
  getCompanyLookalikesBulk: 'batchGetCompanies',
  // One GetItem / one BatchGetItem of the relationships items: the same calls as the company floors.
  getCompanyRelationships: 'getCompany',
  getCompanyRelationshipsBulk: 'batchGetCompanies',
  getCompanyLegalEntities: 'getCompany',
  // Lists (§7): the overview is one Query, a page a GetItem, a Query and one BatchGetItem: the
  // closest floors are one GetItem and one BatchGetItem. A PUT is a BatchGetItem and conditional
  // transactions: its floor makes the same calls with the bare SDK.
  getLists: 'getCompany',
  getListCompanies: 'batchGetCompanies',
  getListContacts: 'batchGetCompanies',
  addListCompanies: 'addListMembers',
  // Managing lists (§7.6): one GetItem of the list, then (writes) one transaction; a move also reads
  // its members in one BatchGetItem. The nearest floors are one GetItem and one BatchGetItem.
  getList: 'getCompany',
  createList: 'getCompany',
  updateList: 'getCompany',
  deleteList: 'getCompany',
  moveListCompanies: 'batchGetCompanies',
  authorizer: 'getToken',
};

const status = (ok: boolean) => (ok ? 'PASS' : 'OVER');
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const kb = (bytes: number) => bytes / 1024;

function pairedRatio(samples: ColdSample[], floorSamples: ColdSample[]): number {
  return median(samples.map((s, i) => s.totalMs / floorSamples[i]!.totalMs));
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: always a value that was measured.
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const median = (values: number[]) => percentile(values, 50);
const p95 = (values: number[]) => percentile(values, 95);

async function main(): Promise<void> {
  const started = performance.now();
  const { values: args } = parseArgs({ options: { runs: { type: 'string' }, calls: { type: 'string' } } });
  const runs = Number(args.runs ?? 11);
  const calls = Number(args.calls ?? 50);
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(calls) || calls < 1) {
    throw new Error('--runs and --calls must be positive integers');
  }

  // Warm calls are split over rounds (see below); `calls` is rounded up to fill them.
  const perRound = Math.ceil(calls / WARM_ROUNDS);
  const warmCalls = perRound * WARM_ROUNDS;

  const workDir = mkdtempSync(path.join(os.tmpdir(), 'company-data-bench-'));
  let stopDynamoDb: (() => void) | undefined;
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
          rmSync(workDir, { recursive: true, force: true });
          process.exit(130);
        });
      }
    }
    process.env['DYNAMODB_ENDPOINT'] = endpoint;
    await ensureTable(endpoint, tableName);

    progress(`loading ${COMPANIES} demo companies`);
    const { generateDemoData } = await import('../../infra/local/demo-data');
    const { loadDemo, DEMO_TOKENS } = await import('../../infra/local/demo');
    const records = generateDemoData({ companies: COMPANIES });
    await loadDemo(records);
    // The demo lists (ids 1..7 on this fresh table; infra/local/demo-lists.ts).
    await (await import('../../infra/local/demo-lists')).loadDemoLists(records);

    const refs = records.map(({ country, companyNumber }) => ({ countryCode: country, companyNumber }));
    const token = DEMO_TOKENS[0].token;
    // A company of the demo smart list 4 to move between SAVED and ARCHIVED.
    const [, , , software] = (await import('../../infra/local/demo-lists')).demoLists(records);
    const moved = software!.groups[0]!.companies[0]!;
    const events = benchEvents(refs, token, { country: moved.country, companyNumber: moved.companyNumber });
    // Lists for the DELETEs to delete, one per call ('{{pooled}}' in runners.ts), and the call counter.
    const { createList } = await import('../../lib/lists/store');
    // Creates use the same counter, so twice the calls a DELETE makes.
    const deletes = 2 * (runs + 1 + WARM_ROUNDS * (WARMUP_CALLS + perRound)) + 10;
    const pool: number[] = [];
    for (let i = 0; i < deletes; i++) {
      const list = await createList({
        accountId: 'acme',
        name: `Bench pool ${i}`,
        type: 'STATIC',
        columns: [],
        shared: false,
        notificationsEnabled: false,
        createdBy: 'alice@acme.example',
        createdAt: new Date().toISOString(),
        filters: null,
      });
      pool.push(list.id);
    }
    writeFileSync(path.join(workDir, 'pool.json'), JSON.stringify(pool));
    writeFileSync(path.join(workDir, 'seq.txt'), '0');

    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: endpoint,
      AWS_REGION: 'local',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      BENCH_SEQ_FILE: path.join(workDir, 'seq.txt'),
      BENCH_POOL_FILE: path.join(workDir, 'pool.json'),
    };
    // A bare node, as in Lambda: no loader or flags inherited from tsx or the shell.
    delete childEnv['NODE_OPTIONS'];
    const runner = (name: string, source: string) => {
      const file = path.join(workDir, name);
      writeFileSync(file, source);
      return file;
    };
    const coldRunner = runner('cold-runner.cjs', COLD_RUNNER);
    const warmRunner = runner('warm-runner.cjs', WARM_RUNNER);
    const eventFile = (name: string, event: BenchEvent | BenchEvent[]) => {
      const file = path.join(workDir, `${name}.event.json`);
      writeFileSync(file, JSON.stringify(event));
      return file;
    };

    // ---- Cold: every function next to the floor it is held against, round by round. A function and
    // its floor run back to back (taking turns at going first), so a burst of load on this shared
    // machine hits both; the pairs rotate each round.
    const functionIds = Object.keys(FLOOR_OF) as FunctionId[];
    const measuredFloors = new Set<FloorKind>();
    const coldPairs = functionIds.map((id) => {
      const kind = FLOOR_OF[id];
      const pair = [{ key: `fn:${id}`, subject: functions[id], event: eventFile(id, events[id][0]!) }];
      // A floor shared by several functions is measured once per round, with its first function.
      if (!measuredFloors.has(kind)) {
        measuredFloors.add(kind);
        pair.push({
          key: `floor:${kind}`,
          subject: floors[kind],
          event: eventFile(`floor-${kind}`, events[id][0]!),
        });
      }
      return pair;
    });
    // The empty floor is a column for every function, whether or not one stands on it.
    if (!measuredFloors.has('empty')) {
      measuredFloors.add('empty');
      coldPairs.push([
        { key: 'floor:empty', subject: floors.empty, event: eventFile('floor-empty', events.getHealth[0]!) },
      ]);
    }
    const cold = new Map<string, ColdSample[]>(coldPairs.flat().map(({ key }) => [key, []]));
    // Round 0 is discarded: it warms the disk cache and DynamoDB Local's JIT for everyone alike.
    for (let pass = 0; pass <= runs; pass++) {
      progress(pass === 0 ? 'cold: warm-up round' : `cold: round ${pass}/${runs}`);
      const pairs = coldPairs.map((_, i) => coldPairs[(i + pass) % coldPairs.length]!);
      const order = pairs.flatMap((pair) => (pass % 2 === 0 ? pair : [...pair].reverse()));
      for (const { key, subject, event } of order) {
        const sample = await runChild<ColdSample>(coldRunner, [subject.file, event], childEnv);
        if (!sample.ok) throw new Error(`${key} answered ${sample.status} on its cold call`);
        if (pass > 0) cold.get(key)!.push(sample);
      }
    }

    // ---- Warm: a process per case per round, the cases interleaved round by round (as the cold runs
    // are), so a function and its floor see the same machine; each process warms up before it counts.
    const warmCases: { name: string; subject: Subject; events: BenchEvent[]; fn?: FunctionId }[] = [
      ...functionIds.map((id) => ({ name: id, subject: functions[id], events: events[id], fn: id })),
      // Each bare-SDK floor once, with the events of a function standing on it.
      // The first function standing on a floor gives it its events (as in the cold runs): a later one may
      // call it with events it cannot read (a list page has no company in its path).
      ...[...new Map([...functionIds].reverse().map((id) => [FLOOR_OF[id], id] as const)).entries()]
        .filter(([kind]) => kind !== 'empty')
        .map(([kind, id]) => ({ name: `floor:${kind}`, subject: floors[kind], events: events[id] })),
    ];
    const warm = new Map<string, WarmSample[]>(warmCases.map(({ name }) => [name, []]));
    for (let pass = 0; pass < WARM_ROUNDS; pass++) {
      progress(`warm: round ${pass + 1}/${WARM_ROUNDS}`);
      const order = warmCases.map((_, i) => warmCases[(i + pass) % warmCases.length]!);
      for (const { name, subject, events: caseEvents } of order) {
        const result = await runChild<{ samples?: WarmSample[]; error?: string }>(
          warmRunner,
          [subject.file, eventFile(`warm-${name}`, caseEvents), String(WARMUP_CALLS), String(perRound)],
          childEnv,
        );
        if (!result.samples) throw new Error(`warm ${name}: ${result.error ?? 'no samples'}`);
        const failed = result.samples.filter((s) => !s.ok);
        if (failed.length > 0)
          throw new Error(`warm ${name}: ${failed.length} calls failed (${failed[0]!.status})`);
        warm.get(name)!.push(...result.samples);
      }
    }

    // ---- Figures.
    const coldOf = (key: string) => {
      const samples = cold.get(key)!;
      const totals = samples.map((s) => s.totalMs);
      return {
        medianMs: round(median(totals)),
        minMs: round(Math.min(...totals)),
        loadMedianMs: round(median(samples.map((s) => s.loadMs))),
        firstRequestMedianMs: round(median(samples.map((s) => s.firstMs))),
        samplesMs: totals.map((t) => round(t)),
      };
    };
    const emptyCold = coldOf('floor:empty');
    const functionFigures = functionIds.map((id) => {
      const fnCold = coldOf(`fn:${id}`);
      const floorKind = FLOOR_OF[id];
      const floorCold = coldOf(`floor:${floorKind}`);
      const ratio = fnCold.medianMs / floorCold.medianMs;
      const bundleKb = kb(functions[id].bytes);
      return {
        function: id,
        entry: id === 'authorizer' ? authorizer.entry : handlerEntry(id),
        bundleBytes: functions[id].bytes,
        bundleKb: round(bundleKb, 1),
        cold: fnCold,
        floorEmpty: { medianMs: emptyCold.medianMs, minMs: emptyCold.minMs },
        floorBareSdk: { kind: floorKind, bundleKb: round(kb(floors[floorKind].bytes), 1), ...floorCold },
        ratioVsBareSdk: round(ratio, 3),
        // Median of the per-round ratios of back-to-back runs: less swayed by load from outside.
        pairedRatioVsBareSdk: round(pairedRatio(cold.get(`fn:${id}`)!, cold.get(`floor:${floorKind}`)!), 3),
        // The ratio alone misleads when the floor is tiny (health's floor is the empty handler).
        overBareSdkMs: round(fnCold.medianMs - floorCold.medianMs),
        budget: {
          bundle: { limitKb: BUDGET.bundleKb, status: status(bundleKb <= BUDGET.bundleKb) },
          cold: { limitRatio: BUDGET.coldRatio, status: status(ratio <= BUDGET.coldRatio) },
        },
      };
    });
    const floorFigures = [...measuredFloors].map((kind) => ({
      floor: kind,
      bundleBytes: floors[kind].bytes,
      bundleKb: round(kb(floors[kind].bytes), 1),
      cold: coldOf(`floor:${kind}`),
    }));
    const warmFigures = warmCases.map(({ name, fn }) => {
      const samples = warm.get(name)!;
      const logged = samples.flatMap((s) => (s.log ? [s.log] : []));
      const wall = samples.map((s) => s.wallMs);
      // As the request log line has it (none for the authorizer, which logs no request line).
      const overheadLog = logged.map((l) => l.durationMs - l.ms);
      // Wall time with no DynamoDB request in flight, timed at the socket.
      const overheadInFlight = samples.map((s) => s.wallMs - s.inFlightMs);
      const roundTrips = logged.length > 0 ? logged.map((l) => l.calls) : samples.map((s) => s.socketCalls);
      const sockets = samples.map((s) => s.socketCalls);
      const floorName = fn && FLOOR_OF[fn] !== 'empty' ? `floor:${FLOOR_OF[fn]}` : undefined;
      return {
        case: caseLabel(name),
        p50Ms: round(median(wall)),
        p95Ms: round(p95(wall)),
        overheadLogP50Ms: logged.length > 0 ? round(median(overheadLog)) : null,
        overheadLogP95Ms: logged.length > 0 ? round(p95(overheadLog)) : null,
        overheadInFlightP50Ms: round(median(overheadInFlight)),
        overheadInFlightP95Ms: round(p95(overheadInFlight)),
        dynamodbRoundTrips: {
          min: Math.min(...roundTrips),
          max: Math.max(...roundTrips),
          source: logged.length > 0 ? 'log' : 'socket',
        },
        socketRoundTrips: { min: Math.min(...sockets), max: Math.max(...sockets) },
        bareSdkP50Ms: floorName ? round(median(warm.get(floorName)!.map((s) => s.wallMs))) : null,
        companiesFound: samples[0]?.found ?? null,
        // "Time not spent waiting on DynamoDB" is the in-flight figure: the log's adds up parallel waits.
        budget: warmBudget(fn, roundTrips, overheadInFlight),
      };
    });

    const results = {
      generatedAt: new Date().toISOString(),
      environment: {
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        dynamodb: endpoint,
      },
      settings: {
        bundling: bundlingSettings,
        coldRuns: runs,
        warmCalls,
        warmRounds: WARM_ROUNDS,
        warmupCalls: WARMUP_CALLS,
        companiesLoaded: COMPANIES,
        bulkCompanies: BULK_SIZE,
        kb: 1024,
      },
      budgets: BUDGET,
      functions: functionFigures,
      floors: floorFigures,
      warm: warmFigures,
      elapsedSeconds: round((performance.now() - started) / 1000, 1),
    };

    printTables(functionFigures, floorFigures, warmFigures, results.elapsedSeconds, runs, warmCalls);
    writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`\nFigures written to ${path.relative(process.cwd(), RESULTS_FILE) || RESULTS_FILE}`);
  } finally {
    stopDynamoDb?.();
    // On a shared DynamoDB (DYNAMODB_ENDPOINT given), leave nothing behind.
    if (!stopDynamoDb && endpoint) await dropTable(endpoint, tableName);
    rmSync(workDir, { recursive: true, force: true });
  }
}

type Verdict = { limit: number; value: number; status: string };

function warmBudget(
  fn: FunctionId | undefined,
  roundTrips: number[],
  overheads: number[],
): Record<string, Verdict> {
  const worst = Math.max(...roundTrips);
  if (
    fn === 'getCompanyFinancials' ||
    fn === 'getCompanyLookalikes' ||
    fn === 'getCompanyRelationships' ||
    fn === 'getCompanyLegalEntities'
  ) {
    return {
      roundTrips: {
        limit: BUDGET.singleRoundTrips,
        value: worst,
        status: status(worst <= BUDGET.singleRoundTrips),
      },
    };
  }
  if (
    fn === 'getCompanyFinancialsBulk' ||
    fn === 'getCompanyLookalikesBulk' ||
    fn === 'getCompanyRelationshipsBulk'
  ) {
    const overhead = median(overheads);
    return {
      roundTrips: {
        limit: BUDGET.bulkRoundTrips,
        value: worst,
        status: status(worst <= BUDGET.bulkRoundTrips),
      },
      overhead: {
        limit: BUDGET.bulkOverheadMs,
        value: round(overhead),
        status: status(overhead < BUDGET.bulkOverheadMs),
      },
    };
  }
  return {};
}

function caseLabel(name: string): string {
  const labels: Record<string, string> = {
    getHealth: 'health GET',
    getCompanyFinancials: 'financials single GET',
    getCompanyFinancialsBulk: `financials bulk POST (${BULK_SIZE} companies, limit 4)`,
    getCompanyLookalikes: 'lookalikes single GET',
    getCompanyLookalikesBulk: `lookalikes bulk POST (${BULK_SIZE} companies, limit 10)`,
    getCompanyRelationships: 'relationships single GET',
    getCompanyRelationshipsBulk: `relationships bulk POST (${BULK_SIZE} companies)`,
    getCompanyLegalEntities: 'legal entities single GET',
    authorizer: 'authorizer (TOKEN)',
    'floor:getCompany': '  bare SDK: GetItem company',
    'floor:batchGetCompanies': `  bare SDK: BatchGetItem ${BULK_SIZE} keys`,
    'floor:getToken': '  bare SDK: GetItem token',
  };
  return labels[name] ?? name;
}

/**
 * The events each function is measured with. Warm calls cycle through the list: single GETs over 50
 * companies, bulk calls over three disjoint sets of 100 distinct companies.
 */
function benchEvents(
  refs: { countryCode: string; companyNumber: string }[],
  token: string,
  smartListCompany: { country: string; companyNumber: string },
): Record<FunctionId, BenchEvent[]> {
  const resource = (id: RouteId) => routes[id].path;
  const bulkSets = [0, 1, 2].map((set) => refs.slice(set * BULK_SIZE, (set + 1) * BULK_SIZE));
  if (bulkSets.some((set) => set.length < BULK_SIZE)) throw new Error(`need ${3 * BULK_SIZE} demo companies`);
  // A company in the path (the single GETs), or 100 companies in the body (the bulk POSTs).
  const single = (id: RouteId) =>
    refs
      .slice(0, 50)
      .map((ref) => proxyEvent({ method: 'GET', resource: resource(id), pathParameters: ref }));
  const bulk = (id: RouteId, extra: Record<string, unknown> = {}) =>
    bulkSets.map((companies) =>
      proxyEvent({ method: 'POST', resource: resource(id), body: { companies, ...extra } }),
    );
  return {
    getHealth: [proxyEvent({ method: 'GET', resource: resource('getHealth'), caller: null })],
    getCompanyFinancials: single('getCompanyFinancials'),
    getCompanyFinancialsBulk: bulk('getCompanyFinancialsBulk', { limit: 4 }),
    getCompanyLookalikes: single('getCompanyLookalikes'),
    getCompanyLookalikesBulk: bulk('getCompanyLookalikesBulk', { limit: 10 }),
    getCompanyRelationships: single('getCompanyRelationships'),
    getCompanyRelationshipsBulk: bulk('getCompanyRelationshipsBulk'),
    getCompanyLegalEntities: single('getCompanyLegalEntities'),
    getLists: [proxyEvent({ method: 'GET', resource: resource('getLists'), query: { limit: '10' } })],
    getListCompanies: [
      proxyEvent({ method: 'GET', resource: resource('getListCompanies'), pathParameters: { id: '1' } }),
      proxyEvent({
        method: 'GET',
        resource: resource('getListCompanies'),
        pathParameters: { id: '4' },
        query: { limit: '100' },
      }),
    ],
    getListContacts: [
      proxyEvent({ method: 'GET', resource: resource('getListContacts'), pathParameters: { id: '1' } }),
    ],
    // 100 entries a call into alice's private list (id 2); after the first round every company is already there.
    addListCompanies: bulkSets.map((companies) =>
      proxyEvent({
        method: 'PUT',
        resource: resource('addListCompanies'),
        pathParameters: { id: '2' },
        body: {
          companies: companies.map((c) => ({ country: c.countryCode, companyNumber: c.companyNumber })),
        },
      }),
    ),
    getList: [proxyEvent({ method: 'GET', resource: resource('getList'), pathParameters: { id: '1' } })],
    // A new name every call: a list name is unique in its account.
    createList: [
      proxyEvent({
        method: 'POST',
        resource: resource('createList'),
        body: { name: 'Bench list {{seq}}', type: 'STATIC' },
      }),
    ],
    // Two column sets in turn, so every call changes the list.
    updateList: [['country', 'place'], ['country']].map((columns) =>
      proxyEvent({
        method: 'PATCH',
        resource: resource('updateList'),
        pathParameters: { id: '2' },
        body: { columns },
      }),
    ),
    // A list of its own each call (the bench made them).
    deleteList: [
      proxyEvent({
        method: 'DELETE',
        resource: resource('deleteList'),
        pathParameters: { id: '{{pooled}}' },
      }),
    ],
    // One company of smart list 4 moved to ARCHIVED and back, in turn.
    moveListCompanies: (['ARCHIVED', 'SAVED'] as const).map((state) =>
      proxyEvent({
        method: 'PATCH',
        resource: resource('moveListCompanies'),
        pathParameters: { id: '4' },
        body: { companies: [{ ...smartListCompany, state }] },
      }),
    ),
    authorizer: [
      {
        type: 'TOKEN',
        authorizationToken: `Bearer ${token}`,
        methodArn: 'arn:aws:execute-api:local:000000000000:local/local/GET/v1/x',
      },
    ],
  };
}

// ---- Bundles -------------------------------------------------------------------------------------

/** The settings NodejsFunction bundles with (infra/function.ts), so the sizes are the deployed ones. */
function buildOptions(outfile: string): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: bundlingSettings.target,
    minify: bundlingSettings.minify,
    sourcemap: bundlingSettings.sourceMap,
    mainFields: [...bundlingSettings.mainFields],
    external: [...bundlingSettings.externalModules],
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
      return [id, { id, file, bytes: statSync(file).size }] as const;
    }),
  );
  return Object.fromEntries(built) as Record<FunctionId, Subject>;
}

async function buildFloors(workDir: string): Promise<Record<FloorKind, Subject>> {
  const built = await Promise.all(
    (Object.keys(FLOOR_SOURCES) as FloorKind[]).map(async (kind) => {
      const file = path.join(workDir, `floor-${kind}.js`);
      await build({
        ...buildOptions(file),
        // Resolved from the project, so the floors bundle the same pinned SDK as the functions.
        stdin: {
          contents: FLOOR_SOURCES[kind],
          resolveDir: ROOT,
          sourcefile: `floor-${kind}.js`,
          loader: 'js',
        },
      });
      return [kind, { id: `floor:${kind}`, file, bytes: statSync(file).size }] as const;
    }),
  );
  return Object.fromEntries(built) as Record<FloorKind, Subject>;
}

// ---- Children ------------------------------------------------------------------------------------

function runChild<T>(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<T> {
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
      resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as T);
    });
  });
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

function printTables(
  functions: {
    function: string;
    bundleKb: number;
    cold: { medianMs: number; minMs: number };
    floorEmpty: { medianMs: number };
    floorBareSdk: { kind: FloorKind; medianMs: number };
    ratioVsBareSdk: number;
    pairedRatioVsBareSdk: number;
    overBareSdkMs: number;
    budget: { bundle: { status: string }; cold: { status: string } };
  }[],
  floors: { floor: FloorKind; bundleKb: number; cold: { medianMs: number; minMs: number } }[],
  warm: {
    case: string;
    p50Ms: number;
    p95Ms: number;
    overheadLogP50Ms: number | null;
    overheadInFlightP50Ms: number;
    dynamodbRoundTrips: { min: number; max: number };
    bareSdkP50Ms: number | null;
    budget: Record<string, { status: string }>;
  }[],
  elapsedSeconds: number,
  runs: number,
  calls: number,
): void {
  const f = (n: number, digits = 1) => n.toFixed(digits);
  console.log(
    `\nCold init: require(bundle) + first request, fresh node ${process.version} process, median of ${runs}`,
  );
  console.log(
    `Budgets: bundle ≤ ${BUDGET.bundleKb} KB minified; cold ≤ ${BUDGET.coldRatio} × the bare-SDK floor\n`,
  );
  printTable(
    [
      'function',
      'bundle KB',
      'cold ms (median)',
      'cold ms (min)',
      'floor empty ms',
      'floor bare-SDK ms',
      'ratio vs bare-SDK',
      'paired ratio',
      'Δ ms',
      'budget',
    ],
    functions.map((r) => [
      r.function,
      f(r.bundleKb),
      f(r.cold.medianMs),
      f(r.cold.minMs),
      f(r.floorEmpty.medianMs),
      `${f(r.floorBareSdk.medianMs)} (${r.floorBareSdk.kind})`,
      f(r.ratioVsBareSdk, 2),
      f(r.pairedRatioVsBareSdk, 2),
      `${r.overBareSdkMs >= 0 ? '+' : ''}${f(r.overBareSdkMs)}`,
      `bundle ${r.budget.bundle.status}, cold ${r.budget.cold.status}`,
    ]),
  );
  console.log(
    '\nratio = cold median ÷ bare-SDK floor median (judged against the budget); paired ratio = median of the' +
      '\nper-round ratios, function and floor run back to back; Δ = cold median − bare-SDK floor median.',
  );
  console.log('\nFloors (same esbuild settings, same run)\n');
  printTable(
    ['floor', 'bundle KB', 'cold ms (median)', 'cold ms (min)'],
    floors.map((r) => [r.floor, f(r.bundleKb), f(r.cold.medianMs), f(r.cold.minMs)]),
  );
  console.log(
    `\nWarm: ${calls} calls per case in ${WARM_ROUNDS} interleaved processes, each after ${WARMUP_CALLS} warm-up calls`,
  );
  console.log(
    `Budgets: single GET ${BUDGET.singleRoundTrips} round trip; bulk ≤ ${BUDGET.bulkRoundTrips} round trips and overhead p50 < ${BUDGET.bulkOverheadMs} ms\n`,
  );
  printTable(
    [
      'case',
      'p50 ms',
      'p95 ms',
      'overhead p50 ms (log)',
      'overhead p50 ms (in flight)',
      'DynamoDB round trips',
      'budget',
    ],
    warm.map((r) => [
      r.case,
      f(r.p50Ms, 2),
      f(r.p95Ms, 2),
      r.overheadLogP50Ms === null ? null : f(r.overheadLogP50Ms, 2),
      f(r.overheadInFlightP50Ms, 2),
      r.dynamodbRoundTrips.min === r.dynamodbRoundTrips.max
        ? r.dynamodbRoundTrips.min
        : `${r.dynamodbRoundTrips.min}–${r.dynamodbRoundTrips.max}`,
      Object.entries(r.budget)
        .map(([name, b]) => `${name === 'roundTrips' ? 'round trips' : name} ${b.status}`)
        .join(', ') || null,
    ]),
  );
  console.log(
    '\noverhead (log) = durationMs − dynamodb.ms from the request log line; overhead (in flight) = wall time with no' +
      '\nDynamoDB request in flight, timed at the socket. Timings are local (DynamoDB Local, this machine): compare within a run.',
  );
  for (const r of warm) {
    if (r.overheadLogP50Ms !== null && r.overheadLogP50Ms < 0) {
      console.log(
        `Note: ${r.case.trim()}: the log line's overhead is negative (${r.overheadLogP50Ms} ms): its dynamodb.ms adds up` +
          '\nthe durations of calls that ran in parallel, so it overstates the wait; the budget is judged on the in-flight figure.',
      );
    }
  }
  console.log(`Run took ${elapsedSeconds} s.`);
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
