/**
 * What the import benches share: a demo file written as a stream (memory flat at any size), and the
 * project's own command-line tools run as a user runs them — a child process on a DynamoDB table —
 * with their wall time, CPU time and peak resident memory.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** Writes `size` demo companies (the current snapshot) as JSON Lines. */
export async function writeDemoFile(dir: string, size: number): Promise<string> {
  const { demoRecords } = await import('../fixtures/demo-data/companies');
  const file = path.join(dir, `demo-${size}.jsonl`);
  const out = createWriteStream(file);
  for (const record of demoRecords({ companies: size })) {
    if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

export interface CliRun {
  stdout: string;
  stderr: string;
  wallSeconds: number;
  /** User + system CPU of the child itself. */
  cpuSeconds: number;
  maxRssMb: number;
  /**
   * The wall and CPU seconds from the tool's `import:run` mark (infra/cli/import.ts: its modules
   * loaded, its files opened) to its exit; absent when it made none.
   */
  run?: { wallSeconds: number; cpuSeconds: number };
}

/**
 * A preload that reports the child's resource use when it exits (it is written into `dir` once): the
 * figures are the process's own, whatever it loads, and those since its `import:run` mark when it
 * made one (-1 when not).
 */
export function usageReporter(dir: string): string {
  const file = path.join(dir, 'usage.cjs');
  writeFileSync(
    file,
    `process.on('exit', () => {
  const u = process.resourceUsage();
  const cpu = u.userCPUTime + u.systemCPUTime;
  const mark = performance.getEntriesByName('import:run', 'mark')[0];
  const since = mark
    ? \`\${Math.round(1000 * (performance.now() - mark.startTime))} \${cpu - mark.detail.user - mark.detail.system}\`
    : '-1 -1';
  require('node:fs').writeSync(2, \`\\nUSAGE \${u.maxRSS} \${cpu} \${since}\\n\`);
});
`,
  );
  return file;
}

/** Runs `infra/cli/<tool>.ts` with `args` on the DynamoDB at `endpoint`; rejects unless it exits 0. */
export function runCli(
  tool: 'import' | 'lookalikes',
  args: string[],
  options: { endpoint: string; usage: string; onStderr?: (text: string) => void },
): Promise<CliRun> {
  const started = performance.now();
  const profiles = process.env['BENCH_CPU_PROF_DIR'];
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        // BENCH_CPU_PROF_DIR=DIR: each tool's run leaves a CPU profile there (node --cpu-prof).
        ...(profiles ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : []),
        '--require',
        options.usage,
        '--import',
        'tsx',
        path.join(ROOT, 'infra/cli', `${tool}.ts`),
        ...args,
      ],
      {
        cwd: ROOT,
        env: { ...process.env, DYNAMODB_ENDPOINT: options.endpoint },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      options.onStderr?.(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const usage = /USAGE (\d+) (\d+) (-?\d+) (-?\d+)/.exec(stderr);
      if (code !== 0 || !usage) {
        reject(new Error(`npm run ${tool} exited ${code}: ${stderr.slice(-2000)}`));
        return;
      }
      resolve({
        stdout,
        stderr,
        wallSeconds: (performance.now() - started) / 1000,
        cpuSeconds: Number(usage[2]) / 1e6,
        maxRssMb: Number(usage[1]) / 1024,
        ...(usage[3] === '-1'
          ? {}
          : { run: { wallSeconds: Number(usage[3]) / 1e6, cpuSeconds: Number(usage[4]) / 1e6 } }),
      });
    });
  });
}

/** An import run's figures, from its summary, `writes:` and `capacity:` lines (the last asked with `--capacity`). */
export function importRunFigures(run: CliRun) {
  const line = (start: string) => run.stdout.split('\n').find((l) => l.startsWith(start)) ?? '';
  const summary = line('read ');
  const match = /imported (\d+) \(new (\d+), changed (\d+), unchanged (\d+)\).* in ([\d.]+) s/.exec(summary);
  if (!match) throw new Error(`no summary line in: ${run.stdout}`);
  return {
    summary,
    writes: line('writes: '),
    imported: Number(match[1]),
    written: Number(match[2]) + Number(match[3]),
    unchanged: Number(match[4]),
    seconds: Number(match[5]),
    /** The process's, its start included (`seconds`: the summary's, in tenths). */
    wallSeconds: run.wallSeconds,
    cpuSeconds: run.cpuSeconds,
    /** From the command's `import:run` mark to its exit (NaN without one). */
    runSeconds: run.run?.wallSeconds ?? NaN,
    runCpuSeconds: run.run?.cpuSeconds ?? NaN,
    readUnitsPerCompany: Number(/([\d.]+) read units per company read/.exec(line('capacity: '))?.[1] ?? NaN),
  };
}

/** The import command's CPU (ms) a unit it read, its process's start included. */
export const cpuMsPerUnit = (run: { cpuSeconds: number; imported: number }) =>
  (1000 * run.cpuSeconds) / Math.max(1, run.imported);
