/**
 * Per-request figures: how many DynamoDB round trips a request made and how long it waited on
 * DynamoDB. Parallel calls overlap, so the wait is the time during which at least one call was in
 * flight, not the sum of the calls. The request log line reports both (the benchmark reads it).
 * AsyncLocalStorage keeps concurrent requests apart when many run in one process (local gateway), and
 * only then: a request that runs alone (always, on Lambda) is tracked in a plain variable. On Node 20,
 * the first AsyncLocalStorage.run turns on a hook on every promise for the life of the process, which
 * the SDK's promise-heavy middleware pays on every call.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestMetrics {
  dynamodbCalls: number;
  dynamodbMs: number;
}

interface Tracker extends RequestMetrics {
  inFlight: number;
  busySince: number;
}

const storage = new AsyncLocalStorage<Tracker>();
/** The tracker of the request running alone, if one is; requests that overlap it go through `storage`. */
let alone: Tracker | undefined;
let running = 0;

export async function withRequestMetrics<T>(run: (metrics: RequestMetrics) => Promise<T>): Promise<T> {
  const tracker: Tracker = { dynamodbCalls: 0, dynamodbMs: 0, inFlight: 0, busySince: 0 };
  if (running++ > 0) {
    try {
      return await storage.run(tracker, () => run(tracker));
    } finally {
      running--;
    }
  }
  alone = tracker;
  try {
    return await run(tracker);
  } finally {
    alone = undefined;
    running--;
  }
}

/** For work that makes no DynamoDB call: the figures stay 0, and nothing is tracked. */
export function withoutRequestMetrics<T>(run: (metrics: RequestMetrics) => Promise<T>): Promise<T> {
  return run({ dynamodbCalls: 0, dynamodbMs: 0 });
}

/** Marks one DynamoDB round trip as started; call the returned function when it has ended. */
export function startDynamodbCall(): () => void {
  // A request that overlaps the one running alone has its own store; the one running alone has none.
  const tracker = storage.getStore() ?? alone;
  if (!tracker) return () => undefined;
  tracker.dynamodbCalls += 1;
  if (tracker.inFlight++ === 0) tracker.busySince = performance.now();
  return () => {
    if (--tracker.inFlight === 0) tracker.dynamodbMs += performance.now() - tracker.busySince;
  };
}
