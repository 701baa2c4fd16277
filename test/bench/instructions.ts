/**
 * `npm run bench -- --instructions`: the instructions a cold run executes, counted by valgrind's
 * callgrind, for each function, its floor and a bundle that does nothing. CPU time on a shared machine
 * moves by more than a function's excess over its floor from one run to the next; the instruction count
 * of the same cold run repeats within a few thousand whatever the load (node's hash and random seeds
 * fixed, V8's background compilation on the main thread), so each change to a function can be weighed.
 *
 * The count covers the whole process: node's own start and the cold runner around the bundle as well.
 * The empty bundle's run (`exports.handler` answering at once, the same runner and event) is that part,
 * so function − empty and floor − empty are the load and first request of each, and their ratio is the
 * instruction counterpart of the cold CPU ratio. Instructions are not CPU time (a cache miss costs more
 * than an add): the bench's paired CPU ratio stays the verdict.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { TIMEOUT_VARIABLES } from '../../lib/config';
import type { Pair, WorkDir } from './pairing';
import { runWrapped } from './processes';
import { printTable, progress } from './report';

/** node's options for a run whose count repeats: fixed seeds, and no helper threads to interleave. */
const REPEATABLE_NODE = ['--hash-seed=1', '--random-seed=1', '--single-threaded'];

/**
 * The storage client's deadlines, armed as on a request path, and Lambda's, long enough for a run under
 * valgrind (node some 50 times slower), which the request path's own would cut off with a 503.
 */
const PATIENT_STORAGE = {
  [TIMEOUT_VARIABLES.connectionMs]: '120000',
  [TIMEOUT_VARIABLES.requestMs]: '120000',
  // The time left that the runner's Lambda context reports (runners.ts), before middy answers 503.
  BENCH_REMAINING_MS: '600000',
};

/** A bundle that does nothing: what every count holds besides the bundle's own load and first request. */
const EMPTY_BUNDLE = `exports.handler = async () => ({ statusCode: 200, headers: {}, body: '{}' });\n`;

export interface InstructionCounts {
  function: string;
  floor: string;
  /** Millions of instructions of the whole cold run: the function's, its floor's, the empty bundle's. */
  functionM: number;
  floorM: number;
  emptyM: number;
  /** Function − floor, millions. */
  excessM: number;
  /** (function − empty) ÷ (floor − empty). */
  ratio: number;
}

/** Fails at once, with the fix, where valgrind is not installed. */
export function requireValgrind(): void {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    throw new Error('--instructions needs valgrind (sudo apt-get install -y valgrind)');
  }
}

/**
 * One cold run of each side of each pair under callgrind (its profile `<id>.<side>.callgrind` in the work
 * directory, for callgrind_annotate), and one of the empty bundle with the function's event.
 */
export async function countInstructions(
  pairs: Pair[],
  coldRunner: string,
  env: NodeJS.ProcessEnv,
  workDir: WorkDir,
): Promise<InstructionCounts[]> {
  const empty = workDir.write('empty.js', EMPTY_BUNDLE);
  const rows: InstructionCounts[] = [];
  for (const [index, pair] of pairs.entries()) {
    progress(`instructions: ${pair.id} (${index + 1}/${pairs.length})`);
    const count = async (side: string, bundle: string, event: string, judged: boolean) => {
      const out = path.join(workDir.path, `${pair.id}.${side}.callgrind`);
      const { sample, stderr } = await runWrapped(
        ['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}`],
        coldRunner,
        [bundle, event],
        { ...env, ...PATIENT_STORAGE, BENCH_SEQ_FILE: pair.seqFile },
        REPEATABLE_NODE,
      );
      if (judged && !sample.ok)
        throw new Error(`${pair.id} (${side}) answered ${sample.status} under valgrind`);
      const collected = /Collected : (\d+)/.exec(stderr)?.[1];
      if (!collected) throw new Error(`${pair.id} (${side}): no instruction count from valgrind:\n${stderr}`);
      return Number(collected) / 1e6;
    };
    const functionM = await count('fn', pair.fn.subject.file, pair.firstEvent.fn, true);
    const floorM = await count('floor', pair.floor.subject.file, pair.firstEvent.floor, true);
    const emptyM = await count('empty', empty, pair.firstEvent.fn, false);
    progress(
      `  ${pair.id}: ${functionM.toFixed(2)} M, floor ${floorM.toFixed(2)} M, empty ${emptyM.toFixed(2)} M`,
    );
    rows.push({
      function: pair.id,
      floor: pair.floor.name,
      functionM,
      floorM,
      emptyM,
      excessM: functionM - floorM,
      ratio: (functionM - emptyM) / (floorM - emptyM),
    });
  }
  return rows;
}

/** `--instructions`: the counts of one cold run each (instructions.ts), in millions. */
export function printInstructions(rows: InstructionCounts[]): void {
  const m = (n: number) => n.toFixed(2);
  console.log(
    `\nInstructions of one cold run (valgrind --tool=callgrind; node ${process.version}, fixed seeds, single-threaded), millions.` +
      `\nempty: the same run with a bundle that does nothing; ratio = (function − empty) ÷ (floor − empty).\n`,
  );
  printTable(
    ['function', 'floor', 'function M', 'floor M', 'empty M', 'function − floor M', 'ratio'],
    rows.map((r) => [
      r.function,
      r.floor,
      m(r.functionM),
      m(r.floorM),
      m(r.emptyM),
      (r.excessM >= 0 ? '+' : '') + m(r.excessM),
      r.ratio.toFixed(3),
    ]),
  );
}
