/**
 * What an import run wrote (contract §11.2: cost figures go on a line of their own after the summary),
 * from the storage client's counts of write requests and items.
 */
import { writesSoFar, type WriteCount } from '../storage/write-counts';
import type { ImportSummary } from './import';

/**
 * The run's cost, on a line of its own after the summary (contract §11.2): items and write requests
 * per changed (new or changed) company, then per kind of request.
 * `writes: 3.1 items and 0.21 requests per changed company (BatchWriteItem 2.9 / 0.12, …)`
 */
export function formatWrites(s: ImportSummary, written: Map<string, WriteCount>): string {
  const changed = s.created + s.changed;
  const per = (n: number) => (changed > 0 ? n / changed : n).toFixed(2);
  const counts = [...written].sort(([a], [b]) => (a < b ? -1 : 1));
  const total = counts.reduce(
    (sum, [, c]) => ({ items: sum.items + c.items, requests: sum.requests + c.requests }),
    {
      items: 0,
      requests: 0,
    },
  );
  const kinds = counts.map(
    ([command, c]) => `${command.replace(/Command$/, '')} ${per(c.items)} / ${per(c.requests)}`,
  );
  return (
    `writes: ${per(total.items)} items and ${per(total.requests)} requests per changed company` +
    (kinds.length > 0 ? ` (items / requests: ${kinds.join(', ')})` : '')
  );
}

/** What this process wrote since `before` (a `writesSoFar()` taken then), per command. */
export function writesSince(before: Map<string, WriteCount>): Map<string, WriteCount> {
  const since = new Map<string, WriteCount>();
  for (const [command, now] of writesSoFar()) {
    const then = before.get(command) ?? { requests: 0, items: 0 };
    if (now.requests > then.requests) {
      since.set(command, { requests: now.requests - then.requests, items: now.items - then.items });
    }
  }
  return since;
}

/** The capacity line of a run on DynamoDB Local that did not ask for it. */
export const CAPACITY_NOT_ASKED =
  'not asked of DynamoDB Local (--capacity asks it, and slows DynamoDB Local down)';

/**
 * What DynamoDB billed the run, as it counted it (capacity units: a write unit per KB written, twice in
 * a transaction, plus each index entry; a read unit per 4 KB read strongly): write units per changed
 * company, read units per company read (unchanged ones cost their reads too).
 * `capacity: 12.40 write units per changed company, 3.10 read units per company read`
 * Null when the run did not ask (DynamoDB Local without `--capacity`): the line says how to ask.
 */
export function formatCapacity(s: ImportSummary, capacity: { read: number; write: number } | null): string {
  if (capacity === null) return `capacity: ${CAPACITY_NOT_ASKED}`;
  const changed = s.created + s.changed;
  const per = (n: number, of: number) => (of > 0 ? n / of : n).toFixed(2);
  return (
    `capacity: ${per(capacity.write, changed)} write units per changed company, ` +
    `${per(capacity.read, s.read)} read units per company read`
  );
}
