/**
 * `npm run bench:registries`: registry conversion alone (parse, join, map; no writes), on generated
 * KBO- and SIRENE-shaped files (test/bench/registry-files.ts) at several shares of the real registries'
 * size, each size converted in a child process of its own so that its peak memory (RSS) is its own.
 * Rows per second are counted over every data row of the files, by wall time and by the process's CPU
 * time (user + system: what one core does, whatever else the machine runs). Figures only; it exits 0.
 *
 *   npm run bench:registries                      1 % and 3 % of the real registries
 *   npm run bench:registries -- --sizes 1,3,10
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openRegistryFiles } from '../../lib/import/sources/files';
import { readKboFull } from '../../lib/import/sources/kbo';
import { sireneItems } from '../../lib/import/sources/sirene';
import type { RegistryItem } from '../../lib/import/sources/unit';
import { REAL, writeKboFiles, writeSireneFiles } from './registry-files';

type Kind = 'kbo' | 'sirene';

interface Measure {
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
  if (kind === 'kbo') {
    const files = await openRegistryFiles(dir);
    await count((await readKboFull(files)).items);
    await files.close();
  } else {
    const units = await openRegistryFiles(path.join(dir, 'StockUniteLegale_utf8.csv'));
    const establishments = await openRegistryFiles(path.join(dir, 'StockEtablissement_utf8.csv'));
    await count(sireneItems(units, establishments));
  }
  const used = process.cpuUsage(cpu);
  return {
    items,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

function measureInChild(kind: Kind, dir: string): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, __filename, 'measure', kind, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Measure) : reject(new Error(`measure ${kind} exited ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  if (process.argv[2] === 'measure') {
    process.stdout.write(JSON.stringify(await measure(process.argv[3] as Kind, process.argv[4]!)));
    return;
  }
  const { values } = parseArgs({ options: { sizes: { type: 'string', default: '1,3' } } });
  const shares = values.sizes.split(',').map(Number);
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'registries-bench-'));
  try {
    console.log(
      'kind    share  units      CSV rows    wall s  rows/s (wall)  CPU s  rows/s (CPU)  peak RSS MB  load',
    );
    for (const share of shares) {
      for (const kind of ['kbo', 'sirene'] as const) {
        const dir = path.join(scratch, `${kind}-${share}`);
        const units = Math.round(((kind === 'kbo' ? REAL.kboEnterprises : REAL.sireneUnits) * share) / 100);
        const rows = kind === 'kbo' ? await writeKboFiles(dir, units) : await writeSireneFiles(dir, units);
        const m = await measureInChild(kind, dir);
        await rm(dir, { recursive: true, force: true });
        console.log(
          [
            kind.padEnd(6),
            `${share} %`.padStart(6),
            String(m.items).padStart(9),
            String(rows).padStart(12),
            m.seconds.toFixed(1).padStart(8),
            String(Math.round(rows / m.seconds)).padStart(14),
            m.cpuSeconds.toFixed(1).padStart(6),
            String(Math.round(rows / m.cpuSeconds)).padStart(13),
            m.maxRssMb.toFixed(0).padStart(12),
            os.loadavg()[0]!.toFixed(1).padStart(5),
          ].join(' '),
        );
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
