/**
 * Per-request figures: how many DynamoDB round trips a request made and how long it waited on
 * DynamoDB. Parallel calls overlap, so the wait is the time during which at least one call was in
 * flight, not the sum of the calls. The request log line reports both (the benchmark reads it).
 * Each request's figures are found through a RequestScope (lib/request-scope.ts: no promise hook for a
 * request that runs alone).
 */
import { RequestScope } from './request-scope';

export interface RequestMetrics {
  dynamodbCalls: number;
  dynamodbMs: number;
}

interface Tracker extends RequestMetrics {
  inFlight: number;
  busySince: number;
}

const trackers = /* @__PURE__ */ new RequestScope<Tracker>();

export function withRequestMetrics<T>(run: (metrics: RequestMetrics) => Promise<T>): Promise<T> {
  const tracker: Tracker = { dynamodbCalls: 0, dynamodbMs: 0, inFlight: 0, busySince: 0 };
  return trackers.run(tracker, () => run(tracker));
}

/** Marks one DynamoDB round trip as started; call the returned function when it has ended. */
export function startDynamodbCall(): () => void {
  const tracker = trackers.get();
  if (!tracker) return () => undefined;
  tracker.dynamodbCalls += 1;
  if (tracker.inFlight++ === 0) tracker.busySince = performance.now();
  return () => {
    if (--tracker.inFlight === 0) tracker.dynamodbMs += performance.now() - tracker.busySince;
  };
}
