/**
 * Checks a storage call against the declaration in force (lib/storage/access.ts says how IAM sees each
 * call). Loaded by the storage client only, so a function that never touches the table (health) never
 * loads it nor the key module it reads the partition families from; the function bundles leave it out
 * (IAM enforces the declaration there: infra/bundling.ts `define`).
 */
import {
  declaredAccess,
  UndeclaredStorageAccessError,
  type Partition,
  type StorageAccess,
  type StorageAction,
  type Touch,
} from './access';
import * as families from './partitions';
import { tableDefinition } from './table';

/**
 * Throws UndeclaredStorageAccessError when the call (`GetItemCommand` and its marshalled input) is
 * not allowed by the declaration in force; calls outside `withDeclaredAccess` (CLIs, the import, test
 * fixtures: operator credentials) are not checked.
 */
export function checkDeclaredAccess(commandName: string, input: unknown): void {
  const access = declaredAccess();
  if (!access) return;
  const refused = touchesOf(commandName, input).find((touch) => !allows(access, touch));
  if (refused) {
    const where = refused.index ? `index ${refused.index}` : 'the table';
    throw new UndeclaredStorageAccessError(
      `${refused.action} on ${where}, partition ${refused.partitionKey ?? '(none)'}, is not declared`,
    );
  }
}

export function allows(access: StorageAccess, touch: Touch): boolean {
  const action = touch.action as StorageAction;
  const partitions = access[action];
  if (!partitions || touch.partitionKey === undefined) return false;
  const key = touch.partitionKey;
  const matches = (p: Partition) => p.index === touch.index && globMatches(p.pattern, key);
  return partitions.some(matches) && !deniedPartitions(access, action).some(matches);
}

/**
 * The families of the key module that a declared pattern of `action` also matches, though the
 * declaration does not name them: a real key of theirs (the pattern with `x` for each wildcard) matches
 * a declared pattern, and their own pattern matches no declared family's key (so denying them takes
 * nothing declared away). IAM gets them as a Deny statement (infra/function.ts).
 */
export function deniedPartitions(access: StorageAccess, action: StorageAction): Partition[] {
  const byAction = denials.get(access) ?? new Map<StorageAction, Partition[]>();
  denials.set(access, byAction);
  let denied = byAction.get(action);
  if (!denied) {
    const declared = access[action] ?? [];
    denied = (Object.values(families) as Partition[]).filter(
      (family) =>
        !declared.includes(family) &&
        declared.some((d) => d.index === family.index && globMatches(d.pattern, sampleKey(family))) &&
        !declared.some((d) => d.index === family.index && globMatches(family.pattern, sampleKey(d))),
    );
    byAction.set(action, denied);
  }
  return denied;
}

/** Worked out once per declaration and action. */
const denials = new WeakMap<StorageAccess, Map<StorageAction, Partition[]>>();

/** A partition key of the family: its pattern with a plain value for each wildcard. */
const sampleKey = (p: Partition) => p.pattern.replace(/[*?]/g, 'x');

/** IAM StringLike: `*` any run of characters, `?` one character, everything else literal. */
export function globMatches(pattern: string, value: string): boolean {
  let compiled = globs.get(pattern);
  if (!compiled) {
    const source = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    compiled = new RegExp(`^${source}$`, 's');
    globs.set(pattern, compiled);
  }
  return compiled.test(value);
}

/** Each pattern compiled once per process (a function has a handful). */
const globs = new Map<string, RegExp>();

type AttributeValue = { S?: string };
type Marshalled = Record<string, AttributeValue>;

const { partitionKey } = tableDefinition;

/** What one call touches, one entry per item it names (a Scan: one entry with no partition). */
export function touchesOf(commandName: string, input: unknown): Touch[] {
  const action = commandName.replace(/Command$/, '');
  const request = input as Record<string, unknown>;
  const keyOf = (item: unknown) => (item as Marshalled | undefined)?.[partitionKey]?.S;
  switch (action) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ action, partitionKey: keyOf(request['Key']) }];
    case 'PutItem':
      return [{ action, partitionKey: keyOf(request['Item']) }];
    case 'BatchGetItem':
      return Object.values(request['RequestItems'] as Record<string, { Keys: unknown[] }>).flatMap(
        ({ Keys }) => Keys.map((key) => ({ action, partitionKey: keyOf(key) })),
      );
    case 'BatchWriteItem':
      return Object.values(request['RequestItems'] as Record<string, WriteRequest[]>).flatMap((writes) =>
        writes.map((write) => ({
          action,
          partitionKey: keyOf(write.PutRequest?.Item ?? write.DeleteRequest?.Key),
        })),
      );
    case 'TransactWriteItems':
      return (request['TransactItems'] as TransactItem[]).map((item) => {
        if (item.Put) return { action: 'PutItem', partitionKey: keyOf(item.Put.Item) };
        if (item.Update) return { action: 'UpdateItem', partitionKey: keyOf(item.Update.Key) };
        if (item.Delete) return { action: 'DeleteItem', partitionKey: keyOf(item.Delete.Key) };
        return { action: 'ConditionCheckItem', partitionKey: keyOf(item.ConditionCheck?.Key) };
      });
    case 'TransactGetItems':
      return (request['TransactItems'] as { Get: { Key: unknown } }[]).map((item) => ({
        action: 'GetItem',
        partitionKey: keyOf(item.Get.Key),
      }));
    case 'Query':
      return [queryTouch(request)];
    default:
      return [{ action, partitionKey: undefined }];
  }
}

interface WriteRequest {
  PutRequest?: { Item: unknown };
  DeleteRequest?: { Key: unknown };
}

interface TransactItem {
  Put?: { Item: unknown };
  Update?: { Key: unknown };
  Delete?: { Key: unknown };
  ConditionCheck?: { Key: unknown };
}

/** A Query names one partition: the `<partition key> = :value` of its key condition. */
function queryTouch(request: Record<string, unknown>): Touch {
  const indexName = request['IndexName'] as string | undefined;
  const index = tableDefinition.indexes.find((i) => i.name === indexName);
  const keyName = indexName ? index?.partitionKey : partitionKey;
  const names = (request['ExpressionAttributeNames'] as Record<string, string> | undefined) ?? {};
  const values = (request['ExpressionAttributeValues'] as Marshalled | undefined) ?? {};
  const condition = (request['KeyConditionExpression'] as string | undefined) ?? '';
  let value: string | undefined;
  for (const [, name, placeholder] of condition.matchAll(/(#?[\w]+)\s*=\s*(:[\w]+)/g)) {
    if ((names[name!] ?? name) === keyName) value = values[placeholder!]?.S;
  }
  return { action: 'Query', ...(indexName ? { index: indexName } : {}), partitionKey: value };
}
