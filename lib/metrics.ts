/**
 * Per-request figures: how many DynamoDB round trips a request made and how long it waited on them.
 * The request log line reports them (and the benchmark reads that line). AsyncLocalStorage keeps
 * concurrent requests apart when many run in one process (the local gateway).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestMetrics {
  dynamodbCalls: number;
  dynamodbMs: number;
}

const storage = new AsyncLocalStorage<RequestMetrics>();

export function withRequestMetrics<T>(run: (metrics: RequestMetrics) => Promise<T>): Promise<T> {
  const metrics: RequestMetrics = { dynamodbCalls: 0, dynamodbMs: 0 };
  return storage.run(metrics, () => run(metrics));
}

export function recordDynamodbCall(ms: number): void {
  const metrics = storage.getStore();
  if (metrics) {
    metrics.dynamodbCalls += 1;
    metrics.dynamodbMs += ms;
  }
}
