/**
 * Where events are kept (contract §12; key patterns in lib/storage/keys.ts): per account, numbered in
 * the order they were derived, so the feed is one Query after the cursor's number.
 *
 * Numbers are handed out a block per import batch and account (`reserveBlock`): one transaction moves
 * the account's last number (`SEQUENCE`, conditional on the value read), records the block under the
 * batch's change id (`CHANGE#…`, so a resumed batch writes the same events under the same numbers,
 * never twice) and marks it pending (`PENDING#<first>`). The batch then puts its events and removes the
 * pending mark. A reader stops before the first pending block (`readEvents`), so events that land
 * later under lower numbers are never skipped:
 *
 * 1. read the last number handed out, L (GetItem, consistent: it sees whole transactions, so every
 *    block up to L is marked pending or already fully written);
 * 2. read the pending marks (Query, consistent): the feed stops before the lowest one at or under L;
 * 3. read the events after the cursor up to that bound (Query, consistent).
 *
 * A block whose batch died stays pending until the batch is resumed; past `PENDING_HORIZON_MS` a
 * reader no longer waits for it (the import that wrote it is gone for good, or it is resumed and its
 * events appear under their old numbers, behind readers that moved on).
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { batchDelete, batchGet, batchPut, getItem, queryAll, retrying, AGAIN } from '../storage/batch';
import { cancellationReasons, dynamodb, send, tableName } from '../storage/client';
import { eventSequenceKey, keys, PENDING_EVENT_BLOCK_PREFIX } from '../storage/keys';
import { EVENT_RETENTION_MS } from './event';

/** A reader waits this long at most for a block an import is writing (a Lambda lives 15 minutes). */
export const PENDING_HORIZON_MS = 15 * 60 * 1000;

export interface EventBlock {
  first: number;
  count: number;
  /** The block's event ids in number order: a resumed batch puts each event under its first number. */
  ids: string[];
  /** When the block was handed out: its events' `createdAt`. */
  createdAt: string;
}

/** An event as stored: its number and its body, the JSON text sent as it is. */
export interface StoredEvent {
  sequence: number;
  id: string;
  createdAtMs: number;
  body: string;
}

const ttlOf = (createdAtMs: number) => Math.ceil((createdAtMs + EVENT_RETENTION_MS) / 1000);

/**
 * The block of numbers of one import batch's events (`ids`, in order) for an account: the one handed
 * out before when the batch is derived again, else a new one after the account's last number.
 */
export async function reserveBlock(
  accountId: string,
  changeId: string,
  ids: string[],
  now: () => Date = () => new Date(),
): Promise<EventBlock> {
  const blockKey = keys.eventBlock(accountId, changeId);
  const sequenceKey = keys.eventSequence(accountId);
  return retrying(
    async () => {
      const items = await batchGet(tableName(), [blockKey, sequenceKey], { consistent: true });
      const block = items.find((i) => i['sk'] === blockKey.sk);
      if (block) return toBlock(block);
      const last = Number(items.find((i) => i['sk'] === sequenceKey.sk)?.['last'] ?? 0);
      const createdAt = now();
      const count = ids.length;
      const reserved: EventBlock = { first: last + 1, count, ids, createdAt: createdAt.toISOString() };
      const ttl = ttlOf(createdAt.getTime());
      try {
        await send(() =>
          dynamodb().send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Update: {
                    TableName: tableName(),
                    Key: sequenceKey,
                    UpdateExpression: 'SET #last = :next, entity = :entity',
                    ConditionExpression: last === 0 ? 'attribute_not_exists(#last)' : '#last = :last',
                    ExpressionAttributeNames: { '#last': 'last' },
                    ExpressionAttributeValues: {
                      ':next': last + count,
                      ':entity': 'EventSequence',
                      ...(last === 0 ? {} : { ':last': last }),
                    },
                  },
                },
                {
                  Put: {
                    TableName: tableName(),
                    Item: {
                      ...blockKey,
                      entity: 'EventBlock',
                      first: reserved.first,
                      count,
                      createdAt: reserved.createdAt,
                      // About 25 bytes an event: a batch of 100 companies' updates fits the item easily.
                      ids: ids.join(' '),
                      ttl,
                    },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
                {
                  Put: {
                    TableName: tableName(),
                    Item: {
                      ...keys.pendingEventBlock(accountId, reserved.first),
                      entity: 'PendingEventBlock',
                      changeId,
                      createdAtMs: createdAt.getTime(),
                      ttl,
                    },
                  },
                },
              ],
            }),
          ),
        );
        return reserved;
      } catch (error) {
        // Another batch took numbers meanwhile, or this batch's block was just recorded: read again.
        if (cancellationReasons(error)) return AGAIN;
        throw error;
      }
    },
    { maxAttempts: 20, baseMs: 10, maxMs: 500 },
  );
}

function toBlock(item: Record<string, unknown>): EventBlock {
  return {
    first: Number(item['first']),
    count: Number(item['count']),
    ids: String(item['ids'] ?? '')
      .split(' ')
      .filter((id) => id !== ''),
    createdAt: String(item['createdAt']),
  };
}

/**
 * Puts a block's events, each under its number in the block (an event the block does not name — a list
 * enabled since the batch was first derived — is not written: the block's moment is the derivation's),
 * batched, and then lifts its pending mark: only once every event is there may readers move past them.
 */
export async function writeBlock(
  accountId: string,
  block: EventBlock,
  events: Array<{ id: string; body: string }>,
): Promise<void> {
  const createdAtMs = Date.parse(block.createdAt);
  const ttl = ttlOf(createdAtMs);
  const numbers = new Map(block.ids.map((id, i) => [id, block.first + i]));
  await batchPut(
    tableName(),
    events.flatMap(({ id, body }) => {
      const sequence = numbers.get(id);
      return sequence === undefined
        ? []
        : [{ ...keys.event(accountId, sequence), entity: 'Event', id, createdAtMs, body, ttl }];
    }),
  );
  await batchDelete(tableName(), [keys.pendingEventBlock(accountId, block.first)]);
}

export interface EventsRead {
  events: StoredEvent[];
  /**
   * The number the page read up to: its last event's when it is full, else the bound it stopped at
   * (numbers of a resumed batch's events that are no longer derived are never written: gaps).
   */
  readTo: number;
  /** Whether the page stopped at the bound (nothing more to read now). */
  complete: boolean;
}

/**
 * Up to `limit` events of the account after number `after`, oldest first, never past a block still
 * being written (see the module comment).
 */
export async function readEvents(
  accountId: string,
  after: number,
  limit: number,
  nowMs: number,
): Promise<EventsRead> {
  const last = await lastEventNumber(accountId);
  if (last <= after) return { events: [], readTo: after, complete: true };
  const pending = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :pending)',
    ExpressionAttributeValues: { ':pk': keys.eventLog(accountId), ':pending': PENDING_EVENT_BLOCK_PREFIX },
    ConsistentRead: true,
  });
  let bound = last;
  for (const mark of pending) {
    const first = Number(String(mark['sk']).slice(PENDING_EVENT_BLOCK_PREFIX.length));
    const fresh = Number(mark['createdAtMs']) > nowMs - PENDING_HORIZON_MS;
    if (fresh && first <= bound) bound = first - 1;
  }
  if (bound <= after) return { events: [], readTo: after, complete: true };
  const items = await queryAll(
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      // Expired events DynamoDB has not removed yet are not served (its TTL deletes within days).
      FilterExpression: '#ttl > :now',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':pk': keys.events(accountId),
        ':from': eventSequenceKey(after + 1),
        ':to': eventSequenceKey(bound),
        ':now': Math.floor(nowMs / 1000),
      },
      ConsistentRead: true,
      Limit: limit,
    },
    { limit },
  );
  const events = items.map((item) => ({
    sequence: Number(item['sk']),
    id: String(item['id']),
    createdAtMs: Number(item['createdAtMs']),
    body: String(item['body']),
  }));
  const full = events.length === limit;
  return { events, readTo: full ? events[events.length - 1]!.sequence : bound, complete: !full };
}

/** The number handed out last in the account's feed (0 before its first event). */
export async function lastEventNumber(accountId: string): Promise<number> {
  const sequence = await getItem(tableName(), keys.eventSequence(accountId), { consistent: true });
  return Number(sequence?.['last'] ?? 0);
}
