/**
 * The bench's output: its progress on standard error, the tables on standard output (cold init, warm CPU
 * and the floors, each with its verdicts), and every figure in bench-results.json.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUDGET, type functionFigures } from './figures';
import type { Spread } from './statistics';

/** A table on standard output: the first column left-aligned, the others right-aligned. */
export function printTable(headers: string[], rows: (string | number | null)[][]): void {
  const cells = [headers, ...rows.map((row) => row.map((c) => (c === null ? '–' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(cells[0]!));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of cells.slice(1)) console.log(line(row));
}

type FunctionFigures = ReturnType<typeof functionFigures>;

export function printTables(
  functions: FunctionFigures[],
  floors: { floor: string; bundleKb: number }[],
  elapsedSeconds: number,
  { rounds, calls, warmupCalls }: { rounds: number; calls: number; warmupCalls: number },
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
      `\nBudget: paired CPU ratio ≤ ${f(BUDGET.coldRatio, 1)} × the floor (the same public packages loaded and used, the same DynamoDB calls made bare);` +
      ` bundle size printed, not judged\n`,
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
      r.floor.name,
      f(r.cold.function.totalMs.median),
      f(r.cold.floor.totalMs.median),
      f(r.cold.totalRatioOfMedians, 2),
      s(r.cold.function.netMs),
      s(r.cold.function.cpuMs),
      s(r.cold.floor.cpuMs),
      s(r.cold.pairedCpuRatio, 2),
      verdicts(r.budget, ['cold']),
    ]),
  );

  console.log(
    `\nWarm, one process each for a function and its floor, ${warmupCalls} warm-up calls, then ${rounds} paired rounds of ${calls} calls.` +
      `\nNEW (judged): process CPU ms per call (mean per round), median [Q1–Q3]; paired ratio = median of the per-round ratios.` +
      `\nOLD: overhead = wall ms with no DynamoDB request in flight (p50 over all calls).` +
      `\nNot judged: answer ms = CPU to send the function's answer at the least (its body stringified from the parsed JSON, and the runtime's serialisation), which the floors (a few bytes) do not pay; vs floor + answer = the paired ratio with that added to the floor.` +
      `\nBudgets: single, bulk, updates, search and authorizer: CPU paired ratio ≤ ${BUDGET.cpuRatio} × the floor's; round trips single ${BUDGET.singleRoundTrips}, bulk ≤ ${BUDGET.bulkRoundTrips}, updates (single and bulk) ≤ ${BUDGET.updatesRoundTrips}, search ≤ ${BUDGET.searchRoundTrips}\n`,
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

  console.log('\nFloors (the same public packages, the same esbuild settings, the calls made bare)\n');
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

const RESULTS_FILE = path.join(__dirname, '..', '..', 'bench-results.json');

export function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

export function writeResults(results: object): void {
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nFigures written to ${path.relative(process.cwd(), RESULTS_FILE) || RESULTS_FILE}`);
}
