/**
 * A smart list's flips in flight: how the import (and a filter change) writes many companies entering
 * or leaving a list with plain BatchWriteItem requests and still keeps the list's counters exact.
 *
 * BatchWriteItem has no conditions, so the members' writes cannot prove by themselves that nothing
 * changed them meanwhile. The list item does it instead, in three steps:
 *
 * 1. Claim: one UpdateItem of the list item moves its counters for every flip at once and stores the
 *    flips themselves (`fx`, the intent: which companies enter with which count, which NEW ones leave),
 *    conditional on the revision read with the members (nothing wrote a member or a count since) and
 *    on no other intent. From here the counters say what the members will say.
 * 2. Write: the members and order items, put or deleted, 25 per BatchWriteItem across lists, leftovers
 *    retried. Every write is a whole item with the intent's values: writing it twice changes nothing.
 * 3. Release: one UpdateItem removes the intent and bumps the revision, conditional on it being this
 *    intent.
 *
 * While an intent is on a list, every other writer of its members or counters waits: a state move, a
 * NEW member taken out, a contact count (their list condition asks for no intent, or for the revision
 * the claim and the release both bump). So nobody moves a company the intent is deleting, and the
 * intent's writes, repeated, overwrite nothing but themselves.
 *
 * A crash between claim and release leaves the intent on the list: it holds everything needed to
 * finish, and a lease (`until`). Past it, whoever meets the intent (the next import's completion, a
 * user's move, a contact count) takes it over with a conditional renewal of the lease, writes it
 * again and releases it. A writer sends member writes only within WRITE_WINDOW_MS of its claim or
 * renewal (renewing when it runs over), so no write of a crashed or stalled writer can land after
 * another took over: the rest of the lease is the margin for a request in flight and for clocks that
 * disagree.
 *
 * A page read between claim and release may show the members as they were with the totals moved (a
 * few milliseconds, or a lease after a crash). A list deleted meanwhile: the release finds no list,
 * and the writer deletes what it put (the clean-up worker may have run before its puts).
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { companyKey, type CompanyRef } from '../../companies/identifiers';
import {
  BATCH_WRITE_LIMIT,
  batchDelete,
  batchWrite,
  chunk,
  getItem,
  type WriteRequest,
} from '../../storage/batch';
import { conditionHeld, dynamodb, tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { companyOfKey } from '../../storage/keys';
import { forEachLimited } from '../../concurrency';
import {
  CONTACT_COUNTS,
  COUNTER,
  memberItem,
  orderItem,
  REVISION,
  revisionCondition,
  type Item,
  type MemberState,
  type NewMember,
} from './model';

/** The list item's attribute holding the intent. */
export const INTENT = 'fx';
/** How long an intent is its claimer's alone: past it, anyone may take it over. */
export const LEASE_MS = 30_000;
/** A writer sends member writes only this long after its claim or renewal. */
const WRITE_WINDOW_MS = 10_000;
/** Member writes sent between two checks of the window: 8 requests of 25 at once. */
const WRITES_PER_STEP = 200;
/** List items claimed or released at once. */
const LISTS_IN_FLIGHT = 16;

/**
 * Companies entering as NEW, NEW ones leaving, and members written again with a new number of
 * contacts (contact-counts.ts, folding counts back into members), as a claim stored them.
 */
export interface Intent {
  token: string;
  /** Lease end (ms). */
  until: number;
  /** matchedSince of the companies entering (ms). */
  since: number;
  entering: NewMember[];
  leaving: { ref: CompanyRef; matchedSinceMs: number }[];
  rewrites: Rewrite[];
}

/** A member written again as it is, with `contacts`. */
export interface Rewrite {
  ref: CompanyRef;
  state: MemberState;
  matchedSinceMs: number;
  contacts: number;
}

/** An intent on one list. */
export interface ListIntent {
  accountId: string;
  listId: number;
  intent: Intent;
}

/** The list item's intent, if it holds one (read with the `INTENT` attribute). */
export function intentOf(item: Item | undefined): Intent | null {
  const stored = item?.[INTENT] as { t: string; u: number; w: string } | undefined;
  if (!stored) return null;
  const { s, e, l, r } = JSON.parse(stored.w) as {
    s: number;
    e: [string, number][];
    l: [string, number][];
    r?: [string, MemberState, number, number][];
  };
  return {
    token: stored.t,
    until: Number(stored.u),
    since: s,
    entering: e.map(([key, contacts]) => ({ ref: companyOfKey(`COMPANY#${key}`), contacts })),
    leaving: l.map(([key, matchedSinceMs]) => ({ ref: companyOfKey(`COMPANY#${key}`), matchedSinceMs })),
    rewrites: (r ?? []).map(([key, state, matchedSinceMs, contacts]) => ({
      ref: companyOfKey(`COMPANY#${key}`),
      state,
      matchedSinceMs,
      contacts,
    })),
  };
}

/** A new intent of the claimer, its lease starting now. */
export function newIntent(
  since: number,
  entering: NewMember[],
  leaving: Intent['leaving'],
  rewrites: Rewrite[] = [],
): Intent {
  return { token: randomUUID(), until: Date.now() + LEASE_MS, since, entering, leaving, rewrites };
}

/** The intent as the list item stores it: token and lease apart (conditions read them), flips packed. */
export function storedIntent(intent: Intent): Item {
  return {
    t: intent.token,
    u: intent.until,
    w: JSON.stringify({
      s: intent.since,
      e: intent.entering.map((m) => [companyKey(m.ref), m.contacts]),
      l: intent.leaving.map((m) => [companyKey(m.ref), m.matchedSinceMs]),
      ...(intent.rewrites.length > 0
        ? { r: intent.rewrites.map((m) => [companyKey(m.ref), m.state, m.matchedSinceMs, m.contacts]) }
        : {}),
    }),
  };
}

/** The list item's condition that no intent is on it: every other writer of members or counters asks it. */
export const NO_INTENT = `attribute_not_exists(${INTENT})`;

/** What a claim changes on the list item besides storing the intent. */
export interface ClaimChanges {
  /** Companies per state, moved by these. */
  counters?: Partial<Record<MemberState, number>>;
  /** `nContacts` moves by this. */
  contacts: number;
  /** The `cc` map to write back whole (the revision proves it unchanged since it was read); null: as it is. */
  contactCounts: Record<string, number> | null;
  /** `updatedAt`, when the list's companies change. */
  now?: Date;
  /** Only while the list's filters are these (JSON, as its item stores them). */
  filters?: string;
  /** The list's hold while an evaluation runs (smart-holds.ts), set by the claim. */
  held?: number;
}

/**
 * Step 1: the list item's counters move by every flip of the intent and the intent is stored,
 * conditional on the revision read (so the members read are the list's now) and on no other intent.
 * False when the condition failed (the list changed, or is gone).
 */
export function claimIntent(owner: ListIntent, revision: number, changes: ClaimChanges): Promise<boolean> {
  return conditionHolds(claimUpdate(owner, revision, changes));
}

/**
 * The UpdateItem of a claim (`claimIntent`), for a caller that sends it in a transaction with the
 * account's count of smart-list companies (smart-flips.ts). With `filters`, it holds only while the
 * list's filters are still those (an evaluation of older filters writes nothing); with `held`, the
 * list's hold is set to it (smart-holds.ts).
 */
export function claimUpdate(
  { accountId, listId, intent }: ListIntent,
  revision: number,
  { counters = {}, contacts, contactCounts, now, filters, held }: ClaimChanges,
) {
  const { condition, values } = revisionCondition(revision);
  const moved = Object.entries(counters).filter(([, n]) => n !== 0);
  const sets = [
    `${INTENT} = :intent`,
    ...(now ? ['updatedAt = :now'] : []),
    ...(contactCounts ? [`${CONTACT_COUNTS} = :cc`] : []),
    ...(held === undefined ? [] : ['held = :held']),
  ];
  const adds = [
    ...moved.map(([state], i) => `${COUNTER[state as MemberState]} :n${i}`),
    'nContacts :c',
    `${REVISION} :one`,
  ];
  return {
    TableName: tableName(),
    Key: keys.list(accountId, listId),
    UpdateExpression: `SET ${sets.join(', ')} ADD ${adds.join(', ')}`,
    ConditionExpression: `${condition} AND ${NO_INTENT}${filters === undefined ? '' : ' AND filters = :filters'}`,
    ExpressionAttributeValues: {
      ...values,
      ':intent': storedIntent(intent),
      ':c': contacts,
      ':one': 1,
      ...Object.fromEntries(moved.map(([, n], i) => [`:n${i}`, n])),
      ...(now ? { ':now': now.toISOString() } : {}),
      ...(contactCounts ? { ':cc': contactCounts } : {}),
      ...(filters === undefined ? {} : { ':filters': filters }),
      ...(held === undefined ? {} : { ':held': held }),
    },
  };
}

/**
 * Writes the intents' members and order items (step 2), then releases each (step 3). Returns the
 * intents whose flips stand: released, or taken over by another writer who finishes them. A list
 * deleted meanwhile gets its puts deleted again and is left out.
 */
export async function completeIntents(intents: ListIntent[]): Promise<ListIntent[]> {
  const owned = await writeIntents(intents);
  const standing = intents.filter((i) => !owned.includes(i));
  await forEachLimited(owned, LISTS_IN_FLIGHT, async (intent) => {
    if (await release(intent)) standing.push(intent);
  });
  return standing;
}

/**
 * Every intent's writes, across lists, WRITES_PER_STEP at a time; before each step an intent whose
 * window is over is renewed. Returns the intents still owned (a renewal that fails means another
 * writer took the intent over: this one stops writing it).
 */
async function writeIntents(intents: ListIntent[]): Promise<ListIntent[]> {
  const owned = new Set(intents);
  const writes = intents.flatMap((owner) => intentWrites(owner).map((write) => ({ owner, write })));
  for (const step of chunk(writes, WRITES_PER_STEP)) {
    for (const owner of new Set(step.map((w) => w.owner))) {
      if (owned.has(owner) && Date.now() > windowEnd(owner.intent) && !(await renew(owner)))
        owned.delete(owner);
    }
    await batchWrite(
      tableName(),
      step.filter((w) => owned.has(w.owner)).map((w) => w.write),
      WRITES_PER_STEP / BATCH_WRITE_LIMIT,
    );
  }
  return intents.filter((i) => owned.has(i));
}

const windowEnd = (intent: Intent) => intent.until - LEASE_MS + WRITE_WINDOW_MS;

/** The member and order item of each company entering (put) and leaving (deleted). */
function intentWrites({ accountId, listId, intent }: ListIntent): WriteRequest[] {
  const since = new Date(intent.since).toISOString();
  return [
    ...intent.entering.flatMap(({ ref, contacts }) => [
      { PutRequest: { Item: memberItem(accountId, listId, ref, 'NEW', since, contacts) } },
      { PutRequest: { Item: orderItem(accountId, listId, 'NEW', intent.since, ref, contacts) } },
    ]),
    ...intent.leaving.flatMap(({ ref, matchedSinceMs }) => [
      { DeleteRequest: { Key: keys.listMember(accountId, listId, ref) } },
      { DeleteRequest: { Key: keys.listOrder(accountId, listId, 'NEW', matchedSinceMs, ref) } },
    ]),
    ...intent.rewrites.flatMap(({ ref, state, matchedSinceMs, contacts }) => [
      {
        PutRequest: {
          Item: memberItem(accountId, listId, ref, state, new Date(matchedSinceMs).toISOString(), contacts),
        },
      },
      { PutRequest: { Item: orderItem(accountId, listId, state, matchedSinceMs, ref, contacts) } },
    ]),
  ];
}

/** The intent's lease extended from now, if it is still this writer's (token and lease as it holds them). */
async function renew(owner: ListIntent): Promise<boolean> {
  const until = Date.now() + LEASE_MS;
  const held = await conditionHolds({
    TableName: tableName(),
    Key: keys.list(owner.accountId, owner.listId),
    UpdateExpression: `SET ${INTENT}.u = :until`,
    ConditionExpression: `${INTENT}.t = :t AND ${INTENT}.u = :u`,
    ExpressionAttributeValues: { ':until': until, ':t': owner.intent.token, ':u': owner.intent.until },
  });
  if (held) owner.intent.until = until;
  return held;
}

/**
 * Step 3: the intent leaves the list item and the revision moves (readers of members before now
 * write nothing). False when the list is gone (its puts are deleted again) or another writer took
 * the intent over.
 */
async function release({ accountId, listId, intent }: ListIntent): Promise<boolean> {
  const released = await conditionHolds({
    TableName: tableName(),
    Key: keys.list(accountId, listId),
    UpdateExpression: `REMOVE ${INTENT} ADD ${REVISION} :one`,
    ConditionExpression: `${INTENT}.t = :t AND ${INTENT}.u = :u`,
    ExpressionAttributeValues: { ':one': 1, ':t': intent.token, ':u': intent.until },
  });
  if (released) return true;
  // Still there: another writer took the intent over after this one's lease, and finishes it.
  if (await getItem(tableName(), keys.list(accountId, listId), { projection: ['pk'], consistent: true }))
    return true;
  // Deleted meanwhile: the clean-up worker may have run before the puts landed.
  await batchDelete(tableName(), [
    ...intent.entering.flatMap(({ ref }) => [
      keys.listMember(accountId, listId, ref),
      keys.listOrder(accountId, listId, 'NEW', intent.since, ref),
    ]),
    ...intent.rewrites.flatMap(({ ref, state, matchedSinceMs }) => [
      keys.listMember(accountId, listId, ref),
      keys.listOrder(accountId, listId, state, matchedSinceMs, ref),
    ]),
  ]);
  return false;
}

/**
 * What a writer that met an intent on a list does before trying again: nothing while its lease runs
 * (its claimer is at work); past it, takes it over (a conditional renewal: of several writers that
 * met it, one wins), writes it and releases it.
 */
export async function settleExpired(accountId: string, listId: number, intent: Intent): Promise<void> {
  if (Date.now() <= intent.until) return;
  const owner = { accountId, listId, intent: { ...intent } };
  if (await renew(owner)) await completeIntents([owner]);
}

function conditionHolds(input: ConstructorParameters<typeof UpdateCommand>[0]): Promise<boolean> {
  return conditionHeld(() => dynamodb().send(new UpdateCommand(input)));
}
