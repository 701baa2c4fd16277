/**
 * Where idempotency records sit in the table (key pattern in lib/storage/keys.ts: the account is in the
 * partition key, so a key is only ever looked up within the caller's account).
 *
 * One item per (account, Idempotency-Key):
 *   status       IN_PROGRESS while the first request runs, COMPLETED once it has answered
 *   fingerprint  sha256 of the request's input (lib/idempotency/fingerprint.ts)
 *   claimId      who holds an IN_PROGRESS record, so only its holder completes or releases it
 *   leaseUntil   epoch seconds after which an IN_PROGRESS record counts as abandoned (its Lambda died
 *                mid-operation and never completed nor released it)
 *   result       the first answer as JSON text (absent when the operation returned nothing)
 *   ttl          epoch seconds, 24 h after the first request; DynamoDB's TTL deletes the item some
 *                time after that (up to days later), so reads check it too
 *
 * All times are passed in (`now`, epoch seconds) rather than read here, so the rules are testable.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionHeld, dynamodb, send, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { tableDefinition } from '../storage/table';

/** Contract §7.5: a key answers the same for 24 hours. */
export const RETENTION_SECONDS = 24 * 60 * 60;
/**
 * How long an IN_PROGRESS record holds its key with nobody completing it. Well over a function's
 * timeout (10 s by default, and API Gateway gives up at 29 s), so a live first request is never
 * overtaken; short enough that a key whose first request crashed is usable again a minute later.
 */
export const LEASE_SECONDS = 60;

export type IdempotencyStatus = 'IN_PROGRESS' | 'COMPLETED';

export interface IdempotencyRecord {
  status: IdempotencyStatus;
  fingerprint: string;
  /** The first answer as JSON text; undefined when the operation returned nothing. */
  result: string | undefined;
}

export interface Claim {
  accountId: string;
  key: string;
  fingerprint: string;
  /** Random, per attempt: completing and releasing require it. */
  claimId: string;
}

const TTL = tableDefinition.timeToLiveAttribute;
const names = { '#ttl': TTL, '#status': 'status' };

/**
 * Records "in progress" for this key unless a live record already holds it (conditional put, so of
 * two concurrent first requests exactly one gets true). An expired record, or an IN_PROGRESS one
 * whose lease has lapsed, counts as absent and is replaced.
 */
export async function claimIdempotencyKey(claim: Claim, now: number): Promise<boolean> {
  return conditionHeld(() =>
    dynamodb().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.idempotency(claim.accountId, claim.key),
          entity: 'IdempotencyRecord',
          status: 'IN_PROGRESS' satisfies IdempotencyStatus,
          fingerprint: claim.fingerprint,
          claimId: claim.claimId,
          leaseUntil: now + LEASE_SECONDS,
          [TTL]: now + RETENTION_SECONDS,
        },
        ConditionExpression:
          'attribute_not_exists(pk) OR #ttl <= :now OR (#status = :inProgress AND leaseUntil <= :now)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':now': now, ':inProgress': 'IN_PROGRESS' },
      }),
    ),
  );
}

/** The live record for this key, or null when there is none (absent, expired, or abandoned). */
export async function getIdempotencyRecord(
  accountId: string,
  key: string,
  now: number,
): Promise<IdempotencyRecord | null> {
  const { Item } = await send(() =>
    dynamodb().send(
      // Strongly consistent: a record completed a moment ago must be seen by the request waiting on it.
      new GetCommand({ TableName: tableName(), Key: keys.idempotency(accountId, key), ConsistentRead: true }),
    ),
  );
  if (!Item || Number(Item[TTL]) <= now) return null;
  const status = Item['status'] as IdempotencyStatus;
  if (status === 'IN_PROGRESS' && Number(Item['leaseUntil']) <= now) return null;
  return {
    status,
    fingerprint: Item['fingerprint'] as string,
    result: Item['result'] as string | undefined,
  };
}

/**
 * Stores the first answer. Returns false if the claim was no longer this caller's (its lease lapsed and
 * another request took the key over), in which case nothing is written.
 */
export async function completeIdempotencyKey(claim: Claim, result: string | undefined): Promise<boolean> {
  return conditionHeld(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.idempotency(claim.accountId, claim.key),
        UpdateExpression:
          result === undefined
            ? 'SET #status = :completed REMOVE leaseUntil, claimId'
            : 'SET #status = :completed, #result = :result REMOVE leaseUntil, claimId',
        ConditionExpression: 'claimId = :claimId',
        ExpressionAttributeNames: {
          '#status': 'status',
          ...(result === undefined ? {} : { '#result': 'result' }),
        },
        ExpressionAttributeValues: {
          ':completed': 'COMPLETED',
          ':claimId': claim.claimId,
          ...(result === undefined ? {} : { ':result': result }),
        },
      }),
    ),
  );
}

/** Gives the key up after a failed operation, so a retry runs it; only while the claim is this caller's. */
export async function releaseIdempotencyKey(claim: Claim): Promise<void> {
  await conditionHeld(() =>
    dynamodb().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.idempotency(claim.accountId, claim.key),
        ConditionExpression: 'claimId = :claimId',
        ExpressionAttributeValues: { ':claimId': claim.claimId },
      }),
    ),
  );
}
