/**
 * Events follow list visibility (contract §12, §7.1), judged when an event is read or sent, not when it
 * was derived: a reader sees in `lists` only the lists it can see now, and an event none of whose lists
 * it can see is not shown to it at all. The reader is the token's user for the feed, the endpoint's
 * creator for a webhook endpoint (null for an endpoint created before creators were recorded: it sees
 * shared lists only). A list deleted since the event was derived is seen by no one.
 */
import { getAccountLists } from '../lists/store/lists';
import { isListVisibleTo } from '../lists/visibility';

/** The ids of the account's lists the reader sees now (one Query of the account's lists). */
export async function visibleListIds(accountId: string, reader: string | null): Promise<Set<number>> {
  const lists = await getAccountLists(accountId);
  return new Set(lists.filter((list) => isListVisibleTo(list, accountId, reader)).map((list) => list.id));
}

/**
 * The event's JSON as a reader who sees `visible` is shown it: `lists` cut to those (the text unchanged
 * when it sees them all, keys in the same order otherwise), or null when it sees none of them. An event
 * that names no list (`webhook.test`) is shown as it is.
 */
export function eventAsSeen(body: string, visible: ReadonlySet<number>): string | null {
  const event = JSON.parse(body) as { data?: { lists?: unknown } };
  const lists = event.data?.lists;
  if (!Array.isArray(lists)) return body;
  const seen = (lists as number[]).filter((id) => visible.has(id));
  if (seen.length === lists.length) return body;
  if (seen.length === 0) return null;
  event.data!.lists = seen;
  return JSON.stringify(event);
}
