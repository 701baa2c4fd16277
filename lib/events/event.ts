/**
 * What an event is (contract §12), as pure functions: its stable id, its body on the wire (the same
 * for the feed and for a webhook delivery), and the feed's opaque cursor.
 *
 * - **Id**: `evt_` and 24 hex digits of a SHA-256 of the account and the update's id. An update's id is
 *   stable (lib/updates/derive.ts), and there is one event per update per account, so deriving the
 *   same change again names the same event.
 * - **Body**: built once, when the event is derived, in the contract's key order, the update's title in
 *   English; stored as that JSON text and sent as it is.
 * - **Cursor**: a position in the account's feed (the number of the last event read) and a time no
 *   event after it is older than, with a check so that a cursor this endpoint did not give (or gave
 *   to another account) is refused rather than read from.
 */
import { createHash } from 'node:crypto';
import type { Identifier } from '../companies/schemas';
import type { Update } from '../updates/derive';
import { titleOf } from '../updates/titles';

export const EVENT_TYPES = ['company.update', 'webhook.test'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Events are kept this long (§12); a cursor older than that answers 410. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * How much earlier than a reader's clock an event written after it may say it was created: another
 * function's clock, and the moments between taking the time and the write landing (retries included).
 * A cursor counts on events no older than its time less this margin, so events are stored this much
 * longer than EVENT_RETENTION_MS: a cursor then lasts its full 30 days.
 */
export const CLOCK_MARGIN_MS = 15 * 60 * 1000;

/** The update record of §8 inside an event: its title in English, derived updates have no source. */
export interface EventUpdate {
  id: string;
  type: Update['type'];
  title: string;
  time: string;
  sourceUrl: null;
  sourceType: null;
  status: 'ACTIVE';
}

export interface CompanyUpdateEvent {
  id: string;
  type: 'company.update';
  createdAt: string;
  data: { company: Identifier; legalEntityId: string; lists: number[]; update: EventUpdate };
}

export interface TestEvent {
  id: string;
  type: 'webhook.test';
  createdAt: string;
  data: Record<string, never>;
}

export type Event = CompanyUpdateEvent | TestEvent;

/** The event of `update` for an account: the same id whenever the same update is derived again. */
export function eventId(accountId: string, updateId: string): string {
  return `evt_${createHash('sha256').update(`${accountId}#${updateId}`).digest('hex').slice(0, 24)}`;
}

/** What one account is told of one update: the body, keys in the contract's order. */
export function companyUpdateEvent(
  accountId: string,
  input: { company: Identifier; legalEntityId: string; lists: number[]; update: Update; createdAt: string },
): CompanyUpdateEvent {
  const { company, legalEntityId, update } = input;
  return {
    id: eventId(accountId, update.id),
    type: 'company.update',
    createdAt: input.createdAt,
    data: {
      company: {
        country: company.country,
        companyNumber: company.companyNumber,
        name: company.name,
        place: company.place,
      },
      legalEntityId,
      lists: [...input.lists].sort((a, b) => a - b),
      update: {
        id: update.id,
        type: update.type,
        title: titleOf(update, 'en'),
        time: update.time,
        sourceUrl: null,
        sourceType: null,
        status: 'ACTIVE',
      },
    },
  };
}

/** A position in an account's feed: after event `sequence`; no event after it is older than `sinceMs`. */
export interface Cursor {
  sequence: number;
  sinceMs: number;
}

/** `e1.<sequence>.<sinceMs>.<check>`, base64url: opaque to callers, checked when it comes back. */
export function encodeCursor(accountId: string, { sequence, sinceMs }: Cursor): string {
  const text = `e1.${sequence}.${sinceMs}`;
  return Buffer.from(`${text}.${cursorCheck(accountId, text)}`).toString('base64url');
}

/** The cursor, or null when it is not one this feed gave to this account. */
export function decodeCursor(accountId: string, cursor: string): Cursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const match = /^(e1\.(\d{1,16})\.(\d{1,15}))\.([0-9a-f]{16})$/.exec(
    Buffer.from(cursor, 'base64url').toString('latin1'),
  );
  if (!match || cursorCheck(accountId, match[1]!) !== match[4]) return null;
  return { sequence: Number(match[2]), sinceMs: Number(match[3]) };
}

/**
 * Not a secret (the cursor is not an authorisation: the account comes from the token), only a check
 * that the text is one this feed wrote for this account, so a mangled or borrowed cursor is a 400.
 */
function cursorCheck(accountId: string, text: string): string {
  return createHash('sha256').update(`${accountId}|${text}`).digest('hex').slice(0, 16);
}
