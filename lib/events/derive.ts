/**
 * The events derivation (contract §12), run by the import at its one derivation point for each batch
 * of changed companies, after the holdings (so every company's legal entity id is stored): the updates
 * each change derives (lib/updates/derive.ts, the same pure rules the update feed is written from),
 * and for each account whose notification-enabled static lists hold the company now, one event per
 * update, naming those lists.
 *
 * - **Only from now on**: events come from updates as they are derived; enabling notifications on a
 *   list replays nothing.
 * - **Never twice**: an event's id is its account's and its update's (lib/events/event.ts); a batch
 *   derived again (a resumed import) writes only the events it had not written yet, under new numbers
 *   (lib/events/store.ts).
 * - **Membership as of the derivation**: the watched lists and their companies are read for each
 *   batch, strongly consistent; a list's companies are read again only when the list's members moved
 *   (lib/events/watched.ts).
 * - **Cost**: per batch one Query of the watched lists (`WATCHED_LISTS`): when there are none, nothing
 *   more. Else one BatchGetItem of the watched lists' items, and one transaction for the events of up
 *   to 33 accounts (three items each: the account's number, the ids written, a page of events).
 * - **Delivered soon**: the batch's accounts are announced to the webhook fan-out (on AWS one SQS
 *   message per account, lib/webhooks/announce.ts), which queues their deliveries at once. The import
 *   wires that announcement in (`eventsDerivation`), so events import nothing of the webhooks.
 */
import { getRelationshipsOf } from '../companies/holdings-store';
import { companyKey, type CompanyRef } from '../companies/identifiers';
import type { BatchDerivation, CompanyChange } from '../derivation/change';
import { deriveUpdates, type Update } from '../updates/derive';
import { companyUpdateEvent } from './event';
import { writeBatchEvents, type NewEvent } from './store';
import { watchedLists, watchedListsOf } from './watched';

interface Watched {
  change: CompanyChange;
  updates: Update[];
  /** The account's notification-enabled static lists holding the company, by account. */
  lists: Map<string, number[]>;
}

export interface EventsDerived {
  /** Events written, per account. */
  events: Map<string, number>;
}

/**
 * Tells whoever delivers events that `accountIds` have new ones; `occasion` names the batch (its change
 * id). The import wires the webhook fan-out's announcement (lib/webhooks/announce.ts) here.
 */
export type AnnounceEvents = (accountIds: Iterable<string>, occasion: string) => Promise<void>;

/** The events derivation of a batch, announcing the accounts it wrote events of with `announce`. */
export function eventsDerivation(announce: AnnounceEvents): BatchDerivation {
  return async (changes) => {
    await deriveAndWriteEvents(changes, announce);
    // Events are no updates (§8): the import's count of updates stays the update feed's.
    return { updates: 0 };
  };
}

/** The derivation itself, answering what it wrote (the tests read it). */
export async function deriveAndWriteEvents(
  changes: CompanyChange[],
  announce: AnnounceEvents,
  now: () => Date = () => new Date(),
): Promise<EventsDerived> {
  const withUpdates = changes
    .map((change) => ({
      change,
      updates: deriveUpdates(change.before, change.after, change.asOf, change),
    }))
    .filter((c) => c.updates.length > 0);
  const watched = await watchedBy(withUpdates);
  if (watched.length === 0) return { events: new Map() };
  const legalEntityIds = await legalEntityIdsOf(watched.map((w) => w.change));

  // Each account's events, in a fixed order (company, then update id): numbers follow it.
  const byAccount = new Map<
    string,
    Array<{ ref: CompanyRef; update: Update; lists: number[]; w: Watched }>
  >();
  for (const w of watched) {
    for (const [accountId, lists] of w.lists) {
      const events = byAccount.get(accountId) ?? [];
      for (const update of w.updates) events.push({ ref: w.change.after, update, lists, w });
      byAccount.set(accountId, events);
    }
  }
  const changeId = changes[0]!.changeId;
  const createdAt = now().toISOString();
  const toWrite = new Map<string, NewEvent[]>();
  for (const [accountId, pending] of byAccount) {
    pending.sort(
      (a, b) =>
        compareText(companyKey(a.ref), companyKey(b.ref)) ||
        a.update.id.length - b.update.id.length ||
        compareText(a.update.id, b.update.id),
    );
    const events = pending.map(({ ref, update, lists, w }) => {
      const event = companyUpdateEvent(accountId, {
        company: {
          country: ref.country,
          companyNumber: ref.companyNumber,
          name: w.change.after.name,
          place: w.change.after.place,
        },
        legalEntityId: legalEntityIds.get(companyKey(ref))!,
        lists,
        update,
        createdAt,
      });
      return { id: event.id, body: JSON.stringify(event) };
    });
    toWrite.set(accountId, events);
  }
  const written = await writeBatchEvents(changeId, toWrite, now);
  // Every account of the batch, also one whose events a first try wrote (a resumed batch): the
  // announcement that try was to send may never have left. An announcement SQS kept refusing does not
  // fail the batch (its events are written): the fan-out's sweep finds them within a minute.
  await announce(toWrite.keys(), changeId).catch((error: unknown) => {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    console.warn(
      JSON.stringify({
        level: 'WARN',
        message: 'events not announced to the fan-out',
        error: { name, message },
      }),
    );
  });
  return { events: written };
}

/** The changes whose company is in a notification-enabled static list now, with those lists per account. */
async function watchedBy(changes: Array<{ change: CompanyChange; updates: Update[] }>): Promise<Watched[]> {
  if (changes.length === 0) return [];
  const { lists: notifying, backfilled } = await watchedLists();
  if (!backfilled) warnNotBackfilled();
  if (notifying.size === 0) return [];
  const memberships = await watchedListsOf(
    notifying,
    changes.map(({ change }) => change.after),
  );
  const watched: Watched[] = [];
  for (const { change, updates } of changes) {
    const lists = new Map<string, number[]>();
    for (const { accountId, listId } of memberships.get(companyKey(change.after)) ?? []) {
      lists.set(accountId, [...(lists.get(accountId) ?? []), listId]);
    }
    if (lists.size > 0) watched.push({ change, updates, lists });
  }
  return watched;
}

let warned = false;
/**
 * Lists whose notifications were enabled before the `WATCHED_LISTS` index existed are not in it until
 * the backfill runs (docs/operations.md): said once per process, in the import's log, until it has.
 */
function warnNotBackfilled(): void {
  if (warned) return;
  warned = true;
  console.warn(
    JSON.stringify({
      level: 'WARN',
      message:
        'the watched lists were never backfilled on this stage: run `npm run notifications -- backfill` (docs/operations.md)',
    }),
  );
}

/** Each change's legal entity id: the import's, else the one the holdings derivation stored just before. */
async function legalEntityIdsOf(changes: CompanyChange[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const missing: CompanyRef[] = [];
  for (const change of changes) {
    if (change.legalEntityId) ids.set(companyKey(change.after), change.legalEntityId);
    else missing.push(change.after);
  }
  if (missing.length > 0) {
    for (const [key, stored] of await getRelationshipsOf(missing)) ids.set(key, stored.legalEntityId);
  }
  return ids;
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
