/**
 * The bench's figures for one function and its floor, from their samples: the paired ratios, the spreads
 * printed beside them, and the verdict against each budget (what is judged and why: bench.ts).
 */
import { handlerEntry } from '../../lib/http/route';
import { authorizer } from '../../lib/routes';
import type { BenchCase, FunctionId } from './bench-case';
import type { ColdSample, WarmSample } from './processes';
import { kb, mean, median, round, spread, verdict } from './statistics';

/**
 * The budgets (docs/benchmarks.md): every caller-facing function that exists is held to them. No size
 * budget: a bundle's size is printed, its cold start judged.
 */
export const BUDGET = {
  /**
   * Cold init without in-flight time, as process CPU, paired ratio to its floor: the same public
   * packages loaded (the SDK clients, middy's core) and the same DynamoDB calls made bare.
   */
  coldRatio: 1.0,
  /** CPU per warm call, paired ratio to the bare-SDK floor: single, bulk and authorizer cases. */
  cpuRatio: 1.1,
  singleRoundTrips: 1,
  bulkRoundTrips: 2,
  /** Issue 9: updates resolve the legal entity ids, then read their feeds and relationships. */
  updatesRoundTrips: 3,
  /**
   * A name search (lib/search/search.ts): a Query per country (3); past a Query's bound, 2 more words
   * for that country (6); past every bound, the exact-name lookup (2 BatchGetItems).
   */
  searchRoundTrips: 11,
} as const;

/** Module load + the first request's time with no DynamoDB request in flight (wall clock). */
const coldNet = (s: ColdSample) => s.loadMs + s.firstMs - s.inFlightMs;
/** Module load + the first request's own work, as process CPU: what is judged (see the top of bench.ts). */
const coldCpu = (s: ColdSample) => s.cpuMs;

/** Cold runs of a function and of its floor, in pairs: the i-th of each ran back to back. */
export interface ColdSamples {
  fn: ColdSample[];
  floor: ColdSample[];
}

/** Warm calls of a function and of its floor, per round, and the CPU its answer costs at the least. */
export interface WarmSamples {
  fn: WarmSample[][];
  floor: WarmSample[][];
  answerMs: number;
}

export function functionFigures(
  id: FunctionId,
  benchCase: BenchCase,
  c: ColdSamples,
  w: WarmSamples,
  bundleBytes: number,
  floor: { name: string; bytes: number },
) {
  const bundleKb = kb(bundleBytes);

  const coldCpuRatio = spread(c.fn.map((s, i) => coldCpu(s) / coldCpu(c.floor[i]!)));
  const coldTotalRatioOfMedians = median(c.fn.map((s) => s.totalMs)) / median(c.floor.map((s) => s.totalMs));
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
  // Counted on the wire (every HTTP attempt), not from the request log line, which most calls do not write.
  const roundTrips = fnCalls.map((s) => s.socketCalls);
  const worstRoundTrips = Math.max(...roundTrips);

  const budget: Record<string, { limit: number; value: number; status: string }> = benchCase.document
    ? {}
    : {
        cold: {
          limit: BUDGET.coldRatio,
          value: coldCpuRatio.median,
          status: verdict(coldCpuRatio.median <= BUDGET.coldRatio),
        },
      };
  if (benchCase.budget) {
    budget['cpu'] = {
      limit: BUDGET.cpuRatio,
      value: cpuRatio.median,
      status: verdict(cpuRatio.median <= BUDGET.cpuRatio),
    };
    const limit = {
      single: BUDGET.singleRoundTrips,
      authorizer: BUDGET.singleRoundTrips,
      bulk: BUDGET.bulkRoundTrips,
      updates: BUDGET.updatesRoundTrips,
      search: BUDGET.searchRoundTrips,
    }[benchCase.budget];
    budget['roundTrips'] = { limit, value: worstRoundTrips, status: verdict(worstRoundTrips <= limit) };
  }

  return {
    function: id,
    label: benchCase.label,
    entry: id === 'authorizer' ? authorizer.entry : handlerEntry(id),
    bundleBytes,
    bundleKb: round(bundleKb, 1),
    floor: { kind: benchCase.floor, name: floor.name, bundleKb: round(kb(floor.bytes), 1) },
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
      },
      companiesFound: fnCalls[0]?.found ?? null,
    },
    budget,
  };
}
