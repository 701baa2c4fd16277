/**
 * Idempotency-Key (contract §7.5): the same key with the same input within 24 hours returns the first
 * answer and changes nothing; with other input it is 409 IDEMPOTENCY_KEY_REUSED. Keys are per account
 * and user: another user's key is a key never seen. It wraps the business operation, keyed on its
 * input, not the whole handler, and only after the operation's own visibility check (a repeat must not
 * show a list the caller may not see; lib/lists/add-companies.ts `addCompaniesOnce`):
 *
 *   await visibleList(caller, listId);
 *   return withIdempotency({ caller, key: idempotencyKey, fingerprint: { params, body } },
 *     () => addCompanies(caller, listId, body.companies));
 *
 * Hand-written over our storage client rather than Powertools' idempotency utility
 * (@aws-lambda-powertools/idempotency 2.35: makeIdempotent + a BasePersistenceLayer over our table).
 * Size is not what decides it: Powertools makes a bundle larger than this module does, but the load
 * time of either is within noise (docs/benchmarks.md). Fit decides it:
 * - Powertools hashes the payload into the record key under a prefix held on the shared persistence
 *   layer instance, re-read after each await. An account-scoped key means a prefix per request, so
 *   one instance shared by concurrent requests (the local gateway runs them in one process) could
 *   read another account's record; it needs a makeIdempotent and a persistence layer per request.
 * - A repeat while the first runs gets IdempotencyAlreadyInProgressError, not the first answer: the
 *   wait loop would be ours anyway. Without the Lambda context (which the use case does not have) it
 *   warns on every call, and storage errors come wrapped (IdempotencyPersistenceLayerError), hiding
 *   our 503 mapping.
 * What would remain ours is the persistence layer, the wait loop and the error mapping; what it would
 * give is a conditional put, a hash and a JSON round trip, which is this module.
 *
 * Decisions:
 * - Errors are not stored. If the operation throws, its record is deleted and the error propagates, so
 *   a retry runs the operation again. A domain error (404 unknown list, 409 LIST_NOT_STATIC) changed
 *   nothing, so running again is harmless and answers with the current truth; a 5xx must be retryable.
 * - A repeat that arrives while the first request is still running waits for its answer (polling,
 *   up to MAX_WAIT_MS) and returns it. If the first is still running after that, the repeat gets 409
 *   IDEMPOTENCY_KEY_REUSED saying so: running the operation a second time would break "changes
 *   nothing", and waiting longer would run into the function's timeout. The contract has no other code
 *   for it; the client retries later and then gets the first answer.
 * - The result is stored as JSON, so the operation should return plain data (the response body); build
 *   headers (an Answer) outside the wrapped call. Results larger than an item (400 KB) are returned but
 *   not stored, like a record that could not be completed (see below).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { IdempotencyKeyReused } from '../errors';
import type { Caller } from '../tokens/caller';
import { fingerprintOf } from './fingerprint';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  getIdempotencyRecord,
  releaseIdempotencyKey,
  type Claim,
  type IdempotencyRecord,
} from './store';

export interface IdempotencyScope {
  /** Whose key it is: the account and the user (contract §7.5). */
  caller: Pick<Caller, 'accountId' | 'userEmail'>;
  /** The checked Idempotency-Key header; null runs the operation as it is. */
  key: string | null;
  /** What makes a repeat "the same request": typically `{ params, body }`, compared by value. */
  fingerprint: unknown;
}

/** How long a repeat waits for a first request still in progress. */
export const MAX_WAIT_MS = 3000;
const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 500;

export async function withIdempotency<T>(scope: IdempotencyScope, operation: () => Promise<T>): Promise<T> {
  const { accountId, userEmail } = scope.caller;
  if (scope.key === null) return operation();
  const key = storedKeyOf(userEmail, scope.key);
  const fingerprint = fingerprintOf(scope.fingerprint);
  const deadline = Date.now() + MAX_WAIT_MS;
  let pollMs = FIRST_POLL_MS;

  for (;;) {
    const claim: Claim = { accountId, key, fingerprint, claimId: randomUUID() };
    if (await claimIdempotencyKey(claim, nowSeconds())) return runClaimed(claim, operation);

    let record = await getIdempotencyRecord(accountId, key, nowSeconds());
    while (record?.status === 'IN_PROGRESS' && record.fingerprint === fingerprint) {
      if (Date.now() + pollMs > deadline) throw IdempotencyKeyReused.inProgress();
      await sleep(pollMs);
      pollMs = Math.min(pollMs * 2, MAX_POLL_MS);
      record = await getIdempotencyRecord(accountId, key, nowSeconds());
    }
    if (record === null) {
      // The record went away between the claim and the read (the first request failed and released
      // the key, or it expired): claim it again, within the same time budget.
      if (Date.now() > deadline) throw IdempotencyKeyReused.inProgress();
      continue;
    }
    if (record.fingerprint !== fingerprint) throw IdempotencyKeyReused.differentRequest();
    return replay<T>(record);
  }
}

/** The key as stored: the user's, encoded so that no user and key can spell another user's pair. */
export const storedKeyOf = (userEmail: string, key: string) => `${encodeURIComponent(userEmail)}#${key}`;

async function runClaimed<T>(claim: Claim, operation: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await operation();
  } catch (error) {
    // If even the release fails, the lease lapses by itself (LEASE_SECONDS); the caller sees the
    // operation's own error either way.
    await releaseIdempotencyKey(claim).catch(() => undefined);
    throw error;
  }
  try {
    await completeIdempotencyKey(claim, JSON.stringify(result));
  } catch (error) {
    // The operation's effects are done and its answer is right: give it to the caller. A repeat then
    // finds the record in progress until the lease lapses, and after that runs the operation again.
    const { name } = error instanceof Error ? error : { name: 'Unknown' };
    console.warn(
      JSON.stringify({ level: 'WARN', message: 'idempotency record not completed', error: { name } }),
    );
  }
  return result;
}

function replay<T>(record: IdempotencyRecord): T {
  return (record.result === undefined ? undefined : JSON.parse(record.result)) as T;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
