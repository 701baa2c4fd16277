/**
 * What a CLI does when Ctrl-C (SIGINT) or SIGTERM stops it: `cleanUp` first (best effort: errors are
 * ignored, and it gets at most CLEAN_UP_MS), then the signal's own end, so a shell sees 130 or 143 as
 * before. A second signal while it cleans up ends the process at once.
 */
import { constants } from 'node:os';

const CLEAN_UP_MS = 3_000;
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export function cleanUpOnSignal(cleanUp: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  const end = (signal: NodeJS.Signals) => {
    for (const s of SIGNALS) process.removeListener(s, handler);
    // No handler left: the signal's default action ends the process, as it would have without this.
    process.kill(process.pid, signal);
    // Where something else still listens (tsx's relay to its parent): the exit code a shell expects.
    setTimeout(() => process.exit(128 + constants.signals[signal]), 1_000);
  };
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return end(signal);
    stopping = true;
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, CLEAN_UP_MS));
    void Promise.race([cleanUp(signal).catch(() => undefined), timeout]).then(() => end(signal));
  };
  for (const s of SIGNALS) process.on(s, handler);
}
