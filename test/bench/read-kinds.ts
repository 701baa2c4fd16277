/**
 * An import's recorded read requests (test/bench/recording-proxy.ts) counted by item kind, as
 * test/bench/write-kinds.ts counts its writes: for each kind and operation, the requests, the keys
 * asked for (a BatchGetItem's keys, one for a GetItem, none for a Query or Scan) and whether the read
 * is consistent — what a first import reads beside what it writes, per company.
 */
import { itemKind, type ParsedRequest, type Wire } from './write-kinds';

/** The operations that read. */
const READ_OPERATIONS = ['GetItem', 'BatchGetItem', 'Query', 'Scan'];
export const isRead = (operation: string) => READ_OPERATIONS.includes(operation);

export interface ReadCount {
  /** Requests of this operation that asked for items of this kind. */
  requests: number;
  /** Keys asked for (GetItem, BatchGetItem); a Query or Scan counts none. */
  keys: number;
}

/** Counts by `<operation> <consistent|eventual> <item kind>`. */
export type ReadKinds = Map<string, ReadCount>;

type Key = Record<string, { S: string }>;

const kindOfKey = (key: Key) => itemKind(key['pk']?.S ?? '', key['sk']?.S ?? '');

/** The partition a Query reads: the value its key condition gives `pk`. */
function queriedKind(body: Wire): string {
  const condition = String(body['KeyConditionExpression'] ?? '');
  const placeholder = /\bpk\s*=\s*(:\w+)/.exec(condition)?.[1];
  const values = (body['ExpressionAttributeValues'] ?? {}) as Record<string, { S?: string }>;
  const pk = placeholder ? values[placeholder]?.S : undefined;
  return pk === undefined ? 'query' : itemKind(pk, '');
}

/** Adds one recorded request to the counts; a request that does not read adds nothing. */
export function countReads(kinds: ReadKinds, { operation, body }: ParsedRequest): void {
  const add = (consistent: unknown, kind: string, keys: number) => {
    const name = `${operation} ${consistent === true ? 'consistent' : 'eventual'} ${kind}`;
    const count = kinds.get(name) ?? { requests: 0, keys: 0 };
    count.requests += 1;
    count.keys += keys;
    kinds.set(name, count);
  };
  if (operation === 'BatchGetItem') {
    for (const table of Object.values(body['RequestItems'] as Record<string, Wire>)) {
      const byKind = new Map<string, number>();
      for (const key of table['Keys'] as Key[]) {
        const kind = kindOfKey(key);
        byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      }
      for (const [kind, keys] of byKind) add(table['ConsistentRead'], kind, keys);
    }
  } else if (operation === 'GetItem') add(body['ConsistentRead'], kindOfKey(body['Key'] as Key), 1);
  else if (operation === 'Query') add(body['ConsistentRead'], queriedKind(body), 0);
  else if (operation === 'Scan') add(body['ConsistentRead'], 'table', 0);
}

/** The reads as a table, per company, most keys first. */
export function formatReads(kinds: ReadKinds, companies: number): string[] {
  const rows = [...kinds].sort(([, a], [, b]) => b.keys - a.keys || b.requests - a.requests);
  const cell = (n: number, width: number) => (n / companies).toFixed(3).padStart(width);
  return [
    'read (per company)                                     requests      keys',
    ...rows.map(([name, c]) => name.padEnd(52) + cell(c.requests, 11) + cell(c.keys, 10)),
  ];
}
