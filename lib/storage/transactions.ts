/**
 * Writes that DynamoDB has no batch request for (UpdateItem), grouped up to 100 items a
 * TransactWriteItems request: atomicity is not the point, one request instead of 100 is. Every action
 * here is idempotent, so a transaction cancelled by a concurrent write or by throttling is sent again.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { forEachLimited } from '../concurrency';
import { backoff, batchGet, batchPut, chunk } from './batch';
import { cancellationReasons, dynamodb, send } from './client';
import { StorageUnavailableError } from './errors';
import { actionKey, assertOneActionPerItem, uniqueKey } from './one-action-per-item';

type Key = Record<string, unknown>;

/** Attributes set on an item only where it lacks them; the item is created when absent. */
export interface Addition {
  key: Key;
  attributes: Record<string, unknown>;
}

/** TransactWriteItems takes at most 100 actions, each on another item. */
const TRANSACT_LIMIT = 100;
/** Attributes per action: keeps an UpdateExpression (`#a12 = if_not_exists(#a12, :a12), …`) under its 4 KB. */
const ATTRIBUTES_PER_ACTION = 60;

/**
 * Makes additions (`SET a = if_not_exists(a, :v)` per attribute): repeating one, or two racing, leaves
 * every attribute with its first value and loses nothing. DynamoDB has no batched UpdateItem, so up to
 * 100 items go in one TransactWriteItems request (atomicity is not the point: one request instead of
 * 100). Additions to the same item are merged (the first value of an attribute wins); an item with more
 * attributes than one action takes is spread over several requests. A transaction cancelled by a
 * concurrent write to one of its items (TransactionConflict) or by throttling is retried with backoff.
 */
export async function batchAdd(table: string, additions: Addition[], concurrency = 4): Promise<void> {
  // Round r takes the r-th slice of every item's attributes: no request names an item twice.
  const rounds: Addition[][] = [];
  for (const { key, attributes } of mergeAdditions(additions)) {
    chunk(Object.entries(attributes), ATTRIBUTES_PER_ACTION).forEach((entries, round) => {
      (rounds[round] ??= []).push({ key, attributes: Object.fromEntries(entries) });
    });
  }
  for (const round of rounds) {
    await forEachLimited(chunk(round, TRANSACT_LIMIT), concurrency, (part) => transactAdd(table, part));
  }
}

/**
 * One addition per item (a request refuses two actions on one): additions to one item merge, the first
 * value of an attribute winning, as if they were made one after the other.
 */
function mergeAdditions(additions: Addition[]): Addition[] {
  const merged = new Map<string, Addition>();
  for (const { key, attributes } of additions) {
    const id = uniqueKey(key);
    const into = merged.get(id);
    if (into) into.attributes = { ...attributes, ...into.attributes };
    else merged.set(id, { key, attributes: { ...attributes } });
  }
  return [...merged.values()];
}

/**
 * The same additions as `batchAdd` for a writer that no other writes these items meanwhile (an import
 * run holding the import lease, lib/import/lease.ts `importLeaseHeld`): the items read (one strongly
 * consistent BatchGetItem per 100), the attributes they lack added, and each put whole in BatchWriteItem
 * (unprocessed items sent again) — a plain put costs DynamoDB a fraction of a transaction's item. With
 * another writer at the same moment the last put would drop the other's attributes: `batchAdd` then.
 */
export async function addByPut(table: string, additions: Addition[]): Promise<void> {
  if (additions.length === 0) return;
  const merged = mergeAdditions(additions);
  const items = await batchGet(
    table,
    merged.map(({ key }) => key),
    { consistent: true },
  );
  const stored = new Map(items.map((item) => [uniqueKey(item), item]));
  await batchPut(
    table,
    merged.map(({ key, attributes }) => ({ ...attributes, ...stored.get(uniqueKey(key)), ...key })),
  );
}

async function transactAdd(table: string, additions: Addition[]): Promise<void> {
  const TransactItems = additions.map(({ key, attributes }) => {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = Object.entries(attributes).map(([name, value], i) => {
      names[`#a${i}`] = name;
      values[`:a${i}`] = value;
      return `#a${i} = if_not_exists(#a${i}, :a${i})`;
    });
    return {
      Update: {
        TableName: table,
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    };
  });
  await transactWrite(TransactItems);
}

const RETRYABLE_CANCELLATIONS = new Set(['None', 'TransactionConflict', 'ThrottlingError']);

/** Members added to or taken out of a string set attribute (`ADD` / `DELETE`); the item is created when absent. */
export interface SetChange {
  key: Key;
  attribute: string;
  add?: string[];
  remove?: string[];
  /** Set with the additions (say the entity tag). */
  attributes?: Record<string, unknown>;
}

/**
 * Makes set changes, up to 100 items a TransactWriteItems request (DynamoDB has no batched UpdateItem;
 * atomicity is not the point). A request takes one action per item, so the changes to one item merge
 * into one action, whichever of its sets they touch: set additions and removals commute, and attributes
 * set with the additions are the last given. One expression cannot both add a member to a set and take
 * one from it, so removals go in a round before additions. Set operations are idempotent, so a
 * transaction cancelled by a concurrent write (TransactionConflict) or by throttling is simply sent
 * again with backoff.
 */
export async function batchSetChanges(table: string, changes: SetChange[], concurrency = 4): Promise<void> {
  interface ItemChanges {
    key: Key;
    add: Map<string, Set<string>>;
    remove: Map<string, Set<string>>;
    attributes: Record<string, unknown>;
  }
  const merged = new Map<string, ItemChanges>();
  const members = (sets: Map<string, Set<string>>, attribute: string) =>
    sets.get(attribute) ?? sets.set(attribute, new Set()).get(attribute)!;
  for (const change of changes) {
    const id = uniqueKey(change.key);
    let into = merged.get(id);
    if (!into)
      merged.set(id, (into = { key: change.key, add: new Map(), remove: new Map(), attributes: {} }));
    if (change.add?.length) for (const m of change.add) members(into.add, change.attribute).add(m);
    if (change.remove?.length) for (const m of change.remove) members(into.remove, change.attribute).add(m);
    Object.assign(into.attributes, change.attributes);
  }
  const update = (key: Key, verb: 'ADD' | 'DELETE', sets: Map<string, Set<string>>, also = {}) => {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const clauses = [...sets].map(([attribute, members], i) => {
      names[`#s${i}`] = attribute;
      values[`:m${i}`] = members;
      return `#s${i} :m${i}`;
    });
    const assignments = Object.entries(also).map(([name, value], i) => {
      names[`#a${i}`] = name;
      values[`:a${i}`] = value;
      return `#a${i} = :a${i}`;
    });
    return {
      Update: {
        TableName: table,
        Key: key,
        UpdateExpression:
          `${verb} ${clauses.join(', ')}` + (assignments.length > 0 ? ` SET ${assignments.join(', ')}` : ''),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    };
  };
  const items = [...merged.values()];
  const rounds = [
    items.filter((m) => m.remove.size > 0).map((m) => update(m.key, 'DELETE', m.remove)),
    items.filter((m) => m.add.size > 0).map((m) => update(m.key, 'ADD', m.add, m.attributes)),
  ];
  for (const round of rounds) {
    await forEachLimited(chunk(round, TRANSACT_LIMIT), concurrency, (part) => transactWrite(part));
  }
}

/** Import jobs share items between batches in flight: more patience for conflicts than a request has. */
const CONFLICT_ATTEMPTS = 10;

export type TransactItems = NonNullable<
  ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']
>;

/**
 * Sends one TransactWriteItems, after checking that no two of its actions name one item (DynamoDB
 * refuses that; `assertOneActionPerItem` names the item instead). Every transaction goes through here.
 */
export function sendTransaction(TransactItems: TransactItems): Promise<unknown> {
  assertOneActionPerItem('TransactWriteItems', TransactItems.map(actionKey));
  return send(() => dynamodb().send(new TransactWriteCommand({ TransactItems })));
}

/** One TransactWriteItems of idempotent actions, sent again while it is cancelled by conflicts or throttling. */
export async function transactWrite(TransactItems: TransactItems): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) await backoff(attempt);
    try {
      await sendTransaction(TransactItems);
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      const retryable = reasons?.every((r) => RETRYABLE_CANCELLATIONS.has(r)) ?? false;
      if (!retryable) throw error;
      if (attempt + 1 === CONFLICT_ATTEMPTS) throw new StorageUnavailableError({ cause: error });
    }
  }
}
