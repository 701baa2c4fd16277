/**
 * A pass-through HTTP proxy in front of DynamoDB Local that keeps each request an import sends (its
 * `X-Amz-Target` operation, its JSON body and its signed headers), so a bench can replay the same
 * requests later on a table of their own (test/bench/write-floor.ts `replayRequests`) and tell what the
 * items themselves cost DynamoDB Local from what the import's reads cost it. Used only by a bench's
 * diagnostic run: a proxy adds latency, so the measured runs go to DynamoDB Local directly.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the client sent it. */
export interface RecordedRequest {
  /** The operation, e.g. `BatchWriteItem` (from `X-Amz-Target: DynamoDB_20120810.BatchWriteItem`). */
  operation: string;
  body: string;
  headers: Record<string, string>;
}

export interface RecordingProxy {
  endpoint: string;
  requests: RecordedRequest[];
  close: () => Promise<void>;
}

/** Starts a proxy on a free port of 127.0.0.1 that forwards to `target` and keeps every request. */
export async function recordingProxy(target: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const server = http.createServer((req, res) => {
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
      if (operation) requests.push({ operation, body: body.toString('utf8'), headers });
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
    close: () =>
      new Promise((resolve) => {
        agent.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Items written through one kind of request, of one entity: how many, and their bytes as sent (JSON). */
export interface WrittenEntity {
  operation: string;
  /** The item's `entity` attribute; for an update or delete, its sort key up to its first `#`. */
  entity: string;
  items: number;
  bytes: number;
}

type WireItem = Record<string, { S?: string }>;
interface WriteBody {
  RequestItems?: Record<
    string,
    Array<{ PutRequest?: { Item: WireItem }; DeleteRequest?: { Key: WireItem } }>
  >;
  TransactItems?: Array<Record<string, { Item?: WireItem; Key?: WireItem }>>;
}

/** The recorded writes by request kind and entity, most items first. */
export function writtenEntities(requests: readonly RecordedRequest[]): WrittenEntity[] {
  const tally = new Map<string, WrittenEntity>();
  const count = (operation: string, action: string, item: WireItem) => {
    const entity = item['entity']?.S ?? `${action} ${(item['sk']?.S ?? '').split('#')[0]}`;
    const key = `${operation} ${entity}`;
    const found = tally.get(key) ?? { operation, entity, items: 0, bytes: 0 };
    found.items++;
    found.bytes += JSON.stringify(item).length;
    tally.set(key, found);
  };
  for (const { operation, body } of requests) {
    const input = JSON.parse(body) as WriteBody;
    if (operation === 'BatchWriteItem')
      for (const list of Object.values(input.RequestItems ?? {}))
        for (const write of list)
          if (write.PutRequest) count(operation, 'put', write.PutRequest.Item);
          else if (write.DeleteRequest) count(operation, 'delete', write.DeleteRequest.Key);
    if (operation === 'TransactWriteItems')
      for (const action of input.TransactItems ?? [])
        for (const [name, { Item, Key }] of Object.entries(action)) count(operation, name, Item ?? Key ?? {});
  }
  return [...tally.values()].sort((a, b) => b.items - a.items);
}
