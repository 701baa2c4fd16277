/**
 * The workers that declare `localEveryMs` (the list clean-up), run in the local gateway's process that
 * often, as the stack's schedules run their Lambdas; they stop when the server closes.
 */
import type http from 'node:http';
import { workers } from '../../lib/routes';
import { loadHandler } from './proxy-event';

/** Each worker one run at a time; a failed run is logged (name and message) and retried next tick. */
export function runScheduledWorkers(server: http.Server): void {
  for (const worker of Object.values(workers)) {
    if (!('localEveryMs' in worker)) continue;
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      loadHandler<() => Promise<unknown>>(worker.entry)
        .then((run) => run())
        .catch((error: unknown) => {
          const { name, message } = error instanceof Error ? error : new Error(String(error));
          console.error(
            JSON.stringify({ level: 'ERROR', message: 'scheduled worker failed', error: { name, message } }),
          );
        })
        .finally(() => (running = false));
    }, worker.localEveryMs);
    timer.unref();
    server.on('close', () => clearInterval(timer));
  }
}
