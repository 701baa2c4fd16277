/**
 * The registry bench's measurements that run in a process of their own (test/bench/registries.ts):
 * the conversion alone of a registry's files, its peak memory its own (`measureInChild`), and the
 * conversion or a re-import run round after round in one process (`warmInChild`).
 *
 *   npx tsx test/bench/registry-children.ts measure KIND DIR
 *   DYNAMODB_ENDPOINT=… npx tsx test/bench/registry-children.ts warm KIND DIR ROUNDS [TABLE]
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { openRegistryFiles } from '../../lib/import/sources/files';
import { readKboFull } from '../../lib/import/sources/kbo';
import { sireneItems } from '../../lib/import/sources/sirene';
import type { RegistryItem } from '../../lib/import/sources/unit';

export type Kind = 'kbo' | 'sirene';

export interface Measure {
  items: number;
  seconds: number;
  cpuSeconds: number;
  maxRssMb: number;
}

/** Converts the files in `dir` and reports how long it took and how much memory it held at most. */
async function measure(kind: Kind, dir: string): Promise<Measure> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let items = 0;
  const count = async (source: AsyncIterable<RegistryItem>) => {
    for await (const item of source) if (item) items++;
  };
  const { path: main, establishments } = filesOf(kind, dir);
  if (kind === 'kbo') {
    const files = await openRegistryFiles(main);
    await count((await readKboFull(files)).items);
    await files.close();
  } else {
    const units = await openRegistryFiles(main);
    await count(sireneItems(units, await openRegistryFiles(establishments!)));
  }
  const used = process.cpuUsage(cpu);
  return {
    items,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

/** `measure` in a child process: its peak memory is its own. */
export const measureInChild = (kind: Kind, dir: string) => inChild<Measure>(['measure', kind, dir]);

/** Rounds of one process, each one's wall and CPU seconds (`warm`). */
export interface WarmRounds {
  seconds: number[];
  cpuSeconds: number[];
}

/**
 * The files in `dir` converted alone, or (given `table`) imported again into it as the import command
 * does, `rounds` times in one process: from the first rounds on, the code runs as it does through a
 * registry's millions of rows once their first thousands have gone by, optimised by the JIT compiler
 * (a process per run, as `measure` and the command's runs are, pays its compiling in every run).
 */
async function warm(kind: Kind, dir: string, rounds: number, table?: string): Promise<WarmRounds> {
  const once = table ? await importAgainOnce(kind, dir, table) : () => measure(kind, dir);
  const out: WarmRounds = { seconds: [], cpuSeconds: [] };
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    await once();
    const used = process.cpuUsage(cpu);
    out.seconds.push((performance.now() - started) / 1000);
    out.cpuSeconds.push((used.user + used.system) / 1e6);
  }
  return out;
}

/**
 * A re-import of the files in `dir` into `table` on the DynamoDB at DYNAMODB_ENDPOINT, as
 * `npm run import -- --format …` runs it (infra/cli/import.ts `importRegistry`): its numbered extract
 * begun and ended, the unmapped stream imported; every unit must come out unchanged.
 */
async function importAgainOnce(kind: Kind, dir: string, table: string): Promise<() => Promise<void>> {
  process.env['TABLE_NAME'] = table;
  const [{ REGISTRY_SOURCES }, { importRegistryItems }, { storedRegistry }, extracts] = await Promise.all([
    import('../../lib/import/sources/index'),
    import('../../lib/import/registry-import'),
    import('../../lib/import/registry-store'),
    import('../../lib/import/registry-progress'),
  ]);
  const { path: main, establishments } = filesOf(kind, dir);
  return async () => {
    const opened = await REGISTRY_SOURCES[kind]!.open([main], {
      ...(establishments ? { establishments } : {}),
      stored: storedRegistry,
    });
    const extract = opened.extract && { source: kind, ...opened.extract };
    if (extract) await extracts.beginExtract(extract);
    const summary = await importRegistryItems(opened.unmapped?.() ?? opened.items, {
      asOf: opened.snapshotDate ?? new Date().toISOString().slice(0, 10),
      source: kind,
    });
    if (extract) await extracts.endExtract(extract);
    if (summary.unchanged !== summary.imported || summary.imported === 0)
      throw new Error(`${kind} again: ${summary.unchanged} of ${summary.imported} unchanged`);
  };
}

function inChild<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, __filename, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`${args.join(' ')} exited ${code}`)),
    );
  });
}

/** The bench's files of `kind` in `dir`: KBO's folder, or SIRENE's units file and establishments file. */
const filesOf = (kind: Kind, dir: string): { path: string; establishments?: string } =>
  kind === 'kbo'
    ? { path: dir }
    : {
        path: path.join(dir, 'StockUniteLegale_utf8.csv'),
        establishments: path.join(dir, 'StockEtablissement_utf8.csv'),
      };

/** The import command's arguments for the files of `kind` in `dir`. */
export function importArgs(kind: Kind, dir: string): string[] {
  const { path: main, establishments } = filesOf(kind, dir);
  return ['--format', kind, main, ...(establishments ? ['--establishments', establishments] : [])];
}

/**
 * `warm` in a child process: the conversion alone, or (given `at`, a table on a DynamoDB endpoint)
 * the re-import.
 */
export const warmInChild = (
  kind: Kind,
  dir: string,
  rounds: number,
  at?: { table: string; endpoint: string },
) =>
  inChild<WarmRounds>(
    ['warm', kind, dir, String(rounds), ...(at ? [at.table] : [])],
    at ? { DYNAMODB_ENDPOINT: at.endpoint } : {},
  );

if (require.main === module) {
  const [mode, kind, dir, rounds, table] = process.argv.slice(2) as [string, Kind, string, string?, string?];
  const figures = mode === 'warm' ? warm(kind, dir, Number(rounds), table) : measure(kind, dir);
  figures.then(
    // The SDK's idle sockets would keep the process alive: it exits once its figures are out.
    (out) => process.stdout.write(JSON.stringify(out), () => process.exit(0)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
