/**
 * What the import keeps right when companies' numbers of contacts change: the lists a company is in,
 * the notes of changed contacts, the numbers now, and the lists' contact counts.
 *
 * A list's changed counts go into its own item, not its members: `cc` (a map companyKey → number,
 * model.ts) takes the new numbers and `nContacts` moves by their difference in one UpdateItem per
 * list, whatever the number of its companies, conditional on the list's revision as read. Every
 * write of members bumps the revision, so the update holds only if no member of the list changed
 * since it was read: then the states and counts it computed from are still the list's. The numbers
 * are absolute, so applying the same notes again (a resumed import) finds nothing to change. A list
 * with a smart list's flips in flight (flip-intents.ts) is read again once they landed.
 *
 * Two cases write the members instead, as a smart list's flips do (flip-intents.ts: one claim of the
 * list item, the members and order items put again in batches, a release): a member that holds 0 contacts (the contacts page's Query skips order items holding
 * 0, so a count there must be the order item's own), and a list whose map would grow past
 * MAP_LIMIT entries (it is folded back into its members, keeping the list item small for the
 * overview and every page).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { companyKey, type CompanyRef } from '../../companies/identifiers';
import { forEachLimited } from '../../concurrency';
import { AGAIN, batchGet, projection, queryAll, queryPartitions, retrying } from '../../storage/batch';
import { cancellationReasons, dynamodb, isConditionFailed, send, tableName } from '../../storage/client';
import * as keys from '../../storage/keys';
import { companyOfKey, CONTACTS_CHANGED_SHARDS, filterProfileOfKey, listOfKey } from '../../storage/keys';
import {
  companiesOf,
  CONFLICT_RETRIES,
  CONTACT_COUNTS,
  contactCountsOf,
  COUNTER,
  GSI1,
  MEMBER_ATTRIBUTES,
  REVISION,
  revisionCondition,
  toMember,
  type Item,
  type Member,
} from './model';
import {
  claimIntent,
  completeIntents,
  INTENT,
  intentOf,
  newIntent,
  settleExpired,
  type ClaimChanges,
  type Intent,
  type ListIntent,
} from './flip-intents';

export interface Membership {
  accountId: string;
  listId: number;
}

/** Every list the company is in, across accounts (the import's derivation; never on a request path). */
export async function getMemberships(ref: CompanyRef): Promise<Membership[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: GSI1.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': GSI1.partitionKey, '#member': 'pk' },
    ExpressionAttributeValues: { ':pk': keys.listedCompany(ref) },
    ProjectionExpression: '#member',
  });
  return items.map((item) => listOfKey(item['pk'] as string));
}

/** A listed company whose number of contacts is now `contacts`. */
export interface ContactCount {
  ref: CompanyRef;
  contacts: number;
}

/** A list's item and some of its members, read to be written (see `readListCounts`). */
export interface ListCounts {
  accountId: string;
  listId: number;
  revision: number;
  contactCounts: Record<string, number>;
  /** A SMART list still being created: its counters are set when it appears, so it is left alone. */
  pending: boolean;
  /** Flips in flight on the list (flip-intents.ts): its members and counters wait for them. */
  intent: Intent | null;
  members: Member[];
  /** Its companies, every state (the sum of its counters). */
  companies: number;
  /** While an evaluation of a smart list runs: the companies it holds at least (smart-holds.ts). */
  held: number | null;
  /** A smart list's filters as its item stores them (JSON); null on a static list. */
  filters: string | null;
}

/**
 * A list's member partition is read whole (one consistent Query, members only) instead of key by key
 * when it holds at most this many times the members wanted: a key costs DynamoDB a read unit (up to
 * 4 KB, consistent), a Query one per 4 KB of members (about 50 of 80 bytes), and a key costs more
 * CPU than an item queried (docs/benchmarks.md, "Why the code is shaped this way"). Only the
 * import's completion asks for it (`partitions`); a request reads its few companies by key.
 */
const PARTITION_READ_FACTOR = 8;

/**
 * Lists and some of their members (strongly consistent), the list items first and the members after
 * them: a member written after its list item was read bumped the revision read, so it cannot go
 * unnoticed. Members are read by key (BatchGetItem, 100 keys a request across lists) or, with
 * `partitions` and where it is cheaper (PARTITION_READ_FACTOR), by a Query of the list's members. A
 * list gone is absent from the answer.
 */
export async function readListCounts(
  lists: { accountId: string; listId: number; refs: CompanyRef[] }[],
  { partitions = false }: { partitions?: boolean } = {},
): Promise<ListCounts[]> {
  const listItems = await batchGet(
    tableName(),
    lists.map((l) => keys.list(l.accountId, l.listId)),
    {
      projection: [
        'pk',
        'sk',
        CONTACT_COUNTS,
        REVISION,
        'pending',
        INTENT,
        'held',
        'filters',
        ...Object.values(COUNTER),
      ],
      consistent: true,
    },
  );
  const byKey = new Map(listItems.map((item) => [`${item['pk'] as string}|${item['sk'] as string}`, item]));
  const found = lists.flatMap((l) => {
    const key = keys.list(l.accountId, l.listId);
    const item = byKey.get(`${key.pk}|${key.sk}`);
    if (!item) return [];
    const size = companiesOf(item);
    return [{ ...l, item, whole: partitions && size <= PARTITION_READ_FACTOR * l.refs.length }];
  });
  const membersOf = new Map<string, Item[]>();
  const add = (pk: string, items: Item[]) => membersOf.set(pk, [...(membersOf.get(pk) ?? []), ...items]);
  const byRef = found.filter((l) => !l.whole);
  const [memberItems] = await Promise.all([
    batchGet(
      tableName(),
      byRef.flatMap((l) => l.refs.map((ref) => keys.listMember(l.accountId, l.listId, ref))),
      { projection: ['pk', ...MEMBER_ATTRIBUTES], consistent: true },
    ),
    forEachLimited(
      found.filter((l) => l.whole),
      PARTITIONS_IN_FLIGHT,
      async ({ accountId, listId, refs }) => {
        const [pk] = keys.listPartitions(accountId, listId, []);
        const wanted = new Set(refs.map(companyKey));
        const items = await queryAll({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
          ...projection(['pk', ...MEMBER_ATTRIBUTES]),
        });
        add(
          pk!,
          items.filter((item) => wanted.has((item['sk'] as string).slice('COMPANY#'.length))),
        );
      },
    ),
  ]);
  for (const item of memberItems) add(item['pk'] as string, [item]);
  return found.map(({ accountId, listId, item }) => {
    const contactCounts = contactCountsOf(item);
    const [pk] = keys.listPartitions(accountId, listId, []);
    return {
      accountId,
      listId,
      revision: Number(item[REVISION] ?? 0),
      contactCounts,
      pending: item['pending'] === true,
      intent: intentOf(item),
      members: (membersOf.get(pk!) ?? []).map((member) => toMember(member, contactCounts)),
      companies: companiesOf(item),
      held: item['held'] === undefined ? null : Number(item['held']),
      filters: typeof item['filters'] === 'string' ? item['filters'] : null,
    };
  });
}

/** Member partitions queried at once. */
const PARTITIONS_IN_FLIGHT = 8;

/** A list's `cc` map past this many entries is folded into its members (about 20 bytes an entry). */
export const MAP_LIMIT = 500;

interface CountChange {
  member: Member;
  to: number;
}

/**
 * Brings the list's members among `counts` to their numbers of contacts now (the import's
 * completion, per list; see the module comment), from `read` when the caller read the list already.
 * Anything that changed the list meanwhile makes it read again and start over; a list gone or still
 * pending is left alone. Returns how many members now count a new number.
 */
export async function updateContactCounts(
  accountId: string,
  listId: number,
  counts: ContactCount[],
  read?: ListCounts,
): Promise<number> {
  const wanted = new Map(counts.map((c) => [companyKey(c.ref), c.contacts]));
  const refs = counts.map((c) => c.ref);
  let updated = 0;
  let known = read;
  await retrying(async () => {
    const list = known ?? (await readListCounts([{ accountId, listId, refs }]))[0];
    known = undefined;
    if (!list || list.pending) return true;
    if (list.intent) {
      // Flips in flight: the members read may be about to change. Past its lease, finish it first.
      await settleExpired(accountId, listId, list.intent);
      return AGAIN;
    }
    const changes = list.members.flatMap((member) => {
      const to = wanted.get(companyKey(member.ref));
      return to === undefined || to === member.contacts ? [] : [{ member, to }];
    });
    if (changes.length === 0) return true;
    const added = changes.filter((c) => !c.member.mapped).length;
    let folds: CountChange[];
    let entries: CountChange[];
    if (Object.keys(list.contactCounts).length + added > MAP_LIMIT) {
      // Every entry goes back into its member: those changing now, and the others as they are.
      const others = Object.keys(list.contactCounts)
        .filter((key) => !wanted.has(key))
        .map((key) => companyOfKey(`COMPANY#${key}`));
      const [again] = await readListCounts([{ accountId, listId, refs: others }]);
      if (!again || again.revision !== list.revision || again.intent) return AGAIN;
      folds = [...changes, ...again.members.map((member) => ({ member, to: member.contacts }))];
      entries = [];
    } else {
      folds = changes.filter((c) => !c.member.mapped && c.member.storedContacts === 0);
      entries = changes.filter((c) => !folds.includes(c));
    }
    let { revision } = list;
    try {
      if (entries.length > 0) {
        await send(() => dynamodb().send(new UpdateCommand(entriesUpdate(list, revision, entries))));
        revision++;
        updated += entries.length;
      }
      if (folds.length > 0) {
        // After the entries (those of members that are not folded): the map read holds for the folds.
        const fold = foldIntent(list, folds);
        if (!(await claimIntent(fold, revision, foldChanges(list, folds)))) return AGAIN;
        await completeIntents([fold]);
        updated += folds.filter((c) => c.to !== c.member.contacts).length;
      }
      return true;
    } catch (error) {
      // Changed meanwhile (the revision moved, a member changed, another transaction held an item).
      if (isConditionFailed(error) || cancellationReasons(error)) return AGAIN;
      throw error;
    }
  }, CONFLICT_RETRIES);
  return updated;
}

/** `nContacts` moves by the new counts of members that are not ARCHIVED. */
const contactDelta = (changes: CountChange[]) =>
  changes.reduce((n, { member, to }) => n + (member.state === 'ARCHIVED' ? 0 : to - member.contacts), 0);

/**
 * One update of the list item: the `cc` map read, with the new counts, written back whole (the
 * revision proves it unchanged since; a map value costs no expression length, so one update takes
 * any number of companies), `nContacts` moved, the revision bumped.
 */
function entriesUpdate(list: ListCounts, revision: number, changes: CountChange[]) {
  const { condition, values } = revisionCondition(revision);
  const counts = { ...list.contactCounts };
  for (const { member, to } of changes) counts[companyKey(member.ref)] = to;
  return {
    TableName: tableName(),
    Key: keys.list(list.accountId, list.listId),
    UpdateExpression: `SET ${CONTACT_COUNTS} = :cc ADD nContacts :delta, ${REVISION} :one`,
    ConditionExpression: condition,
    ExpressionAttributeValues: { ...values, ':cc': counts, ':delta': contactDelta(changes), ':one': 1 },
  };
}

/**
 * Counts written into members (flip-intents.ts): each member and its order item written again with
 * the new number, in batches, after one claim of the list item that moves `nContacts`, takes the
 * members' `cc` entries out and bumps the revision, conditional on the revision read.
 */
function foldIntent(list: ListCounts, changes: CountChange[]): ListIntent {
  const rewrites = changes.map(({ member, to }) => ({
    ref: member.ref,
    state: member.state,
    matchedSinceMs: member.matchedSinceMs,
    contacts: to,
  }));
  return { accountId: list.accountId, listId: list.listId, intent: newIntent(0, [], [], rewrites) };
}

function foldChanges(list: ListCounts, changes: CountChange[]): ClaimChanges {
  const folded = new Set(changes.filter((c) => c.member.mapped).map((c) => companyKey(c.member.ref)));
  return {
    contacts: contactDelta(changes),
    contactCounts:
      folded.size > 0
        ? Object.fromEntries(Object.entries(list.contactCounts).filter(([key]) => !folded.has(key)))
        : null,
  };
}

// ---- Contact changes the import noted, for its completion ----------------------------------------

/** The note that a company's number of contacts changed (one per change; the import's derivation). */
export function contactsChangedItem(ref: CompanyRef, change: string): Item {
  return { ...keys.contactsChanged(ref, change), entity: 'ContactsChanged' };
}

export interface ContactsChanged {
  key: { pk: string; sk: string };
  ref: CompanyRef;
}

/** Every company noted as having changed its number of contacts: one Query per shard, in parallel. */
export async function getContactsChanged(): Promise<ContactsChanged[]> {
  const items = await queryPartitions(
    Array.from({ length: CONTACTS_CHANGED_SHARDS }, (_, shard) => keys.contactsChangedShard(shard)),
    { ProjectionExpression: 'pk, sk' },
  );
  return items.map((item) => ({
    key: { pk: item['pk'] as string, sk: item['sk'] as string },
    ref: companyOfKey(item['sk'] as string),
  }));
}

/** The companies' numbers of contacts now, as their filter profiles hold them (absent: unknown). */
export async function getContactNumbers(refs: CompanyRef[]): Promise<Map<string, number>> {
  const items = await batchGet(tableName(), refs.map(keys.filterProfile), {
    projection: ['pk', 'sk', 'c'],
    consistent: true,
  });
  return new Map(
    items.map((item) => [
      companyKey(filterProfileOfKey({ pk: item['pk'] as string, sk: item['sk'] as string })),
      Number(item['c'] ?? 0),
    ]),
  );
}
