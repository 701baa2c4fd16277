/**
 * The import's writes, in batches (DynamoDB Local, like DynamoDB, is far cheaper per item in a
 * BatchWriteItem than per request):
 *
 * 1. the change journal: the records as they were before this batch's changes (`CHANGE#<changeId>`,
 *    split into parts to stay under the item size limit);
 * 2. claims on the contact ids the changed companies did not have yet (100 ids to an item, so a batch
 *    of companies with neighbouring ids claims them in a few writes);
 * 3. the companies, each one whole item (atomic by itself) that names the change that wrote it;
 * 4. (the derivations run)
 * 5. the journal's removal. Contact claims are never released: a claim whose company no longer lists
 *    the contact is free (lib/import/contacts.ts).
 *
 * A run cut off anywhere leaves either companies untouched (their change id is an older one) or
 * companies whose change id names a journal that still exists: the next run that meets such a
 * company derives that change from the journal before anything else. A journal whose companies were
 * never written is never read again, and expires by itself.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { CompanyRef } from '../companies/identifiers';
import type { CompanyRecord } from '../companies/record';
import { companyItem, type CompanyState } from '../companies/store';
import { batchDelete, batchGet, batchPut, chunk, queryAll } from '../storage/batch';
import { roundsByItem } from '../storage/one-action-per-item';
import { sendTransaction } from '../storage/transactions';
import { cancellationReasons, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { companyOfKey, contactBucket, contactClaimAttribute } from '../storage/keys';

/** A journal part stays well under DynamoDB's 400 KB item limit. */
const MAX_PART_BYTES = 300 * 1024;
/** A journal nobody resumed (its companies were never written) is dropped after a week. */
const JOURNAL_TTL_SECONDS = 7 * 24 * 3600;

export interface JournalEntry {
  company: CompanyRef;
  /** The record before the change; null for a new company. */
  before: CompanyRecord | null;
  /** (ext) The change is a source's first write of the company (lib/derivation/change.ts). */
  firstBySource?: boolean;
  /** (ext) The company's address forms before the change (lib/derivation/change.ts). */
  addressFormsBefore?: string;
  /** (ext) The company was erased by this change (lib/import/erase.ts). */
  gone?: boolean;
}

export interface Journal {
  changeId: string;
  asOf: string;
  entries: JournalEntry[];
}

/** A journal as stored: its id and how many items (parts) it took. */
export interface StoredJournal {
  changeId: string;
  parts: number;
}

/** Writes a journal; what it returns is what `deleteJournal` needs. */
export async function putJournal(journal: Journal): Promise<StoredJournal> {
  const ttl = Math.floor(Date.now() / 1000) + JOURNAL_TTL_SECONDS;
  const parts: Buffer[][] = [[]];
  let bytes = 0;
  for (const entry of journal.entries) {
    const packed = gzipSync(JSON.stringify(entry));
    if (bytes + packed.length > MAX_PART_BYTES && parts[parts.length - 1]!.length > 0) {
      parts.push([]);
      bytes = 0;
    }
    parts[parts.length - 1]!.push(packed);
    bytes += packed.length;
  }
  await batchPut(
    tableName(),
    parts.map((entries, part) => ({
      ...keys.importChange(journal.changeId, part),
      entity: 'ImportChange',
      asOf: journal.asOf,
      entries,
      ttl,
    })),
  );
  return { changeId: journal.changeId, parts: parts.length };
}

/**
 * A run that ended with every batch derived says so in one item (`CHANGE#<run>` / `DONE`): none of its
 * journals is left, so a later run that meets companies it wrote need not look for their journals —
 * one read per earlier run instead of one per batch. A run cut off (or one written before the table
 * kept these marks) has none: its companies' journals are looked up one by one. Kept about a year;
 * without it the lookups are merely slower.
 */
const runDone = (runId: string) => ({ pk: keys.importChange(runId, 0).pk, sk: 'DONE' });
const RUN_DONE_TTL_SECONDS = 400 * 24 * 3600;

export async function markRunDone(runId: string): Promise<void> {
  const ttl = Math.floor(Date.now() / 1000) + RUN_DONE_TTL_SECONDS;
  await batchPut(tableName(), [{ ...runDone(runId), entity: 'ImportRunDone', ttl }]);
}

/** Which of these runs ended with every batch derived. */
export async function doneRuns(runIds: string[]): Promise<Set<string>> {
  const items = await batchGet(tableName(), runIds.map(runDone), { projection: ['pk'], consistent: true });
  return new Set(items.map((item) => (item['pk'] as string).slice('CHANGE#'.length)));
}

/** The run a change id belongs to (`<run>.<batch>`). */
export const runOf = (changeId: string): string => changeId.slice(0, changeId.lastIndexOf('.'));

/** The journals of these change ids that still exist (their derivations may not have run). */
export async function getJournals(changeIds: string[]): Promise<Array<Journal & StoredJournal>> {
  const firstParts = await batchGet(
    tableName(),
    changeIds.map((id) => keys.importChange(id, 0)),
    { projection: ['pk'], consistent: true },
  );
  return Promise.all(firstParts.map((item) => getJournal((item['pk'] as string).slice('CHANGE#'.length))));
}

async function getJournal(changeId: string): Promise<Journal & StoredJournal> {
  const parts = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.importChange(changeId, 0).pk },
    ConsistentRead: true,
  });
  const entries = parts.flatMap((part) =>
    (part['entries'] as Uint8Array[]).map(
      (packed) => JSON.parse(gunzipSync(packed).toString('utf8')) as JournalEntry,
    ),
  );
  return { changeId, parts: parts.length, asOf: (parts[0]?.['asOf'] as string | undefined) ?? '', entries };
}

export async function deleteJournal({ changeId, parts }: StoredJournal): Promise<void> {
  await batchDelete(
    tableName(),
    Array.from({ length: parts }, (_, part) => keys.importChange(changeId, part)),
  );
}

export async function putCompanies(
  changes: Array<{ record: CompanyRecord; state: CompanyState }>,
): Promise<void> {
  await batchPut(
    tableName(),
    changes.map(({ record, state }) => companyItem(record, state)),
  );
}

/** The company each of these contact ids belongs to, when it belongs to one. */
export async function getContactOwners(contactIds: number[]): Promise<Map<number, CompanyRef>> {
  const buckets = [...new Set(contactIds.map(contactBucket))];
  const items = await batchGet(tableName(), buckets.map(keys.contactClaims), { consistent: true });
  const byBucket = new Map(items.map((item) => [item['pk'] as string, item]));
  const owners = new Map<number, CompanyRef>();
  for (const id of contactIds) {
    const owner = byBucket.get(keys.contactClaims(contactBucket(id)).pk)?.[contactClaimAttribute(id)];
    if (typeof owner === 'string') owners.set(id, companyOfKey(`COMPANY#${owner}`));
  }
  return owners;
}

export interface ContactClaim {
  contactId: number;
  owner: CompanyRef;
  /** Who held it when it was read (a stale claim taken over); the write fails if that changed meanwhile. */
  seen: CompanyRef | null;
}

/** Thrown when a claim changed between reading and writing (another import): read again and retry. */
export class ClaimRaceError extends Error {
  override readonly name = 'ClaimRaceError';
}

/**
 * Writes claims: one conditional update per bucket and per 60 ids (to stay within expression limits),
 * a batch's in TransactWriteItems of up to 100 buckets, not one request per bucket. A bucket with more
 * than 60 new ids needs two updates, which one request cannot hold: they go in rounds, one after the
 * other. Safe, as each update sets other ids and keeps its own conditions; a round cancelled by a race
 * leaves the rounds before it written, and claims the import reads as its own (nothing to write again).
 */
export async function claimContacts(claims: ContactClaim[]): Promise<void> {
  const actions = groups(claims, (c) => c.contactId).map((group) => {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':entity': 'ContactClaims' };
    const sets: string[] = ['entity = :entity'];
    const conditions: string[] = [];
    group.forEach(({ contactId, owner, seen }, i) => {
      names[`#c${i}`] = contactClaimAttribute(contactId);
      values[`:o${i}`] = ownerText(owner);
      sets.push(`#c${i} = :o${i}`);
      if (seen) {
        values[`:s${i}`] = ownerText(seen);
        conditions.push(`#c${i} = :s${i}`);
      } else {
        conditions.push(`attribute_not_exists(#c${i})`);
      }
    });
    return {
      Update: {
        TableName: tableName(),
        Key: keys.contactClaims(contactBucket(group[0]!.contactId)),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    };
  });
  for (const round of roundsByItem(actions, (action) => action.Update.Key)) {
    await Promise.all(
      chunk(round, TRANSACT_LIMIT).map((TransactItems) =>
        sendTransaction(TransactItems).catch((error: unknown) => {
          // A claim changed since it was read (or another import's transaction was on its bucket).
          const reasons = cancellationReasons(error);
          if (reasons?.every((r) => RACES.has(r)))
            throw new ClaimRaceError('a contact claim changed meanwhile');
          throw error;
        }),
      ),
    );
  }
}

/** TransactWriteItems takes at most 100 actions. */
const TRANSACT_LIMIT = 100;
const RACES = new Set(['None', 'ConditionalCheckFailed', 'TransactionConflict']);

/** Expression limits (4 KB) allow some 80 conditions; 60 leaves room. */
const IDS_PER_UPDATE = 60;

function groups<T>(items: T[], idOf: (item: T) => number): T[][] {
  const byBucket = new Map<number, T[]>();
  for (const item of items) {
    const bucket = contactBucket(idOf(item));
    byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), item]);
  }
  return [...byBucket.values()].flatMap((group) => chunk(group, IDS_PER_UPDATE));
}

const ownerText = (ref: CompanyRef) => `${ref.country}#${ref.companyNumber}`;
