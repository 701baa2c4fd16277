/**
 * The bench's child processes: a cold run (a fresh node requires the bundle and answers one event) and a
 * warm runner (one long-lived process answering `calls` events at a time), each reporting its samples.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { RESULT_PREFIX } from './runners';

const CHILD_TIMEOUT_MS = 60_000;

export interface ColdSample {
  loadMs: number;
  firstMs: number;
  totalMs: number;
  inFlightMs: number;
  cpuMs: number;
  calls: number;
  ok: boolean;
  status: number | string;
}

export interface WarmSample {
  wallMs: number;
  cpuMs: number;
  ok: boolean;
  status: number | string;
  found: number | null;
  /** DynamoDB round trips: HTTP requests the call made, every attempt counted (runners.ts). */
  socketCalls: number;
  inFlightMs: number;
}

/** A cold run: a fresh node requires the bundle and answers one event (runners.ts COLD_RUNNER). */
export function runCold(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  nodeOptions: string[] = [],
): Promise<ColdSample> {
  return runWrapped([], script, args, env, nodeOptions).then(({ sample }) => sample);
}

/**
 * A cold run with node under `wrapper`, a command and its arguments (valgrind's): the sample and what
 * the run wrote to standard error, where such a tool reports.
 */
export function runWrapped(
  wrapper: string[],
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  nodeOptions: string[] = [],
): Promise<{ sample: ColdSample; stderr: string }> {
  const command = [...wrapper, process.execPath, ...nodeOptions, script, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // Under a wrapper (valgrind runs node some 50 times slower) a run may take longer.
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS * (wrapper.length > 0 ? 10 : 1));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (!line) {
        reject(
          new Error(
            `${path.basename(args[0] ?? script)} exited (${signal ?? code}) without a result:\n${stderr.trim()}`,
          ),
        );
        return;
      }
      resolve({ sample: JSON.parse(line.slice(RESULT_PREFIX.length)) as ColdSample, stderr });
    });
  });
}

type WarmMessage = { ready: true } | { samples: WarmSample[] } | { answerMs: number } | { error: string };

/** A warm runner process, ready for `run(n)` (n calls, their samples) until `stop()`. */
export interface WarmProcess {
  run: (calls: number) => Promise<WarmSample[]>;
  /** The least CPU ms to send the last answer it gave (WARM_RUNNER in runners.ts). */
  answerCost: () => Promise<number>;
  stop: () => Promise<void>;
}

export async function startWarm(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  children: Set<ChildProcess>,
  nodeOptions: string[] = [],
): Promise<WarmProcess> {
  const child = spawn(process.execPath, [...nodeOptions, script, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.add(child);
  let stderr = '';
  // Drained, or a chatty handler would block on a full pipe (its lines are written as on Lambda, then dropped).
  child.stdout!.resume();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  let waiting: { resolve: (m: WarmMessage) => void; reject: (e: Error) => void } | undefined;
  const next = () =>
    new Promise<WarmMessage>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${path.basename(args[0]!)}: no answer in time`)),
        CHILD_TIMEOUT_MS,
      );
      waiting = {
        resolve: (m) => (clearTimeout(timer), resolve(m)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      };
    });
  child.on('message', (message: WarmMessage) => waiting?.resolve(message));
  child.on('exit', (code, signal) =>
    waiting?.reject(new Error(`${path.basename(args[0]!)} exited (${signal ?? code}):\n${stderr.trim()}`)),
  );
  const ready = await next();
  if (!('ready' in ready)) throw new Error(`${path.basename(args[0]!)} did not start`);
  return {
    run: async (calls) => {
      const answer = next();
      child.send({ calls });
      const message = await answer;
      if ('error' in message) throw new Error(`${path.basename(args[0]!)}: ${message.error}`);
      if (!('samples' in message)) throw new Error(`${path.basename(args[0]!)}: unexpected answer`);
      return message.samples;
    },
    answerCost: async () => {
      const answer = next();
      child.send({ answerCost: true });
      const message = await answer;
      if (!('answerMs' in message)) throw new Error(`${path.basename(args[0]!)}: unexpected answer`);
      return message.answerMs;
    },
    // Asked to exit when it writes a CPU profile on the way out; killed otherwise.
    stop: async () => {
      waiting = undefined;
      if (nodeOptions.length > 0 && child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.send({ exit: true });
        await exited;
      } else child.kill('SIGKILL');
      children.delete(child);
    },
  };
}
