/**
 * Where events are kept (contract §12; key patterns in lib/storage/keys.ts): per account, numbered in
 * the order they were written, so the feed is one Query after the cursor's number.
 *
 * An event gets its number in the very transaction that writes it (`writeBatchEvents`): the account's last
 * number (`SEQUENCE`, conditional on the value read) moves by the number of events the transaction
 * writes, beside a record of their ids under the import batch's change id (`CHANGE#<changeId>#<part>`)
 * and one item holding the events themselves (a page, keyed by its last number: an import batch's
 * events of one account cost three items, not one each). So there is never a number handed out whose
 * event is still to come: a reader that has passed a number has passed its event, however late a
 * resumed batch writes the rest of its events — they take new numbers, after every reader. A resumed
 * batch reads its records and writes only the events none of them names: the same ids, never twice.
 *
 * The reader (`readEvents`) reads the last number (GetItem, consistent), then the pages up to it
 * (Query, consistent, from the page holding the number after the cursor). DynamoDB applies a
 * transaction item by item, and a Query may read in between; so a page of the feed also stops before
 * missing numbers next to events written a moment ago (a transaction landing), while numbers missing
 * among old events are a page TTL removed.
 */
import { forEachLimited } from '../concurrency';
import { getItem, queryAll, retrying, AGAIN } from '../storage/batch';
import { cancellationReasons, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { eventBlocksOf, eventSequenceKey } from '../storage/keys';
import { sendTransaction } from '../storage/transactions';
import { CLOCK_MARGIN_MS, EVENT_RETENTION_MS } from './event';

/** Events in one page item: about 1 KB each, well under DynamoDB's 400 KB an item. */
export const EVENTS_PER_PAGE = 100;
const PAGE_BYTES = 300_000;
/**
 * A missing number next to an event written this recently is a transaction being applied (a few
 * milliseconds): the page stops before it. Any older, it is an expired event that TTL removed.
 */
export const LANDING_MS = 60_000;

/** An event to write: its id (stable for the same update) and its body, the JSON text sent as it is. */
export interface NewEvent {
  id: string;
  body: string;
}

/** An event as stored: its number and its body. */
export interface StoredEvent {
  sequence: number;
  id: string;
  createdAtMs: number;
  body: string;
}

/** Kept the margin longer than the retention: every event a 30-day-old cursor counts on is still there. */
const ttlOf = (createdAtMs: number) => Math.ceil((createdAtMs + EVENT_RETENTION_MS + CLOCK_MARGIN_MS) / 1000);

/** The account's last number as this process last wrote or read it: a guess the condition checks. */
const lastKnown = new Map<string, number>();

/** One page of each account goes into a transaction, three items each: 33 accounts fill its 100. */
const ACCOUNTS_PER_TRANSACTION = 33;
/** And a transaction carries at most 4 MB: its pages stay under this. */
const TRANSACTION_BYTES = 3_000_000;

/** What a batch wrote for an account so far: the ids, in how many pages. */
interface Written {
  ids: Set<string>;
  parts: number;
}

/** `writeBatchEvents` for one account: how many events it wrote now. */
export async function writeEvents(
  accountId: string,
  changeId: string,
  events: NewEvent[],
  now: () => Date = () => new Date(),
): Promise<number> {
  return (await writeBatchEvents(changeId, new Map([[accountId, events]]), now)).get(accountId) ?? 0;
}

/**
 * Writes an import batch's events (`changeId`: the batch's) of every account, each page numbered in
 * the transaction that writes it (one page per account in a transaction, up to 33 accounts),
 * skipping those this batch already wrote (a resumed batch). Answers how many it wrote now, per
 * account. A first try takes the batch for a new one and the numbers this process last saw; an
 * account whose condition is refused (another writer took numbers, or this batch was written
 * before) is read again and the transaction tried again.
 */
export async function writeBatchEvents(
  changeId: string,
  byAccount: Map<string, NewEvent[]>,
  now: () => Date = () => new Date(),
): Promise<Map<string, number>> {
  const written = new Map<string, Written>();
  const counts = new Map([...byAccount.keys()].map((accountId) => [accountId, 0]));
  const stale = new Set([...byAccount.keys()].filter((accountId) => !lastKnown.has(accountId)));
  await retrying(
    async () => {
      await forEachLimited([...stale], READS_IN_FLIGHT, async (accountId) => {
        const [done] = await Promise.all([writtenBy(accountId, changeId), readLast(accountId)]);
        written.set(accountId, done);
      });
      stale.clear();
      for (;;) {
        const round: Page[] = [];
        for (const [accountId, events] of byAccount) {
          const done = written.get(accountId) ?? { ids: new Set<string>(), parts: 0 };
          const rest = events.filter((e) => !done.ids.has(e.id));
          if (rest.length > 0) round.push({ accountId, part: done.parts, events: pages(rest)[0]! });
        }
        if (round.length === 0) return true;
        for (const group of transactions(round)) {
          const refused = await writePages(changeId, group, now());
          if (refused) {
            for (const accountId of refused) stale.add(accountId);
            return AGAIN;
          }
          for (const { accountId, events } of group) {
            const done = written.get(accountId) ?? { ids: new Set<string>(), parts: 0 };
            for (const e of events) done.ids.add(e.id);
            done.parts++;
            written.set(accountId, done);
            counts.set(accountId, (counts.get(accountId) ?? 0) + events.length);
          }
        }
      }
    },
    { maxAttempts: 20, baseMs: 10, maxMs: 500 },
  );
  return counts;
}

const READS_IN_FLIGHT = 8;

/** The pages in groups of at most `ACCOUNTS_PER_TRANSACTION` and `TRANSACTION_BYTES`. */
function transactions(round: Page[]): Page[][] {
  const groups: Page[][] = [];
  let bytes = 0;
  for (const page of round) {
    const size = page.events.reduce((sum, e) => sum + e.body.length, 0);
    const last = groups[groups.length - 1];
    if (!last || last.length === ACCOUNTS_PER_TRANSACTION || bytes + size > TRANSACTION_BYTES) {
      groups.push([page]);
      bytes = size;
    } else {
      last.push(page);
      bytes += size;
    }
  }
  return groups;
}

/** One account's page: its events numbered after the account's last known number. */
interface Page {
  accountId: string;
  part: number;
  events: NewEvent[];
}

/**
 * One transaction: per page, the account's numbers after its last known one, the record of the ids
 * and the page. Answers null when written, else the accounts to read again (none: only try again).
 */
async function writePages(changeId: string, group: Page[], at: Date): Promise<string[] | null> {
  const createdAtMs = at.getTime();
  const ttl = ttlOf(createdAtMs);
  const lasts = group.map(({ accountId }) => lastKnown.get(accountId) ?? 0);
  try {
    await sendTransaction(
      group.flatMap(({ accountId, part, events }, i) => {
        const last = lasts[i]!;
        return [
          {
            Update: {
              TableName: tableName(),
              Key: keys.eventSequence(accountId),
              UpdateExpression: 'SET #last = :next, entity = :entity, lastAtMs = :at',
              ConditionExpression: last === 0 ? 'attribute_not_exists(#last)' : '#last = :last',
              ExpressionAttributeNames: { '#last': 'last' },
              ExpressionAttributeValues: {
                ':next': last + events.length,
                ':entity': 'EventSequence',
                ':at': createdAtMs,
                ...(last === 0 ? {} : { ':last': last }),
              },
            },
          },
          {
            Put: {
              TableName: tableName(),
              // About 25 bytes an id: a page's make an item of under 3 KB.
              Item: {
                ...keys.eventBlock(accountId, changeId, part),
                entity: 'EventBlock',
                ids: events.map((e) => e.id).join(' '),
                ttl,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...keys.event(accountId, last + events.length),
                entity: 'EventPage',
                first: last + 1,
                createdAtMs,
                // The events' JSON texts in number order, as they are sent.
                bodies: events.map((e) => e.body),
                ids: events.map((e) => e.id),
                ttl,
              },
            },
          },
        ];
      }),
    );
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    // Another batch took an account's numbers meanwhile, or this page was written by an earlier run:
    // those accounts are read again. Any other refusal (a conflict): only tried again.
    return group
      .filter((_, i) => [reasons[3 * i], reasons[3 * i + 1]].includes('ConditionalCheckFailed'))
      .map((page) => page.accountId);
  }
  group.forEach(({ accountId, events }, i) => lastKnown.set(accountId, lasts[i]! + events.length));
  return null;
}

/** The events in pages of at most `EVENTS_PER_PAGE` and `PAGE_BYTES`. */
function pages(events: NewEvent[]): NewEvent[][] {
  const parts: NewEvent[][] = [];
  let bytes = 0;
  for (const event of events) {
    const last = parts[parts.length - 1];
    if (!last || last.length === EVENTS_PER_PAGE || bytes + event.body.length > PAGE_BYTES) {
      parts.push([event]);
      bytes = event.body.length;
    } else {
      last.push(event);
      bytes += event.body.length;
    }
  }
  return parts;
}

/** The ids an import batch already wrote for the account, and into how many parts. */
async function writtenBy(accountId: string, changeId: string): Promise<{ ids: Set<string>; parts: number }> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :change)',
    ExpressionAttributeValues: { ':pk': keys.eventLog(accountId), ':change': eventBlocksOf(changeId) },
    ProjectionExpression: 'ids',
    ConsistentRead: true,
  });
  const ids = new Set(items.flatMap((i) => String(i['ids'] ?? '').split(' ')).filter((id) => id !== ''));
  return { ids, parts: items.length };
}

async function readLast(accountId: string): Promise<void> {
  lastKnown.set(accountId, (await readSequence(accountId)).last);
}

export interface EventsRead {
  events: StoredEvent[];
  /** The number the page read up to: where the next page starts. */
  readTo: number;
  /** Whether the page read every event there was (nothing more to read now). */
  complete: boolean;
}

/** Up to `limit` events of the account after number `after`, oldest first (see the module comment). */
export async function readEvents(
  accountId: string,
  after: number,
  limit: number,
  nowMs: number,
): Promise<EventsRead> {
  const { last, lastAtMs } = await readSequence(accountId);
  if (last <= after) return { events: [], readTo: after, complete: true };
  const recent = (ms: number) => ms > nowMs - LANDING_MS;
  const events: StoredEvent[] = [];
  let readTo = after;
  let stopped = false;
  /** Takes the pages read so far into `events`; true once the feed's page is full or must stop. */
  const take = (items: Record<string, unknown>[]): boolean => {
    for (const item of items.splice(0)) {
      // An event written one to an item, before pages (kept 30 days): a page of one.
      const single = typeof item['body'] === 'string';
      const first = single ? Number(item['sk']) : Number(item['first']);
      const createdAtMs = Number(item['createdAtMs']);
      // Numbers missing before a page written a moment ago are being written: stop before them.
      if (first > readTo + 1 && recent(createdAtMs)) return (stopped = true);
      const bodies = single ? [String(item['body'])] : (item['bodies'] as string[]);
      const ids = single ? [String(item['id'])] : (item['ids'] as string[]);
      const live = Number(item['ttl']) > nowMs / 1000;
      for (let i = Math.max(0, readTo + 1 - first); i < bodies.length; i++) {
        // Expired events DynamoDB has not removed yet are not served (its TTL deletes within days).
        if (live) events.push({ sequence: first + i, id: ids[i]!, createdAtMs, body: bodies[i]! });
        readTo = first + i;
        if (events.length === limit) return (stopped = true);
      }
    }
    return false;
  };
  // A page is keyed by its last number: the first page at or after `after + 1` holds it.
  const rest = await queryAll(
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.events(accountId),
        ':from': eventSequenceKey(after + 1),
        ':to': eventSequenceKey(last),
      },
      ConsistentRead: true,
      Limit: 10,
    },
    { until: take },
  );
  if (!stopped) take(rest);
  if (stopped) return { events, readTo, complete: false };
  // Numbers missing at the end: being written if the last number moved a moment ago, else long gone.
  if (readTo < last && recent(lastAtMs)) return { events, readTo, complete: false };
  return { events, readTo: last, complete: true };
}

/** The number handed out last in the account's feed (0 before its first event). */
export async function lastEventNumber(accountId: string): Promise<number> {
  return (await readSequence(accountId)).last;
}

async function readSequence(accountId: string): Promise<{ last: number; lastAtMs: number }> {
  const sequence = await getItem(tableName(), keys.eventSequence(accountId), { consistent: true });
  return { last: Number(sequence?.['last'] ?? 0), lastAtMs: Number(sequence?.['lastAtMs'] ?? 0) };
}
