/**
 * The DynamoDB client, built when first used (not at import, so a CLI or test can point it somewhere
 * first) and reused across invocations. Every HTTP attempt the SDK makes is counted as a round trip for
 * the request log (RoundTripCounter). Throttling and unreachable storage that outlast the SDK's own
 * retries surface as StorageUnavailableError, never as AWS text.
 *
 * Every attempt has a deadline that throws (`throwOnRequestTimeout`: with `requestTimeout` alone this
 * SDK only logs a warning and keeps waiting). On the request path (the stack sets REQUEST_PATH_TIMEOUTS
 * on every route function and the authorizer) the attempts with their backoff fit in
 * `storageBudgetMs(REQUEST_PATH_TIMEOUTS)`, under the function's timeout (test/infra checks it), so a
 * request answers 503 before Lambda or the gateway cuts it off. Jobs and CLIs, and DynamoDB Local on a
 * busy laptop, get PATIENT_TIMEOUTS: a slow answer there is no reason to fail a 15-minute import.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { config } from '../config';
import { startDynamodbCall } from '../metrics';
import { checkDeclaredAccess } from './access-check';
import { StorageUnavailableError } from './errors';

/**
 * `true` in the function bundles (infra/bundling.ts `define`), so esbuild drops the in-process access
 * check and lib/storage/access-check.ts from them; not defined when run unbundled.
 */
declare const IAM_ENFORCES_STORAGE_ACCESS: true | undefined;

/** Attempts per call, the first included. */
export const STORAGE_ATTEMPTS = 3;

export interface StorageTimeouts {
  /** TCP connect (under 2 s the SDK arms the timer at once; from 2 s on, a second later). */
  connectionMs: number;
  /** From sending a request to the answer's first byte (DynamoDB answers in milliseconds). */
  requestMs: number;
}

/** Deployed functions that answer a request: through the environment (infra/function.ts sets it). */
export const REQUEST_PATH_TIMEOUTS: StorageTimeouts = { connectionMs: 1000, requestMs: 1200 };
const PATIENT_TIMEOUTS: StorageTimeouts = { connectionMs: 10_000, requestMs: 20_000 };
/** Where the stack sets them (lib/config.ts reads them). */
export { TIMEOUT_VARIABLES } from '../config';

/** Backoff before retry n (1, 2…): full jitter up to min(MAX_BACKOFF_MS, 100 ms × 2^n). */
const MAX_BACKOFF_MS = 400;
const backoffCeiling = (retry: number) => Math.min(MAX_BACKOFF_MS, 100 * 2 ** retry);

/** The longest one storage call can take before it throws: every attempt timing out, every backoff at its ceiling. */
export function storageBudgetMs({ connectionMs, requestMs }: StorageTimeouts): number {
  const backoff = Array.from({ length: STORAGE_ATTEMPTS - 1 }, (_, i) => backoffCeiling(i + 1));
  // Both timers start with the attempt: the connect is part of the request's time.
  return STORAGE_ATTEMPTS * Math.max(connectionMs, requestMs) + backoff.reduce((a, b) => a + b, 0);
}

function timeoutsFromEnvironment(): StorageTimeouts {
  const { connectionMs, requestMs } = config.storageTimeouts();
  return {
    connectionMs: connectionMs ?? PATIENT_TIMEOUTS.connectionMs,
    requestMs: requestMs ?? PATIENT_TIMEOUTS.requestMs,
  };
}

let client: DynamoDBDocumentClient | undefined;
/** The low-level client under `client`, whose middleware stack the document client shares. */
let baseClient: DynamoDBClient | undefined;

/** The shared document client; `DYNAMODB_ENDPOINT` (DynamoDB Local) is read on first use. */
export function dynamodb(): DynamoDBDocumentClient {
  return (client ??= createClient(config.dynamodbEndpoint()));
}

/** What `extendClient` was given, run on every low-level client as it is built. */
const extensions: ((base: DynamoDBClient) => void)[] = [];

/**
 * Runs `extend` on the low-level client (its middleware stack) if it is built, and on every one built
 * from now on. For what only some processes add (lib/storage/write-counts.ts: an import's counters),
 * so the functions do not bundle it.
 */
export function extendClient(extend: (base: DynamoDBClient) => void): void {
  extensions.push(extend);
  if (baseClient) extend(baseClient);
}

/**
 * Drops the shared client: the next call builds one from the environment as it is then (its endpoint
 * and timeouts). For a test that loads its data with the patient timeouts, then meets faults with a
 * route's short ones; no function calls it.
 */
export function rebuildClient(): void {
  client?.destroy();
  client = undefined;
  baseClient = undefined;
}

/**
 * The SDK's logger middleware builds, for every call, a copy of the input and of the output (every
 * item, walked against the schema to mask sensitive fields) and hands it to `logger.info` — its
 * default logger does nothing with it. It skips that work when the logger has no `info`, work that
 * grows with every item a call reads (docs/benchmarks.md). We log requests ourselves (lib/metrics.ts,
 * endpoint.ts).
 */
const QUIET_LOGGER = {
  debug: () => undefined,
  warn: () => undefined,
  error: () => undefined,
} as unknown as NonNullable<DynamoDBClientConfig['logger']>;

/**
 * The SDK's HTTP handler, counting each exchange as a round trip (lib/metrics.ts): called once per
 * attempt (retries happen further out), from sending the request to the answer's headers, before the
 * SDK parses it. In the handler rather than a middleware: the SDK resolves its whole middleware stack
 * again for every call, so each middleware costs every request its share.
 */
class RoundTripCounter extends NodeHttpHandler {
  override async handle(
    ...args: Parameters<NodeHttpHandler['handle']>
  ): ReturnType<NodeHttpHandler['handle']> {
    const ended = startDynamodbCall();
    try {
      return await super.handle(...args);
    } finally {
      ended();
    }
  }
}

function createClient(endpoint: string | undefined): DynamoDBDocumentClient {
  const timeouts = timeoutsFromEnvironment();
  const base = (baseClient = new DynamoDBClient({
    logger: QUIET_LOGGER,
    retryStrategy: new ConfiguredRetryStrategy(STORAGE_ATTEMPTS, (retry) =>
      Math.floor(Math.random() * backoffCeiling(retry)),
    ),
    requestHandler: new RoundTripCounter({
      connectionTimeout: timeouts.connectionMs,
      requestTimeout: timeouts.requestMs,
      throwOnRequestTimeout: true,
    }),
    ...(endpoint
      ? {
          endpoint,
          region: config.endpointRegion(),
          // DynamoDB Local accepts any credentials; these never reach AWS.
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
  }));
  for (const extend of extensions) extend(base);
  // Where no IAM policy enforces the declaration (DynamoDB Local: `npm start`, the tests), each call
  // checks itself against it before anything is sent: a call the policy would deny fails the same way.
  // A function bundle runs only where IAM enforces it: there the check is not even bundled.
  if (typeof IAM_ENFORCES_STORAGE_ACCESS === 'undefined' && !config.storageAccessEnforcedByIam()) {
    base.middlewareStack.add(
      (next, context) => (args) => {
        checkDeclaredAccess(context.commandName ?? '', args.input);
        return next(args);
      },
      // After the document client's marshalling (initialize), once per call (retries come later).
      { step: 'build', name: 'declaredAccessCheck' },
    );
  }
  return DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

export const tableName = config.tableName;

const UNAVAILABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
]);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** Runs a storage call, turning "storage is busy or away" into StorageUnavailableError. */
export async function send<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isUnavailable(error)) throw new StorageUnavailableError({ cause: error });
    throw error;
  }
}

export function isUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, message, $fault } = error as Record<string, unknown>;
  // The SDK wraps a thrown value that is no Error of its own realm (a socket error seen from a jest
  // sandbox); its text still names the original error.
  const wrapped = typeof message === 'string' ? SDK_WRAPPER.exec(message) : null;
  return (
    UNAVAILABLE.has(String(name)) ||
    (typeof code === 'string' && NETWORK.has(code)) ||
    $fault === 'server' ||
    (wrapped !== null && (UNAVAILABLE.has(wrapped[1]!) || NETWORK.has(wrapped[2] ?? '')))
  );
}

const SDK_WRAPPER = /^AWS SDK error wrapper for (\w+)(?:: \w+ (E[A-Z]+))?/;

/** A conditional write whose condition did not hold (the item exists, or changed meanwhile). */
export function isConditionFailed(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** The per-action reasons of a cancelled transaction ('None', 'ConditionalCheckFailed', 'TransactionConflict'…). */
export function cancellationReasons(error: unknown): string[] | null {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return null;
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
  return reasons ? reasons.map((r) => r.Code ?? 'None') : null;
}

/**
 * Makes a conditional write and says whether its condition held: true when written, false when the
 * condition failed (ConditionalCheckFailedException); storage trouble still throws.
 */
export async function conditionHeld(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await send(write);
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}
