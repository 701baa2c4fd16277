/**
 * The events feed (contract §12): `GET /v1/events?after&limit` → the account's events oldest first,
 * strictly after the cursor, and the cursor to read on from. Reading from it later returns exactly the
 * events derived since, none skipped and none repeated, also while an import writes (the store stops
 * before blocks still being written: lib/events/store.ts).
 */
import { CursorExpired, InvalidInput } from '../errors';
import { RawJson, toRawJson } from '../http/raw-json';
import type { Caller } from '../tokens/caller';
import {
  decodeCursor,
  encodeCursor,
  EVENT_RETENTION_MS,
  type CompanyUpdateEvent,
  type Cursor,
} from './event';
import { PENDING_HORIZON_MS, readEvents } from './store';

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
  // No event after the cursor is older than `sinceMs`: past the retention, some may be gone unread.
  if (from && from.sinceMs < nowMs - EVENT_RETENTION_MS) throw new CursorExpired();
  const after = from?.sequence ?? 0;
  const { events, readTo, complete } = await readEvents(caller.accountId, after, query.limit, nowMs);
  // Read to the end: what comes next is derived from now on (or in a block written right now). Else the
  // next event is no older than the last one read.
  const next: Cursor = complete
    ? { sequence: readTo, sinceMs: nowMs - PENDING_HORIZON_MS }
    : { sequence: readTo, sinceMs: events[events.length - 1]!.createdAtMs };
  return toRawJson<EventsPage>({
    data: events.map((e) => new RawJson<CompanyUpdateEvent>(e.body)),
    next: encodeCursor(caller.accountId, next),
  });
}
