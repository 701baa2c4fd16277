/**
 * No process a test starts outlives its test file, whether the file passes, fails or times out.
 *
 * The test environment (test/support/environment.ts) marks each test file with its own value of
 * TEST_PROCESS_OWNER in the environment, which every process the file starts inherits — its children
 * and theirs too (npm → tsx → DynamoDB Local), also once they are orphaned. When the file ends, after
 * its own afterAll hooks, every process still carrying the file's mark is killed; global teardown kills
 * whatever carries the run's mark. Linux only (it reads /proc); elsewhere these do nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';

export const OWNER_VARIABLE = 'TEST_PROCESS_OWNER';
export const RUN_VARIABLE = 'TEST_RUN_ID';

export interface MarkedProcess {
  pid: number;
  owner: string;
  command: string;
}

/** Processes (other than this one) whose environment has TEST_PROCESS_OWNER starting with `prefix`. */
export function markedProcesses(prefix: string): MarkedProcess[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: MarkedProcess[] = [];
  const needle = `${OWNER_VARIABLE}=${prefix}`;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      // A zombie (dead, not yet reaped by its parent) needs no killing.
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (!environ.includes(needle)) continue;
      const owner = environ
        .split('\0')
        .find((v) => v.startsWith(needle))!
        .slice(OWNER_VARIABLE.length + 1);
      const command = readFileSync(`/proc/${entry}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
      found.push({ pid: Number(entry), owner, command });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** SIGKILLs every process marked with `prefix`; resolves once none is left (or after a few rounds). */
export async function killMarked(prefix: string): Promise<MarkedProcess[]> {
  const killed = new Map<number, MarkedProcess>();
  for (let round = 0; round < 10; round++) {
    const left = markedProcesses(prefix);
    if (left.length === 0) break;
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
        killed.set(p.pid, p);
      } catch {
        // Already gone.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return [...killed.values()];
}

/** Every process under `pid` (children, theirs, …), from /proc; [] where there is no /proc. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}
