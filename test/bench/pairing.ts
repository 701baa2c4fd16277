/**
 * The bench's pairing: each function with its floor (their bundles and events files, `writePair`), and
 * the paired rounds that measure them, cold (`measureCold`: a fresh process per run, the function and
 * its floor back to back, taking turns at going first) and warm (`measureWarm`: one long-lived process
 * each, taking turns round by round). What the figures mean and how they are judged: bench.ts, figures.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FunctionBundle, Subject } from './bundles';
import type { BenchCase, BenchData, FunctionId } from './bench-case';
import { BENCH_CASES } from './cases';
import type { ColdSamples, WarmSamples } from './figures';
import { runCold, startWarm } from './processes';
import { progress } from './report';
import { floorName } from './floors';

/** Calls each warm process makes before the measured rounds. */
export const WARMUP_CALLS = 10;

/** How the rounds run: `npm run bench -- --rounds N --calls N --profile DIR`. */
export interface RoundOptions {
  rounds: number;
  /** Calls per warm round. */
  calls: number;
  /** --profile: where the runs write their CPU profiles. */
  profile: string | undefined;
}

/** One function with its floor: their bundles and the events files they are called with. */
export interface Pair {
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
export class WorkDir {
  readonly path = mkdtempSync(path.join(os.tmpdir(), 'company-data-bench-'));

  write(name: string, contents: string): string {
    const file = path.join(this.path, name);
    writeFileSync(file, contents);
    return file;
  }
}

/** A function and its floor ready to run: the floor its case names, and their events written to files. */
export function writePair(
  workDir: WorkDir,
  id: FunctionId,
  data: BenchData,
  subject: FunctionBundle,
  floors: Map<string, Subject>,
): Pair {
  const benchCase: BenchCase = BENCH_CASES[id];
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
export async function measureCold(
  pairs: Pair[],
  { rounds, profile }: RoundOptions,
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
export async function measureWarm(
  pairs: Pair[],
  { rounds, calls, profile }: RoundOptions,
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
