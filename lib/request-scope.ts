/**
 * A value that belongs to the request running now (its metrics, its storage declaration; an import
 * run's lease, lib/import/lease.ts), found from anywhere in the code that request runs.
 * AsyncLocalStorage keeps requests apart when several overlap in one process (the local gateway), and
 * only then: a request that runs alone (always, on Lambda) is kept in a plain variable. On Node 20 the
 * first AsyncLocalStorage.run turns on a hook on every promise for the life of the process, which the
 * SDK's promise-heavy middleware would pay on every call.
 *
 * Code that runs outside any request while one runs alone would see that request's value: a process
 * where that can happen (the local gateway, whose scheduled workers and test fixtures run beside
 * requests) calls `isolateRequestScopes()` first, and every run then gets its own store.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

let isolated = false;

/** Every run of every scope in this process keeps its value to itself (a process that overlaps work). */
export function isolateRequestScopes(): void {
  isolated = true;
}

export class RequestScope<T> {
  private readonly storage = new AsyncLocalStorage<T>();
  /** The value of the request running alone, if one is; requests that overlap it go through `storage`. */
  private alone: T | undefined;
  private running = 0;

  async run<R>(value: T, run: () => Promise<R>): Promise<R> {
    if (this.running++ > 0 || isolated) {
      try {
        return await this.storage.run(value, run);
      } finally {
        this.running--;
      }
    }
    this.alone = value;
    try {
      return await run();
    } finally {
      this.alone = undefined;
      this.running--;
    }
  }

  /** The value of the request this code runs for (a request that overlaps the lone one has its own). */
  get(): T | undefined {
    return this.storage.getStore() ?? this.alone;
  }
}
