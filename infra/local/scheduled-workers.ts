/**
 * The workers that declare `localEveryMs` (the list clean-up), run in the local gateway's process that
 * often, as the stack's schedules run their Lambdas; they stop when the server closes.
 */
import type http from 'node:http';
import { workers } from '../../lib/routes';
import { loadHandler } from './proxy-event';

/**
 * Each worker one run at a time; a failed run is logged (name and message) and retried next tick.
 * Answers `stopped`: once the server has closed, the runs still going have ended (a caller that stops
 * DynamoDB Local next waits for it, so no run fails for want of it).
 */
export function runScheduledWorkers(server: http.Server): { stopped: () => Promise<void> } {
  const runs = new Set<Promise<unknown>>();
  for (const worker of Object.values(workers)) {
    if (!('localEveryMs' in worker)) continue;
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      const run = loadHandler<() => Promise<unknown>>(worker.entry)
        .then((handler) => handler())
        .catch((error: unknown) => {
          const { name, message } = error instanceof Error ? error : new Error(String(error));
          console.error(
            JSON.stringify({ level: 'ERROR', message: 'scheduled worker failed', error: { name, message } }),
          );
        })
        .finally(() => {
          running = false;
          runs.delete(run);
        });
      runs.add(run);
    }, worker.localEveryMs);
    timer.unref();
    server.on('close', () => clearInterval(timer));
  }
  return { stopped: async () => void (await Promise.all(runs)) };
}
