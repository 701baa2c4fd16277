/**
 * The benches' recording proxy (test/bench/recording-proxy.ts): it keeps each request and says how
 * many the client had in flight at once, the figure the registry bench sets beside the floor's.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordingProxy } from '../bench/recording-proxy';

it('keeps every request and counts how many were in flight at once', async () => {
  // An upstream that answers each request 100 ms after it came.
  const upstream = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.end('{}'), 100));
  });
  upstream.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => upstream.once('listening', resolve));
  const proxy = await recordingProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  const send = () =>
    fetch(proxy.endpoint, {
      method: 'POST',
      headers: { 'X-Amz-Target': 'DynamoDB_20120810.BatchGetItem' },
      body: '{}',
    }).then((answer) => answer.text());
  try {
    // Three at once, then one alone: at most three; on average between one and three.
    await Promise.all([send(), send(), send()]);
    await send();
    expect(proxy.requests.map((r) => r.operation)).toEqual(Array(4).fill('BatchGetItem'));
    const { mean, max } = proxy.inFlight();
    expect(max).toBe(3);
    expect(mean).toBeGreaterThan(1);
    expect(mean).toBeLessThan(3);
  } finally {
    await proxy.close();
    await new Promise((resolve) => upstream.close(resolve));
  }
});
