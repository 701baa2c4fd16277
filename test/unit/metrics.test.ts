import { startDynamodbCall, withRequestMetrics } from '../../lib/metrics';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

/** What the storage client's middleware does per round trip: start, wait, end. */
async function call(): Promise<void> {
  const ended = startDynamodbCall();
  await tick();
  ended();
}

describe('request metrics', () => {
  it('counts the round trips of a request running alone', async () => {
    const metrics = await withRequestMetrics(async (m) => {
      await call();
      await Promise.all([call(), call()]);
      return m;
    });

    expect(metrics.dynamodbCalls).toBe(3);
    expect(metrics.dynamodbMs).toBeGreaterThan(0);
  });

  it('keeps overlapping requests apart, whichever started first and whichever ends first', async () => {
    let releaseFirst!: () => void;
    const firstMayEnd = new Promise<void>((resolve) => (releaseFirst = resolve));
    const first = withRequestMetrics(async (m) => {
      await call();
      await firstMayEnd;
      await call();
      return m;
    });
    const second = withRequestMetrics(async (m) => {
      await Promise.all([call(), call(), call()]);
      return m;
    });
    const secondMetrics = await second;
    const third = withRequestMetrics(async (m) => {
      await call();
      return m;
    });
    releaseFirst();

    expect((await first).dynamodbCalls).toBe(2);
    expect(secondMetrics.dynamodbCalls).toBe(3);
    expect((await third).dynamodbCalls).toBe(1);
  });

  it('counts nothing outside a request', async () => {
    await withRequestMetrics(async () => undefined);
    const ended = startDynamodbCall();
    ended();
    const metrics = await withRequestMetrics(async (m) => m);
    expect(metrics.dynamodbCalls).toBe(0);
  });
});
