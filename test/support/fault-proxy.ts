/**
 * A TCP proxy in front of DynamoDB Local that injects storage faults in the real protocol path: the
 * SDK's own HTTP client, retries, timeouts and error parsing all run as they do against AWS.
 *
 *   pass       bytes flow both ways untouched
 *   delay      each request's bytes are held `delayMs` before they go on (a client that gave up
 *              meanwhile has closed its socket: the request never reaches DynamoDB)
 *   drop       a connection that sends a request is reset, unanswered
 *   throttle   each request is answered `400 ProvisionedThroughputExceededException` by the proxy
 *              itself, as DynamoDB answers it; nothing reaches DynamoDB
 *   conflict   each transaction is answered `400 TransactionCanceledException`, its first item's reason
 *              `TransactionConflict` (another transaction wrote it at that moment), the rest `None`
 *
 * The mode is read for every chunk, so kept-alive connections switch with it. `throttle`, `conflict` and `drop`
 * can be limited to the next `times` requests, after which the proxy passes again; any fault to the
 * requests of one `operation`, or to those whose bytes hold `match`. `requests` counts the requests that
 * reached DynamoDB; `faulted` the ones the fault took. Closing drops the requests still delayed.
 */
import net from 'node:net';

export type FaultMode = 'pass' | 'delay' | 'drop' | 'throttle' | 'conflict';

export interface FaultProxy {
  endpoint: string;
  /**
   * `operation`: only requests for this DynamoDB operation (`TransactWriteItems`) get the fault;
   * `match`: only requests whose bytes hold this text (a condition expression, a key).
   */
  set(
    mode: FaultMode,
    options?: { delayMs?: number; times?: number; operation?: string; match?: string },
  ): void;
  readonly requests: number;
  readonly faulted: number;
  close(): Promise<void>;
}

const THROTTLED_BODY = JSON.stringify({
  __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
  message: 'The level of configured provisioned throughput for the table was exceeded.',
});

/** DynamoDB's answer to a transaction that met another one on its first item. */
function conflictBody(request: Buffer): string {
  const text = request.toString('utf8');
  const { TransactItems = [] } = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as {
    TransactItems?: unknown[];
  };
  const codes = TransactItems.map((_, i) => (i === 0 ? 'TransactionConflict' : 'None'));
  return JSON.stringify({
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    CancellationReasons: codes.map((Code) =>
      Code === 'None' ? { Code } : { Code, Message: 'Transaction is ongoing for the item' },
    ),
  });
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  let mode: FaultMode = 'pass';
  let delayMs = 0;
  let remaining = Infinity;
  let operation: string | undefined;
  let match: string | undefined;
  let requests = 0;
  let faulted = 0;
  const sockets = new Set<net.Socket>();
  const delayed = new Set<NodeJS.Timeout>();

  /** The fault for the request that starts now, counting down a limited one. */
  const faultNow = (request: Buffer): FaultMode => {
    if (operation && !operationOf(request).endsWith(`.${operation}`)) return 'pass';
    if (match !== undefined && !request.includes(match)) return 'pass';
    if (mode === 'pass' || mode === 'delay') return mode;
    if (remaining <= 0) return 'pass';
    remaining--;
    return mode;
  };

  const server = net.createServer((client) => {
    sockets.add(client);
    let upstreamSocket: net.Socket | undefined;
    // Bytes of the request under way, until it is whole.
    let pending = Buffer.alloc(0);

    const toUpstream = (chunk: Buffer) => {
      if (!upstreamSocket) {
        upstreamSocket = net.connect(Number(target.port), target.hostname);
        sockets.add(upstreamSocket);
        upstreamSocket.on('data', (data) => client.writable && client.write(data));
        upstreamSocket.on('close', () => client.destroy());
        upstreamSocket.on('error', () => client.destroy());
      }
      upstreamSocket.write(chunk);
    };

    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Whole requests only (a partial one waits for more bytes): each gets the fault of its time.
      for (let length = completeRequest(pending); length > 0; length = completeRequest(pending)) {
        const bytes = pending.subarray(0, length);
        pending = pending.subarray(length);
        const fault = faultNow(bytes);
        if (fault === 'drop') {
          faulted++;
          client.resetAndDestroy();
          return;
        }
        if (fault === 'throttle' || fault === 'conflict') {
          faulted++;
          const body = fault === 'throttle' ? THROTTLED_BODY : conflictBody(bytes);
          client.write(
            'HTTP/1.1 400 Bad Request\r\n' +
              'Content-Type: application/x-amz-json-1.0\r\n' +
              `Content-Length: ${Buffer.byteLength(body)}\r\n` +
              'x-amzn-RequestId: fault-proxy\r\n\r\n' +
              body,
          );
        } else if (fault === 'delay') {
          faulted++;
          const timer = setTimeout(() => {
            delayed.delete(timer);
            if (client.destroyed) return;
            requests++;
            toUpstream(bytes);
          }, delayMs);
          delayed.add(timer);
        } else {
          requests++;
          toUpstream(bytes);
        }
      }
    });
    client.on('close', () => {
      sockets.delete(client);
      upstreamSocket?.destroy();
    });
    client.on('error', () => upstreamSocket?.destroy());
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    set(next, options = {}) {
      mode = next;
      delayMs = options.delayMs ?? 0;
      remaining = options.times ?? Infinity;
      operation = options.operation;
      match = options.match;
    },
    get requests() {
      return requests;
    },
    get faulted() {
      return faulted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of delayed) clearTimeout(timer);
        delayed.clear();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The length of the first complete HTTP/1.1 request in `buffer` (headers and Content-Length body), or 0. */
function completeRequest(buffer: Buffer): number {
  const headerEnd = buffer.indexOf('\r\n\r\n');
  if (headerEnd < 0) return 0;
  const head = buffer.subarray(0, headerEnd).toString('latin1');
  const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
  const total = headerEnd + 4 + length;
  return buffer.length >= total ? total : 0;
}

/** `DynamoDB_20120810.GetItem`: the operation a request's X-Amz-Target header names. */
function operationOf(request: Buffer): string {
  const head = request.subarray(0, request.indexOf('\r\n\r\n')).toString('latin1');
  return /\r\nx-amz-target:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? '';
}
