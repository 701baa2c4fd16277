/**
 * Records the DynamoDB calls (by action: `Query`, `BatchGetItem`…) made in this process (each one HTTP round trip unless retried) and the
 * items each read: Query and Scan their evaluated items (ScannedCount), BatchGetItem the items it
 * returned. For tests of what a request costs, and the bench's replay floor (test/bench/cases.ts).
 */
import { dynamodb } from '../../lib/storage/client';
import { importLease } from '../../lib/storage/keys';

export interface Call {
  command: string;
  items: number;
  /** The items it sent back: of a Query or Scan with a FilterExpression, those that passed it. */
  answered: number;
  /** What the command was given (a low-level command's input is DynamoDB's JSON: the bench replays it). */
  input: unknown;
}

let calls: Call[] | null = null;
let installed = false;

export async function recordCalls<T>(run: () => Promise<T>): Promise<{ result: T; calls: Call[] }> {
  if (!installed) {
    installed = true;
    dynamodb().middlewareStack.add(
      (next, context) => async (args) => {
        const input = calls ? structuredClone(args.input) : undefined;
        const result = await next(args);
        const output = result.output as {
          ScannedCount?: number;
          Count?: number;
          Responses?: Record<string, unknown[]>;
        };
        const returned = Object.values(output.Responses ?? {}).reduce((n, r) => n + r.length, 0);
        calls?.push({
          command: (context.commandName ?? '?').replace(/Command$/, ''),
          items: output.ScannedCount ?? returned,
          answered: output.Count ?? returned,
          input,
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

/**
 * The writes among `calls` that change data: every Put, Update, Delete and batch or transaction of them
 * but the import lease's own (lib/import/lease.ts), which every import run takes and frees.
 */
export const dataWrites = (made: Call[]) =>
  made.filter((c) => /Write|Put|Update|Delete/.test(c.command) && !onImportLease(c));

const onImportLease = ({ input }: Call) => {
  const { Item, Key } = input as { Item?: { pk?: unknown }; Key?: { pk?: unknown } };
  return (Item ?? Key)?.pk === importLease().pk;
};

/**
 * Runs `act` once, just before the first call of `command` (matched against the SDK's command name) is
 * sent; the call then goes on. Answers a function that removes the hook.
 */
export function beforeFirstCall(command: RegExp, act: () => Promise<unknown>): () => void {
  let done = false;
  const name = `before-${Math.random()}`;
  dynamodb().middlewareStack.add(
    (next, context) => async (args) => {
      if (!done && command.test(context.commandName ?? '')) {
        done = true;
        await act();
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => void dynamodb().middlewareStack.remove(name);
}

/** Resolves when the first call of `command` is sent. */
export function firstCallSent(command: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const stop = beforeFirstCall(command, async () => {
      stop();
      resolve();
    });
  });
}
