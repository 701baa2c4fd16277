/**
 * Records the DynamoDB calls (by action: `Query`, `BatchGetItem`…) made in this process (each one HTTP round trip unless retried) and the
 * items each read: Query and Scan their evaluated items (ScannedCount), BatchGetItem the items it
 * returned. For tests of what a request costs.
 */
import { dynamodb } from '../../lib/storage/client';

export interface Call {
  command: string;
  items: number;
}

let calls: Call[] | null = null;
let installed = false;

export async function recordCalls<T>(run: () => Promise<T>): Promise<{ result: T; calls: Call[] }> {
  if (!installed) {
    installed = true;
    dynamodb().middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const output = result.output as { ScannedCount?: number; Responses?: Record<string, unknown[]> };
        calls?.push({
          command: (context.commandName ?? '?').replace(/Command$/, ''),
          items:
            output.ScannedCount ?? Object.values(output.Responses ?? {}).reduce((n, r) => n + r.length, 0),
        });
        return result;
      },
      { step: 'initialize', name: 'testCallRecorder' },
    );
  }
  const made: Call[] = [];
  calls = made;
  try {
    return { result: await run(), calls: made };
  } finally {
    calls = null;
  }
}

/** Items read by the Queries among `calls`. */
export const queriedItems = (made: Call[]) =>
  made.filter((c) => c.command === 'Query').reduce((n, c) => n + c.items, 0);
