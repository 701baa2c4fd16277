/**
 * Where a CBSO conversion's CPU goes, stage by stage, on a folder or ZIP of filings already written
 * (`npm run bench:filings` keeps its inputs, e.g. `/tmp/filings-bench-data/cbso-20000`):
 *
 *   npx tsx test/bench/filings-conversion.ts /tmp/filings-bench-data/cbso-20000
 *   npx tsx test/bench/filings-conversion.ts /tmp/filings-bench-data/cbso-zip-20000.zip --repeat 9
 *
 * Each stage runs alone over the same filings, `--repeat` times (7 by default), and prints the best and
 * the median run's CPU (the process's, user and system) in microseconds a filing: on a loaded machine
 * the best run is the one least disturbed. First the whole conversion as the import calls it
 * (`cbsoFilings`), then its stages: the files read (texts only: listing, opening, reading, inflating a
 * ZIP's members), the reference files' JSON parsed, the current year's rubrics read from the accounting
 * files' texts (`rubricsOfText`: their scan, or `JSON.parse` and `currentRubrics`), the figures mapped (`figuresOf`), the health indicator scored. The whole also pays what the stages leave out (the
 * reference's fields, the generators, the collector). To compare two versions of the code, alternate
 * their runs in the same minutes. The stages after reading hold the filings' texts in memory: `--limit`
 * (20,000 by default) bounds them. Figures only; it exits 0.
 */
import { parseArgs } from 'node:util';
import { openFilingFiles, type FilingTexts } from '../../lib/filings/cbso-files';
import { cbsoFilings, rubricsOfText } from '../../lib/filings/cbso';
import { figuresOf } from '../../lib/filings/figures';
import { healthOfFigures } from '../../lib/filings/health';
import type { Figures, Rubrics } from '../../lib/filings/mapping';

/** The best and the median of `repeat` runs of `run`, in ms of CPU. */
async function cpuMs(repeat: number, run: () => unknown): Promise<{ best: number; median: number }> {
  const runs: number[] = [];
  for (let r = 0; r < repeat; r++) {
    const start = process.cpuUsage();
    await run();
    const used = process.cpuUsage(start);
    runs.push((used.user + used.system) / 1000);
  }
  runs.sort((a, b) => a - b);
  return { best: runs[0]!, median: runs[Math.floor(runs.length / 2)]! };
}

/** The delivery's filings' texts, at most `limit`. */
async function textsOf(target: string, limit: number): Promise<FilingTexts[]> {
  const files = await openFilingFiles(target);
  const texts: FilingTexts[] = [];
  try {
    const filings = files.filings();
    if (Symbol.iterator in filings) {
      for (const f of filings) if (texts.push(f) >= limit) break;
    } else for await (const f of filings) if (texts.push(f) >= limit) break;
  } finally {
    files.close();
  }
  return texts;
}

const rubricsOf = (f: FilingTexts) => rubricsOfText(f.accountingText ?? '{"Rubrics":[]}');

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      repeat: { type: 'string', default: '7' },
      limit: { type: 'string', default: '20000' },
    },
  });
  const target = positionals[0];
  const repeat = Number(values.repeat);
  const limit = Number(values.limit);
  if (!target || !(repeat >= 1) || !(limit >= 1))
    throw new Error('usage: filings-conversion.ts FOLDER_OR_ZIP [--repeat N] [--limit FILINGS]');
  const perFiling = (ms: number, n: number) => ((1000 * ms) / n).toFixed(1).padStart(7);
  const print = (stage: string, n: number, { best, median }: { best: number; median: number }) =>
    console.log(`${stage.padEnd(8)} ${perFiling(best, n)} ${perFiling(median, n)}`);
  // The whole conversion and the reading first, while nothing else is held (a larger heap costs the
  // collector more), then the stages over the texts held in memory.
  let n = 0;
  const whole = await cpuMs(repeat, async () => {
    n = 0;
    for await (const item of cbsoFilings(target)) if (item.kind === 'filing' && ++n >= limit) break;
  });
  if (n === 0) throw new Error(`${target}: no filings`);
  console.log(`${n} filings of ${target}; CPU µs a filing, best and median of ${repeat} runs`);
  print('whole', n, whole);
  console.log(`         (${Math.round((1000 * n) / whole.best)} filings/s of CPU at best)`);
  print('read', n, await cpuMs(repeat, () => textsOf(target, limit)));
  const texts = await textsOf(target, limit);
  const rubrics: Rubrics[] = texts.map((f) => rubricsOf(f)?.rubrics).filter((r) => r !== undefined);
  const figures: Figures[] = rubrics.map((r) => figuresOf('cbso', r).figures);
  let sink = 0;
  const stages: Array<[string, () => unknown]> = [
    ['parse', () => texts.forEach((f) => f.referenceText && JSON.parse(f.referenceText))],
    ['rubrics', () => texts.forEach((f) => (sink += rubricsOf(f)?.unreadable ?? 0))],
    ['figures', () => rubrics.forEach((r) => (sink += figuresOf('cbso', r).dropped))],
    ['health', () => figures.forEach((f) => (sink += healthOfFigures(f) ?? 0))],
  ];
  for (const [stage, run] of stages) print(stage, texts.length, await cpuMs(repeat, run));
  if (sink < 0) console.log(sink);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
