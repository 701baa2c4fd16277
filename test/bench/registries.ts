/**
 * `npm run bench:registries`: the registry imports on generated KBO- and SIRENE-shaped files
 * (test/bench/registry-files.ts), in two parts.
 *
 * 1. **Conversion alone** (parse, join, map; no writes) at several shares of the real registries' size,
 *    each size in a child process of its own so that its peak memory (RSS) is its own: rows a second by
 *    wall time and by the process's CPU time (user + system: what one core does, whatever else the
 *    machine runs), and peak memory, which should stay flat as the files grow.
 * 2. **Into DynamoDB Local** through `npm run import -- --format …` (a child process, a fresh table), about
 *    3,000 units of each registry: the first import against the ceiling the import bench measures in the same run
 *    (DynamoDB Local's own write floor × the items the import writes per company, test/bench/write-floor.ts;
 *    the floor measured just before and just after the first import, their mean),
 *    then the same files again, whose rows a second should be at least those of the conversion alone
 *    (it reads one digest item per block of companies, not each company: its read units per company);
 *    the re-import and the conversion alone take turns five times, each time the median of its rounds.
 *    The same is done with files a tenth of the size: the difference of the two sizes is the per-row
 *    rate (of the re-import and of the conversion alone alike, by wall and by CPU time), apart from what
 *    a run pays whatever its size (process start, id scheme, run marks, completion), reported beside.
 *    The command's runs are timed from its `import:run` mark (its modules loaded, its files opened), as
 *    the conversion is timed inside its process. Then each of the two runs round after round in one
 *    process (`warm`): a process a run compiles the code it runs in every run, where a registry's
 *    millions of rows run compiled after their first thousands; the per-row rates of its later rounds
 *    are reported beside, three processes of each taking turns.
 *
 * Figures only; it exits 0. On a loaded machine the rates are the machine's, not the code's: the load
 * column says how loaded it was.
 *
 *   npm run bench:registries                                conversion at 1, 3 and 10 %, import of 3,000 units
 *   npm run bench:registries -- --sizes 1,3 --import-units 10000
 *   npm run bench:registries -- --import-units 0            conversion only
 *   BENCH_JFR_DIR=/tmp/jfr npm run bench:registries …       DynamoDB Local's flight recorder over each first import (jfr.ts)
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuMsPerUnit, importRunFigures, runCli, usageReporter } from './cli-runs';
import { benchDynamoDb, dynamoDbLocalCpuMs } from './local-dynamodb';
import { importArgs, measureInChild, warmInChild, type Kind, type WarmRounds } from './registry-children';
import { REAL, writeKboFiles, writeSireneFiles } from './registry-files';
import { jfrPhase } from './jfr';
import { recordingProxy } from './recording-proxy';
import { median, secondsRange, withMedians } from './statistics';
import { readRecording, replaySplit } from './write-replay';
import {
  bracketingFloor,
  companiesPerSecondCeiling,
  floorLine,
  importWriteSplit,
  IN_FLIGHT,
  ITEMS_PER_REQUEST,
  measureWriteFloor,
  type WriteFloor,
  type WriteSplit,
} from './write-floor';

const KINDS = ['kbo', 'sirene'] as const;

/** The files of `kind` at `share` % of the real registry in `dir`: the units and CSV rows written. */
async function writeFiles(kind: Kind, dir: string, share: number): Promise<{ units: number; rows: number }> {
  const units = Math.max(
    1,
    Math.round(((kind === 'kbo' ? REAL.kboEnterprises : REAL.sireneUnits) * share) / 100),
  );
  const rows = kind === 'kbo' ? await writeKboFiles(dir, units) : await writeSireneFiles(dir, units);
  return { units, rows };
}

const pad = (cells: Array<[string, number]>) => cells.map(([text, width]) => text.padStart(width)).join(' ');
const load = () => os.loadavg()[0]!.toFixed(1);

async function conversion(shares: number[], scratch: string): Promise<void> {
  console.log(
    'Conversion alone (parse, join, map; no writes), one process per size\n\n' +
      'kind    share      units    CSV rows   wall s  rows/s (wall)  CPU s  rows/s (CPU)  peak RSS MB  load',
  );
  for (const share of shares) {
    for (const kind of KINDS) {
      const dir = path.join(scratch, `${kind}-${share}`);
      const { units, rows } = await writeFiles(kind, dir, share);
      const m = await measureInChild(kind, dir);
      await rm(dir, { recursive: true, force: true });
      if (m.items < units) throw new Error(`${kind}: ${m.items} items converted of ${units} units`);
      console.log(
        kind.padEnd(6) +
          pad([
            [`${share} %`, 7],
            [String(units), 10],
            [String(rows), 11],
            [m.seconds.toFixed(1), 8],
            [String(Math.round(rows / m.seconds)), 14],
            [m.cpuSeconds.toFixed(1), 6],
            [String(Math.round(rows / m.cpuSeconds)), 13],
            [m.maxRssMb.toFixed(0), 12],
            [load(), 5],
          ]),
      );
    }
  }
}

/**
 * The files of `kind` for about `units` units, imported into a fresh table, then again, then converted
 * alone; `countReads` runs the re-import once more asking DynamoDB Local what it read (`counted`).
 */
async function importTwice(
  kind: Kind,
  units: number,
  dir: string,
  run: (
    kind: Kind,
    dir: string,
    table: string,
    options?: string[],
  ) => Promise<ReturnType<typeof importRunFigures> & { javaMs: number }>,
  extras: {
    record?: (kind: Kind, dir: string) => Promise<void>;
    afterFirst?: () => Promise<void>;
    countReads?: boolean;
  } = {},
) {
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const share = (100 * units) / (kind === 'kbo' ? REAL.kboEnterprises : REAL.sireneUnits);
  const written = await writeFiles(kind, dir, share);
  const table = `registries-bench-${randomUUID()}`;
  await ensureTable(endpointOf(), table);
  console.error(`importing ${kind}: ${written.units} units, ${written.rows} CSV rows, into DynamoDB Local`);
  const first = await jfrPhase(endpointOf(), `import-${kind}-first`, () => run(kind, dir, table));
  const firstLoad = load();
  await extras.afterFirst?.();
  // The re-import and the conversion alone take turns, `AGAIN_ROUNDS` times: each lasts a second or two,
  // which says as much of the minute as of the code, so their times are the medians of the rounds.
  const agains: Array<Awaited<ReturnType<typeof run>>> = [];
  const conversions: Array<Awaited<ReturnType<typeof measureInChild>>> = [];
  for (let round = 0; round < AGAIN_ROUNDS; round++) {
    // Timed by the process's wall clock, its start included (the summary's seconds are rounded to a
    // tenth, as much as a small file's whole re-import takes), and from its `import:run` mark on.
    const again = await run(kind, dir, table);
    agains.push({ ...again, seconds: again.wallSeconds });
    conversions.push(await measureInChild(kind, dir));
  }
  const again = withMedians(agains, ['seconds', 'cpuSeconds', 'runSeconds', 'runCpuSeconds', 'javaMs']);
  const converted = withMedians(conversions, ['seconds', 'cpuSeconds']);
  // The same two, each round after round in one process (`warm`). A process's rounds spread less than
  // one process against the next (a warm KBO re-import of one code: 0.71–0.73 s in four processes,
  // 0.84–0.90 in another), so the processes too take turns.
  const warmAgains: WarmRounds[] = [];
  const warmConversions: WarmRounds[] = [];
  for (let turn = 0; turn < WARM_TURNS; turn++) {
    warmAgains.push(await warmInChild(kind, dir, WARM_ROUNDS, { table, endpoint: endpointOf() }));
    warmConversions.push(await warmInChild(kind, dir, WARM_ROUNDS));
  }
  const warmAgain = warmMedians(warmAgains);
  const warmConverted = warmMedians(warmConversions);
  const againLoad = load();
  // Once more, asking DynamoDB Local what it read (`--capacity`, which costs it a job an item): the
  // re-import's read units, apart from the timed runs.
  const counted = extras.countReads ? await run(kind, dir, table, ['--capacity']) : null;
  await extras.record?.(kind, dir);
  await rm(dir, { recursive: true, force: true });
  return { ...written, first, firstLoad, again, againLoad, counted, converted, warmAgain, warmConverted };
}

/** Rounds of a `warm` process, and the first ones left out of its medians (the JIT compiler's). */
const WARM_ROUNDS = 12;
const WARM_UP_ROUNDS = 4;
/** `warm` processes of the re-import and of the conversion, taking turns. */
const WARM_TURNS = 3;

/**
 * The median of `warm` processes' medians of their rounds after the first `WARM_UP_ROUNDS`, and
 * those medians (to print their spread).
 */
function warmMedians(processes: WarmRounds[]) {
  const later = (rounds: number[]) => median(rounds.slice(WARM_UP_ROUNDS));
  const seconds = processes.map((p) => later(p.seconds));
  return {
    seconds: median(seconds),
    cpuSeconds: median(processes.map((p) => later(p.cpuSeconds))),
    roundSeconds: seconds,
  };
}

const endpointOf = () => process.env['DYNAMODB_ENDPOINT']!;

/**
 * Re-imports and conversions alone of the same files, taking turns (`importTwice`): single rounds of
 * SIRENE's 20,000 units put its re-import per row at 55–132 % of the conversion's (docs/benchmarks.md,
 * 2026-12-01), and medians of three still at 95 % and 253 % in two idle runs of one code.
 */
const AGAIN_ROUNDS = 5;

/**
 * Rows a second of each row beyond the small files': the difference of two sizes takes out what a run
 * pays whatever its size (the process, the stage's id scheme, the run marks, the completion; for the
 * conversion, opening the files), so the rate is the per-row rate, not a fixed cost spread thin.
 */
const perRow = (rows: number, seconds: number, smallRows: number, smallSeconds: number) =>
  (rows - smallRows) / (seconds - smallSeconds);

async function intoDynamoDb(importUnits: number, scratch: string): Promise<void> {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const { endpoint, stop } = await benchDynamoDb({ log: console.error });
  const usage = usageReporter(scratch);
  const run = async (kind: Kind, dir: string, table: string, options: string[] = []) => {
    const java = dynamoDbLocalCpuMs(endpoint);
    const args = [...importArgs(kind, dir), '--table', table, ...options];
    const made = await runCli('import', args, { endpoint, usage });
    return { ...importRunFigures(made), javaMs: dynamoDbLocalCpuMs(endpoint) - java };
  };
  // The same files' first import once more, into a table of its own through a recording proxy that
  // writes every request to `recording`: what the replay sends. Not measured: the proxy adds latency.
  const inFlight = new Map<Kind, { mean: number; max: number }>();
  const record = (recording: string) => async (kind: Kind, dir: string) => {
    const table = `registries-recording-${randomUUID()}`;
    await ensureTable(endpoint, table);
    const proxy = await recordingProxy(endpoint, recording);
    console.error(`importing ${kind} once more through the recording proxy`);
    try {
      await runCli('import', [...importArgs(kind, dir), '--table', table], {
        endpoint: proxy.endpoint,
        usage,
      });
    } finally {
      inFlight.set(kind, proxy.inFlight());
      await proxy.close();
    }
  };
  const lines: string[] = [];
  const floors: string[] = [];
  try {
    // DynamoDB Local is a JVM: warmed up first, or the first import measured pays for its JIT.
    const warm = path.join(scratch, 'warm-up');
    await writeFiles('kbo', warm, 0.01);
    const warmTable = `registries-bench-${randomUUID()}`;
    await ensureTable(endpoint, warmTable);
    console.error('warming up DynamoDB Local');
    await run('kbo', warm, warmTable);
    await rm(warm, { recursive: true, force: true });
    const measureFloor = () => {
      console.error('measuring what DynamoDB Local itself can write (the floor)');
      return measureWriteFloor(endpoint);
    };
    for (const kind of KINDS) {
      const recording = path.join(scratch, `${kind}-requests.txt`);
      // The floor measured just before the first import and just after it: the import is judged
      // against their mean (`bracketingFloor`), so its share says something of the import, not the minute.
      const before = await measureFloor();
      let after = before;
      const big = await importTwice(kind, importUnits, path.join(scratch, `${kind}-import`), run, {
        record: record(recording),
        afterFirst: async () => {
          after = await measureFloor();
        },
        countReads: true,
      });
      const floor = bracketingFloor(before, after);
      floors.push(
        `${kind}: before its first import ${floorLine(before)}`,
        `${' '.repeat(kind.length)}  after it                  ${floorLine(after)}`,
      );
      // A tenth of the size, for what the re-import pays whatever its size (`perRow`).
      const small = await importTwice(
        kind,
        Math.max(1, Math.round(importUnits / SMALL_SHARE)),
        path.join(scratch, `${kind}-small`),
        run,
      );
      const { first, again, counted, converted, units, rows } = big;
      const ceiling = companiesPerSecondCeiling(floor, importWriteSplit(first.writes));
      const firstRate = first.written / first.seconds;
      const rate = (wall: number, cpu: number) =>
        `${Math.round(wall)} rows/s (wall), ${Math.round(cpu)} (CPU)`;
      // A figure's per-row rate between the two sizes.
      const slope = (of: (sized: typeof big) => number) => perRow(rows, of(big), small.rows, of(small));
      // The command's runs from their `import:run` mark on, as the conversion is timed inside its process.
      const againWall = slope((s) => s.again.runSeconds);
      const againCpu = slope((s) => s.again.runCpuSeconds);
      const convertedWall = slope((s) => s.converted.seconds);
      const convertedCpu = slope((s) => s.converted.cpuSeconds);
      const fixed = (total: number, rowsOf: number, perRowRate: number) =>
        Math.max(0, total - rowsOf / perRowRate);
      const warmAgain = slope((s) => s.warmAgain.seconds);
      const warmAgainCpu = slope((s) => s.warmAgain.cpuSeconds);
      const warmConverted = slope((s) => s.warmConverted.seconds);
      const warmConvertedCpu = slope((s) => s.warmConverted.cpuSeconds);
      lines.push(
        `${kind}: ${units} units, ${rows} CSV rows`,
        `  first  ${first.summary}`,
        `         ${first.writes}`,
        `         CPU per unit: import ${cpuMsPerUnit(first).toFixed(2)} ms, DynamoDB Local ` +
          `${(first.javaMs / units).toFixed(2)} ms, of which the same items written as the floor writes ` +
          `them ${floorMs(floor, importWriteSplit(first.writes)).toFixed(2)} ms (the rest: reads, item sizes, indexes)`,
        `         ${Math.round(firstRate)} companies/s written; ceiling ${Math.round(ceiling)}/s: ` +
          `${Math.round((100 * firstRate) / ceiling)} % of it (load ${big.firstLoad})`,
        ...(await replaySplit(
          endpoint,
          await readRecording(recording),
          first.written,
          first.javaMs / units,
          floorMs(floor, importWriteSplit(first.writes)),
        )),
        `         requests in flight during the recorded import: ${inFlight.get(kind)?.mean.toFixed(1)} on ` +
          `average, at most ${inFlight.get(kind)?.max} (the floor and the replays: ${IN_FLIGHT})`,
        `  again  ${again.summary}`,
        `         whole run: ${Math.round(rows / again.seconds)} CSV rows/s (the process's start included); the conversion alone of the same ` +
          `files ${Math.round(rows / converted.seconds)} rows/s; ${counted?.readUnitsPerCompany.toFixed(3)} read ` +
          `units per company (asked of a run after it: --capacity) (load ${big.againLoad})`,
        `         per row (beyond the ${small.rows} rows of ${small.units} units), a process a run, timed from the ` +
          `command's import:run mark and inside the conversion's process: again ${rate(againWall, againCpu)}; ` +
          `the conversion alone ${rate(convertedWall, convertedCpu)}: ` +
          `${Math.round((100 * againWall) / convertedWall)} % (wall), ${Math.round((100 * againCpu) / convertedCpu)} % (CPU)`,
        `         (medians of ${AGAIN_ROUNDS} rounds, the re-import and the conversion taking turns: again ` +
          `${secondsRange(again.roundSeconds)} and ${secondsRange(small.again.roundSeconds)} with the process's start, the conversion ` +
          `${secondsRange(converted.roundSeconds)} and ${secondsRange(small.converted.roundSeconds)} at the two sizes)`,
        `         per row, round after round in one process (rounds ${WARM_UP_ROUNDS + 1}–${WARM_ROUNDS}, as a long file runs ` +
          `after its first rows; the median of ${WARM_TURNS} processes taking turns, each its rounds' median` +
          `): again ${rate(warmAgain, warmAgainCpu)}; the conversion alone ` +
          `${rate(warmConverted, warmConvertedCpu)}: ${Math.round((100 * warmAgain) / warmConverted)} % (wall), ` +
          `${Math.round((100 * warmAgainCpu) / warmConvertedCpu)} % (CPU)`,
        `         (the processes' medians: again ${secondsRange(big.warmAgain.roundSeconds)} and ${secondsRange(small.warmAgain.roundSeconds)}, ` +
          `the conversion ${secondsRange(big.warmConverted.roundSeconds)} and ${secondsRange(small.warmConverted.roundSeconds)})`,
        `         what a re-import pays whatever its size: ${fixed(again.runSeconds, rows, againWall).toFixed(2)} s ` +
          `from its mark, ${fixed(again.seconds, rows, againWall).toFixed(2)} s with its process's start ` +
          `(the conversion alone, timed inside its process, ${fixed(converted.seconds, rows, convertedWall).toFixed(2)} s)`,
        `         CPU per unit: import ${cpuMsPerUnit(again).toFixed(3)} ms (process start included), DynamoDB Local ` +
          `${(again.javaMs / units).toFixed(3)} ms`,
      );
    }
  } finally {
    stop();
  }
  console.log(
    [
      '',
      'Into DynamoDB Local through `npm run import -- --format …` (a fresh table; then the same files again)',
      '',
      ...lines,
      '',
      `DynamoDB Local alone (${IN_FLIGHT} requests in flight; BatchWriteItem and TransactWriteItems of ` +
        `${ITEMS_PER_REQUEST}, UpdateItem one a request):`,
      ...floors,
      'ceiling: the companies a second DynamoDB Local could take if the import itself cost nothing, for the items',
      'it writes per company (its `writes:` line, split by request kind), at the median of the rounds of the',
      'floors measured just before and just after the first import. Rates on a loaded machine are the',
      "machine's: re-measure on an idle one (load < 1) before quoting them.",
    ].join('\n'),
  );
}

/** DynamoDB Local's CPU (ms) for a company's writes split like the import's, at the floor's cost an item. */
const floorMs = (floor: WriteFloor, split: Required<WriteSplit>) =>
  split.batchItems * floor.batch.javaMsPerItem +
  split.transactionItems * floor.transaction.javaMsPerItem +
  split.updateItems * floor.update.javaMsPerItem;

/** The small files' size: this share of `--import-units`. */
const SMALL_SHARE = 10;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1,3,10' },
      'import-units': { type: 'string', default: '3000' },
    },
  });
  const shares = values.sizes.split(',').filter(Boolean).map(Number);
  const importUnits = Number(values['import-units']);
  if (shares.some((n) => !(n > 0)) || !(importUnits >= 0))
    throw new Error('--sizes takes shares of the real registries in % (1,3,10), --import-units a number');
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'registries-bench-'));
  try {
    console.log(`${os.cpus().length} cores, load ${load()} at the start\n`);
    await conversion(shares, scratch);
    if (importUnits > 0) await intoDynamoDb(importUnits, scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
