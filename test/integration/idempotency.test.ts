/** withIdempotency (contract §7.5) against DynamoDB Local: records, races, failures and expiry. */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { IdempotencyKeyReused } from '../../lib/errors';
import { asApiError } from '../../lib/http/errors';
import { fingerprintOf } from '../../lib/idempotency/fingerprint';
import { storedKeyOf, withIdempotency } from '../../lib/idempotency/idempotency';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  LEASE_SECONDS,
  RETENTION_SECONDS,
} from '../../lib/idempotency/store';
import { useFreshTable } from '../support/table';

useFreshTable();

const ACCOUNT = 'acme';
const CALLER = { accountId: ACCOUNT, userEmail: 'alice@acme.example' };
const input = { params: { id: 7 }, body: { companies: [{ companyNumber: '0403170701', country: 'BE' }] } };

/** An operation that counts its runs and answers with the run number. */
function countingOperation(delayMs = 0) {
  let runs = 0;
  return jest.fn(async () => {
    const run = ++runs;
    if (delayMs) await sleep(delayMs);
    return { success: true, message: `run ${run}` };
  });
}

const newKey = () => `key-${randomUUID()}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** What a caller sees of the operation's refusal: the one mapping from domain errors to the contract. */
const answered = (operation: Promise<unknown>) =>
  operation.catch((error: unknown) => {
    throw asApiError(error);
  });

describe('withIdempotency', () => {
  it('runs the operation once and answers a repeat with the first answer', async () => {
    const key = newKey();
    const operation = countingOperation();

    const first = await withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);
    const repeat = await withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);

    expect(first).toEqual({ success: true, message: 'run 1' });
    expect(repeat).toEqual(first);
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('treats the same input with its keys in another order as the same request', async () => {
    const key = newKey();
    const operation = countingOperation();

    await withIdempotency({ caller: CALLER, key, fingerprint: { a: 1, b: { c: 2, d: 3 } } }, operation);
    const repeat = await withIdempotency(
      { caller: CALLER, key, fingerprint: { b: { d: 3, c: 2 }, a: 1 } },
      operation,
    );

    expect(repeat).toEqual({ success: true, message: 'run 1' });
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED to the same key with other input, without running it', async () => {
    const key = newKey();
    const operation = countingOperation();
    await withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);

    const other = withIdempotency(
      { caller: CALLER, key, fingerprint: { ...input, params: { id: 8 } } },
      operation,
    );

    await expect(other).rejects.toBeInstanceOf(IdempotencyKeyReused);
    await expect(answered(other)).rejects.toMatchObject({
      status: 409,
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: 'Idempotency-Key was already used with a different request',
    });
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('keeps keys apart per account: the same key in another account runs again', async () => {
    const key = newKey();
    const operation = countingOperation();

    const ours = await withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);
    const theirs = await withIdempotency(
      { caller: { accountId: 'globex', userEmail: CALLER.userEmail }, key, fingerprint: input },
      operation,
    );

    expect(ours).toEqual({ success: true, message: 'run 1' });
    expect(theirs).toEqual({ success: true, message: 'run 2' });
  });

  it('keeps keys apart per user: the same key from a colleague runs again, never replays or refuses', async () => {
    const key = newKey();
    const operation = countingOperation();

    const alice = await withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);
    const bob = { accountId: ACCOUNT, userEmail: 'bob@acme.example' };
    const sameBody = await withIdempotency({ caller: bob, key, fingerprint: input }, operation);
    const otherBody = await withIdempotency(
      { caller: bob, key: `${key}-2`, fingerprint: { other: 1 } },
      operation,
    );
    // A user whose e-mail holds the separator cannot reach another user's key either.
    const tricky = { accountId: ACCOUNT, userEmail: `alice@acme.example#${key}` };
    const spelled = await withIdempotency({ caller: tricky, key: '', fingerprint: input }, operation);

    expect([alice, sameBody, otherBody, spelled].map((a) => a.message)).toEqual([
      'run 1',
      'run 2',
      'run 3',
      'run 4',
    ]);
  });

  it('runs the operation exactly once when five first calls race, and gives all of them its answer', async () => {
    const key = newKey();
    const operation = countingOperation(300);

    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        withIdempotency({ caller: CALLER, key, fingerprint: input }, operation),
      ),
    );

    expect(operation).toHaveBeenCalledTimes(1);
    expect(answers).toEqual(Array.from({ length: 5 }, () => ({ success: true, message: 'run 1' })));
  });

  it('answers 409 at once to other input while the first request is still running', async () => {
    const key = newKey();
    const operation = countingOperation(500);
    const first = withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);
    await sleep(100);

    const other = withIdempotency({ caller: CALLER, key, fingerprint: { other: true } }, operation);

    await expect(answered(other)).rejects.toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    await expect(first).resolves.toEqual({ success: true, message: 'run 1' });
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('answers 409 saying so when the first request is still in progress after the wait', async () => {
    const key = newKey();
    const fingerprint = fingerprintOf(input);
    await claimIdempotencyKey(
      { accountId: ACCOUNT, key: storedKeyOf(CALLER.userEmail, key), fingerprint, claimId: 'elsewhere' },
      nowSeconds(),
    );
    const operation = countingOperation();

    const repeat = withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);

    await expect(answered(repeat)).rejects.toMatchObject({
      status: 409,
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: expect.stringContaining('still in progress'),
    });
    expect(operation).not.toHaveBeenCalled();
  });

  it('lets a retry run the operation after the first attempt failed', async () => {
    const key = newKey();
    const failure = new Error('storage fell over');
    const failing = jest.fn(async () => {
      throw failure;
    });
    const operation = countingOperation();

    const first = withIdempotency({ caller: CALLER, key, fingerprint: input }, failing);
    await expect(first).rejects.toBe(failure);
    const retry = await withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);

    expect(retry).toEqual({ success: true, message: 'run 1' });
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('ignores a record older than 24 hours, even before DynamoDB has deleted it', async () => {
    const key = newKey();
    const claim = {
      accountId: ACCOUNT,
      key: storedKeyOf(CALLER.userEmail, key),
      fingerprint: fingerprintOf({ stale: true }),
      claimId: 'yesterday',
    };
    await claimIdempotencyKey(claim, nowSeconds() - RETENTION_SECONDS - 60);
    await completeIdempotencyKey(claim, JSON.stringify({ success: true, message: 'stale answer' }));
    const operation = countingOperation();

    const answer = await withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);

    expect(answer).toEqual({ success: true, message: 'run 1' });
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('takes over a key whose first request was abandoned in progress (lease lapsed)', async () => {
    const key = newKey();
    const claim = {
      accountId: ACCOUNT,
      key: storedKeyOf(CALLER.userEmail, key),
      fingerprint: fingerprintOf(input),
      claimId: 'crashed',
    };
    await claimIdempotencyKey(claim, nowSeconds() - LEASE_SECONDS - 1);
    const operation = countingOperation();

    const answer = await withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);

    expect(answer).toEqual({ success: true, message: 'run 1' });
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('replays an operation that answered nothing', async () => {
    const key = newKey();
    const operation = jest.fn(async () => undefined);

    await withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);
    const repeat = await withIdempotency({ caller: CALLER, key, fingerprint: input }, operation);

    expect(repeat).toBeUndefined();
    expect(operation).toHaveBeenCalledTimes(1);
  });

  it('runs the operation every time without a key', async () => {
    const operation = countingOperation();

    await withIdempotency({ caller: CALLER, key: null, fingerprint: input }, operation);
    const second = await withIdempotency({ caller: CALLER, key: null, fingerprint: input }, operation);

    expect(second).toEqual({ success: true, message: 'run 2' });
    expect(operation).toHaveBeenCalledTimes(2);
  });
});
