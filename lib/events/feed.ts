/**
 * The events feed (contract §12): `GET /v1/events?after&limit` → the account's events oldest first,
 * strictly after the cursor, and the cursor to read on from. Reading from it later returns exactly the
 * events written since, none skipped and none repeated, also while an import writes (an event is
 * numbered in the transaction that writes it: lib/events/store.ts).
 */
import { CursorExpired, InvalidInput } from '../errors';
import { RawJson, toRawJson } from '../http/raw-json';
import type { Caller } from '../tokens/caller';
import {
  CLOCK_MARGIN_MS,
  decodeCursor,
  encodeCursor,
  EVENT_RETENTION_MS,
  type CompanyUpdateEvent,
  type Cursor,
} from './event';
import { readEvents, type StoredEvent } from './store';
import { eventAsSeen, visibleListIds } from './visibility';

/** Reads of the feed one page may make when it passes over events the caller cannot see. */
const READS_PER_PAGE = 10;

export interface EventsPage {
  data: CompanyUpdateEvent[];
  next: string;
}

export async function getEvents(
  caller: Caller,
  query: { after?: string | undefined; limit: number },
  nowMs = Date.now(),
): Promise<RawJson<EventsPage>> {
  const from = query.after === undefined ? null : decodeCursor(caller.accountId, query.after);
  if (query.after !== undefined && from === null) {
    throw InvalidInput.field(
      'after is not a cursor of this feed',
      'after',
      'must be a cursor this endpoint gave',
    );
  }
  // No event after the cursor is older than `sinceMs` (its time less the margin); events are kept the
  // margin longer than the retention, so a cursor expires when it is 30 days old, not 15 minutes sooner.
  if (from && from.sinceMs + CLOCK_MARGIN_MS < nowMs - EVENT_RETENTION_MS) throw new CursorExpired();
  const visible = await visibleListIds(caller.accountId, caller.userEmail);
  // Events the caller cannot see are passed over: the page reads on until it holds `limit` events it
  // may see, or until READS_PER_PAGE reads (the cursor then stands after the last event read).
  const data: RawJson<CompanyUpdateEvent>[] = [];
  let after = from?.sequence ?? 0;
  let newest: StoredEvent | undefined;
  let complete = false;
  for (let reads = 0; !complete && data.length < query.limit && reads < READS_PER_PAGE; reads++) {
    const read = await readEvents(caller.accountId, after, query.limit - data.length, nowMs);
    for (const event of read.events) {
      const seen = eventAsSeen(event.body, visible);
      if (seen !== null) data.push(new RawJson<CompanyUpdateEvent>(seen));
    }
    newest = read.events[read.events.length - 1] ?? newest;
    after = read.readTo;
    complete = read.complete;
    if (read.events.length === 0) break;
  }
  // Read to the end: what comes next is written from now on. Else the next event is no older than the
  // last one read (less the margin: numbers and clocks of concurrent writers need not agree).
  const next: Cursor = {
    sequence: after,
    sinceMs: (complete || !newest ? nowMs : newest.createdAtMs) - CLOCK_MARGIN_MS,
  };
  return toRawJson<EventsPage>({ data, next: encodeCursor(caller.accountId, next) });
}
