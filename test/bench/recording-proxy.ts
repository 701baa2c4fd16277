/**
 * A pass-through HTTP proxy in front of DynamoDB Local that keeps each request an import sends (its
 * `X-Amz-Target` operation and its JSON body), so a bench can replay the same requests later on a table
 * of their own (test/bench/write-replay.ts) and tell what the items themselves cost DynamoDB Local from
 * what the import's reads and CPU cost it. The import needs nothing of its own for it: it is only given
 * the proxy's endpoint. A proxy adds latency: the registry and filing benches record in a diagnostic run
 * and measure runs that go to DynamoDB Local directly; the scale bench counts its measured imports'
 * writes through it (their wall times include the hop, not their CPU or counts).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the client sent it. */
export interface RecordedRequest {
  /** The operation, e.g. `BatchWriteItem` (from `X-Amz-Target: DynamoDB_20120810.BatchWriteItem`). */
  operation: string;
  body: string;
}

export interface RecordingProxy {
  endpoint: string;
  /** The requests kept in memory; empty when they go to a file. */
  requests: RecordedRequest[];
  /**
   * How many requests the client had in flight (from its request's arrival to the answer's end): the
   * mean over the time from the first request's arrival to the last answer, and the most at once —
   * what DynamoDB Local's threads had to share the cores between.
   */
  inFlight: () => { mean: number; max: number };
  close: () => Promise<void>;
}

/**
 * Starts a proxy on a free port of 127.0.0.1 that forwards to `target` and keeps every request: in
 * memory; or with a file name, one a line in that file — the operation, a tab, the body — for an import
 * too big to hold its requests (test/bench/write-replay.ts `readRecording` reads it back); or with a
 * function, handed to it as it comes and not kept (a bench that only counts them).
 */
export async function recordingProxy(
  target: string,
  to?: string | ((request: RecordedRequest) => void),
): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const fd = typeof to === 'string' ? openSync(to, 'w') : undefined;
  const keep = (request: RecordedRequest) => {
    if (typeof to === 'function') to(request);
    else if (fd === undefined) requests.push(request);
    else writeSync(fd, `${request.operation}\t${request.body}\n`);
  };
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const flight = { now: 0, max: 0, since: 0, first: 0, weighted: 0 };
  const moved = (by: number) => {
    const at = performance.now();
    if (flight.first === 0) flight.first = at;
    flight.weighted += flight.now * (at - flight.since);
    flight.since = at;
    flight.now += by;
    flight.max = Math.max(flight.max, flight.now);
  };
  const server = http.createServer((req, res) => {
    moved(1);
    let answered = false;
    const done = () => {
      if (!answered) moved(-1);
      answered = true;
    };
    res.once('finish', done).once('close', done);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      );
      const operation = headers['x-amz-target']?.split('.')[1] ?? '';
      if (operation) keep({ operation, body: body.toString('utf8') });
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...headers, host: upstream.host },
          agent,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', (error) => {
        res.writeHead(502);
        res.end(String(error));
      });
      forward.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    inFlight: () => ({
      mean: flight.since > flight.first ? flight.weighted / (flight.since - flight.first) : 0,
      max: flight.max,
    }),
    close: () =>
      new Promise((resolve) => {
        agent.destroy();
        server.close(() => {
          if (fd !== undefined) closeSync(fd);
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
