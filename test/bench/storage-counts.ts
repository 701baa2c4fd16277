/**
 * What this process has read and written on DynamoDB so far, for a bench's cost figures (smart-lists.ts):
 * counts that do not depend on the machine's load, where times do.
 */
import { writesSoFar } from '../../lib/storage/write-counts';

/** What `countWrites` (lib/storage/write-counts) has counted: items, write requests and write units. */
export interface Written {
  items: number;
  requests: number;
  /** Write units as DynamoDB bills them for items up to 1 KB: one an item, two in a transaction. */
  units: number;
}

/** Items, write requests and write units (items up to 1 KB) this process has written so far. */
export function written(): Written {
  const counts = [...writesSoFar()];
  const items = counts.reduce((n, [, c]) => n + c.items, 0);
  return {
    items,
    requests: counts.reduce((n, [, c]) => n + c.requests, 0),
    units: items + (writesSoFar().get('TransactWriteItemsCommand')?.items ?? 0),
  };
}

/** Counts the read requests this client sends and the items they return, from now on. */
export function countReads(client: { middlewareStack: { add: (...args: never[]) => void } }) {
  const counted = { readRequests: 0, readItems: 0 };
  const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand']);
  const middleware =
    (
      next: (args: unknown) => Promise<{ output: Record<string, unknown> }>,
      context: { commandName?: string },
    ) =>
    async (args: unknown) => {
      const result = await next(args);
      if (READS.has(context.commandName ?? '')) {
        const output = result.output;
        counted.readRequests++;
        const responses = output['Responses'] as Record<string, unknown[]> | undefined;
        counted.readItems += responses
          ? Object.values(responses).reduce((n, items) => n + items.length, 0)
          : ((output['Items'] as unknown[] | undefined)?.length ?? (output['Item'] ? 1 : 0));
      }
      return result;
    };
  client.middlewareStack.add(middleware as never, { step: 'initialize', name: 'benchReadCounter' } as never);
  return { sofar: () => ({ ...counted }) };
}
