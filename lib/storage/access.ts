/**
 * Least privilege by key. Every function declares the DynamoDB actions it makes and the partitions
 * (key families of lib/storage/keys.ts) each one touches; the CDK stack turns the declaration into the
 * function's IAM policy (`dynamodb:LeadingKeys` conditions, only those actions, only on the table or
 * index named), and `withDeclaredAccess` makes every storage call of a request check itself against the
 * same declaration first, so a call the policy would deny on AWS fails the same way locally and in
 * the tests (it never reaches DynamoDB). On AWS the policy refuses by itself, and the check is skipped
 * (`ACCESS_ENFORCED_BY_IAM`) and not even bundled (infra/bundling.ts `define`).
 *
 * How IAM sees each call (DynamoDB developer guide, "Using IAM policy conditions for fine-grained access
 * control" and "Using IAM with DynamoDB transactions"):
 * - `dynamodb:LeadingKeys` holds the partition key values a request names, and is used with
 *   `ForAllValues`: every value must match. BatchGetItem and BatchWriteItem name all of their items'
 *   partition keys; a Query names the one of its key condition. On an index the only key in the request
 *   is the index's own partition key, so that is what a Query on `<table>/index/<name>` is judged on.
 * - TransactWriteItems has no IAM action of its own: each of its items needs PutItem, UpdateItem,
 *   DeleteItem or ConditionCheckItem on its own key.
 * - Scan names no key, and `ForAllValues` over nothing is true: a Scan grant would reach every item
 *   whatever the condition. No declaration can hold Scan.
 * - StringLike cannot exclude: `ACCOUNT#*` (an account's lists) also matches `ACCOUNT#acme#LIST#7` (a
 *   list's members) and `ACCOUNT#acme#IDEMPOTENCY#k`. So each family a declared pattern reaches without
 *   being declared is denied explicitly (`deniedPartitions`: a Deny statement in IAM, a refusal here).
 */
import { RequestScope } from '../request-scope';
import type { TableIndexName } from './table';

/** The actions a declaration may hold: Scan is not one of them. */
export type StorageAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem'
  | 'ConditionCheckItem';

export const WRITE_ACTIONS: readonly StorageAction[] = [
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'ConditionCheckItem',
];

/**
 * A partition family: an IAM `StringLike` pattern over partition key values (`COMPANY#*#*`), on the
 * table or on one of its indexes. Built in lib/storage/partitions.ts from the key functions themselves.
 */
export interface Partition {
  pattern: string;
  index?: TableIndexName;
}

/** What a function may do to the table: per action, the partitions it may touch. `{}` = nothing. */
export type StorageAccess = Partial<Record<StorageAction, readonly Partition[]>>;

/** One thing a call asks DynamoDB for, as IAM judges it: an action on a partition of the table or an index. */
export interface Touch {
  action: string;
  index?: string;
  partitionKey: string | undefined;
}

/** A storage call the function's declaration (and so its IAM policy) does not allow. */
export class UndeclaredStorageAccessError extends Error {
  override readonly name = 'UndeclaredStorageAccessError';
}

/**
 * Set to `true` on every deployed function (infra/function.ts): there its IAM policy, built from the
 * same declaration, refuses what the declaration does not allow, so the client does not check each call
 * again (lib/storage/client.ts; the check walks every key a call names, 100 of them in a bulk
 * BatchGetItem). DynamoDB Local has no IAM: locally and in the tests the check stands in for it.
 */
export { ACCESS_ENFORCED_BY_IAM } from '../config';

const declared = /* @__PURE__ */ new RequestScope<StorageAccess>();

/** Runs `run` with every storage call it makes checked against `access`. */
export function withDeclaredAccess<T>(access: StorageAccess, run: () => Promise<T>): Promise<T> {
  return declared.run(access, run);
}

/** The declaration in force for the code running now (lib/storage/access-check.ts checks calls against it). */
export const declaredAccess = (): StorageAccess | undefined => declared.get();

/** Whether a declaration changes stored data (any write action). */
export const writesAny = (access: StorageAccess): boolean =>
  WRITE_ACTIONS.some((action) => (access[action]?.length ?? 0) > 0);

/** Whether a declaration touches the table at all. */
export const touchesTable = (access: StorageAccess): boolean =>
  Object.values(access).some((partitions) => (partitions?.length ?? 0) > 0);
