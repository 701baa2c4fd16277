/**
 * Writes that DynamoDB has no batch request for (UpdateItem), grouped up to 100 items a
 * TransactWriteItems request: atomicity is not the point, one request instead of 100 is. Every action
 * here is idempotent, so a transaction cancelled by a concurrent write or by throttling is sent again.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { forEachLimited } from '../concurrency';
import { backoff, chunk, uniqueKey } from './batch';
import { cancellationReasons, dynamodb, send } from './client';
import { StorageUnavailableError } from './errors';

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
  const merged = new Map<string, Addition>();
  for (const { key, attributes } of additions) {
    const id = JSON.stringify(key);
    const into = merged.get(id);
    if (into) into.attributes = { ...attributes, ...into.attributes };
    else merged.set(id, { key, attributes: { ...attributes } });
  }
  // Round r takes the r-th slice of every item's attributes: no request names an item twice.
  const rounds: Addition[][] = [];
  for (const { key, attributes } of merged.values()) {
    chunk(Object.entries(attributes), ATTRIBUTES_PER_ACTION).forEach((entries, round) => {
      (rounds[round] ??= []).push({ key, attributes: Object.fromEntries(entries) });
    });
  }
  for (const round of rounds) {
    await forEachLimited(chunk(round, TRANSACT_LIMIT), concurrency, (part) => transactAdd(table, part));
  }
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
 * atomicity is not the point). Changes to the same item and attribute are merged; one expression cannot
 * both add to and take from a set, so removals go in a round before additions. Set operations are
 * idempotent, so a transaction cancelled by a concurrent write (TransactionConflict) or by throttling is
 * simply sent again with backoff.
 */
export async function batchSetChanges(table: string, changes: SetChange[], concurrency = 4): Promise<void> {
  const merged = new Map<
    string,
    {
      key: Key;
      attribute: string;
      add: Set<string>;
      remove: Set<string>;
      attributes: Record<string, unknown>;
    }
  >();
  for (const change of changes) {
    const id = `${uniqueKey(change.key)}\u0000${change.attribute}`;
    const into = merged.get(id) ?? {
      key: change.key,
      attribute: change.attribute,
      add: new Set(),
      remove: new Set(),
      attributes: {},
    };
    for (const member of change.add ?? []) into.add.add(member);
    for (const member of change.remove ?? []) into.remove.add(member);
    Object.assign(into.attributes, change.attributes);
    merged.set(id, into);
  }
  const removals = [...merged.values()].filter((m) => m.remove.size > 0);
  const additions = [...merged.values()].filter((m) => m.add.size > 0);
  const update = (
    key: Key,
    expression: string,
    names: Record<string, string>,
    values: Record<string, unknown>,
  ) => ({
    Update: {
      TableName: table,
      Key: key,
      UpdateExpression: expression,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  });
  const rounds = [
    removals.map((m) => update(m.key, 'DELETE #s :members', { '#s': m.attribute }, { ':members': m.remove })),
    additions.map((m) => {
      const names: Record<string, string> = { '#s': m.attribute };
      const values: Record<string, unknown> = { ':members': m.add };
      const sets = Object.entries(m.attributes).map(([name, value], i) => {
        names[`#a${i}`] = name;
        values[`:a${i}`] = value;
        return `#a${i} = :a${i}`;
      });
      return update(
        m.key,
        `ADD #s :members${sets.length > 0 ? ` SET ${sets.join(', ')}` : ''}`,
        names,
        values,
      );
    }),
  ];
  for (const round of rounds) {
    await forEachLimited(chunk(round, TRANSACT_LIMIT), concurrency, (part) => transactWrite(part));
  }
}

/** Import jobs share items between batches in flight: more patience for conflicts than a request has. */
const CONFLICT_ATTEMPTS = 10;

/** One TransactWriteItems of idempotent actions, sent again while it is cancelled by conflicts or throttling. */
export async function transactWrite(
  TransactItems: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) await backoff(attempt);
    try {
      await send(() => dynamodb().send(new TransactWriteCommand({ TransactItems })));
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      const retryable = reasons?.every((r) => RETRYABLE_CANCELLATIONS.has(r)) ?? false;
      if (!retryable) throw error;
      if (attempt + 1 === CONFLICT_ATTEMPTS) throw new StorageUnavailableError({ cause: error });
    }
  }
}
