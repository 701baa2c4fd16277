/**
 * Where holdings are kept (contract §6.2, §6.4): one relationships item per company (key pattern in
 * lib/storage/keys.ts), derived at import from the held company's `shareholders` — the one fact per
 * holding — by lib/legal-entities/holdings.ts. The item holds:
 *
 * - `self`: the company's identifier and legal entity id, written by its own derivation (present =
 *   the company is imported), with `version`, a counter that grows whenever `self` changes;
 * - `parents`: its shareholders (the fact itself, merged per holder), written by its own derivation;
 * - `n#<holder>`: the registered name, place and version of each imported company among its holders;
 * - `c#<held>`: one attribute per company it holds shares in: percentage, function, the held
 *   company's name, place and legal entity id — from the held company's record;
 * - `rev`: the item's revision, moved on by every write: the import's holdings derivation reads a
 *   batch's items, computes them, and writes each only if it is still at the revision it read.
 *
 * Access patterns: relationships or legal entities of one company = one GetItem; of up to 100
 * companies = one BatchGetItem (1 round trip while the 100 items stay under BatchGetItem's 16 MB
 * answer, i.e. up to about 1,500 holdings per company on average; DynamoDB hands back the rest as
 * unprocessed keys, one more round trip per 16 MB). A company's item is bounded by DynamoDB's
 * 400 KB: its ≤ 1,000 shareholders (the record's bound) plus about 2,500 companies it holds.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { forEachLimited } from '../concurrency';
import { batchGet, chunk, getItem } from '../storage/batch';
import { cancellationReasons, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { sendTransaction } from '../storage/transactions';
import { companyOfAttribute, companyOfKey } from '../storage/keys';
import { toIdentifier } from './company';
import { companyKey, type CompanyRef } from './identifiers';
import type { ShareholderFunction } from './record';

type Item = Record<string, unknown>;

/** A company as its relatives show it. */
export interface RegisteredCompany extends CompanyRef {
  name: string;
  place: string | null;
}

/** A shareholder of the company, merged per holder company; `company` null for a person or foreign holder. */
export interface Holder {
  company: CompanyRef | null;
  /** The name as the shareholder entry gives it. */
  name: string;
  percentage: number;
  function: ShareholderFunction;
}

/** A company this one holds shares in, as that company's derivation wrote it. */
export interface Held extends RegisteredCompany {
  percentage: number;
  function: ShareholderFunction;
  legalEntityId: string;
}

export interface StoredRelationships {
  company: RegisteredCompany;
  legalEntityId: string;
  parents: Holder[];
  /** The registered holders among `parents`, by `companyKey`. */
  registeredHolders: Map<string, RegisteredCompany>;
  children: Held[];
}

const PREFIX = { holder: 'n#', held: 'c#' } as const;

/** The relationships of one imported company, or null when it is not (yet) imported. */
export async function getRelationships(ref: CompanyRef): Promise<StoredRelationships | null> {
  const item = await getItem(tableName(), keys.relationships(ref));
  return item ? toRelationships(item) : null;
}

/** The relationships of imported companies, keyed by `companyKey`; others are absent. */
export async function getRelationshipsOf(refs: CompanyRef[]): Promise<Map<string, StoredRelationships>> {
  const items = await batchGet(tableName(), refs.map(keys.relationships));
  const found = new Map<string, StoredRelationships>();
  for (const item of items) {
    const relationships = toRelationships(item);
    if (relationships) found.set(companyKey(companyOfKey(item['pk'] as string)), relationships);
  }
  return found;
}

function toRelationships(item: Item): StoredRelationships | null {
  const self = item['self'] as (RegisteredCompany & { legalEntityId: string }) | null | undefined;
  if (!self) return null;
  const registeredHolders = new Map<string, RegisteredCompany>();
  const children: Held[] = [];
  for (const [attribute, value] of Object.entries(item)) {
    if (attribute.startsWith(PREFIX.holder)) {
      const holder = companyOfAttribute(attribute);
      const { name, place } = value as { name: string; place: string | null };
      registeredHolders.set(companyKey(holder), { ...holder, name, place });
    } else if (attribute.startsWith(PREFIX.held)) {
      children.push({ ...companyOfAttribute(attribute), ...(value as Omit<Held, keyof CompanyRef>) });
    }
  }
  return {
    company: toIdentifier(self),
    legalEntityId: self.legalEntityId,
    parents: JSON.parse(item['parents'] as string) as Holder[],
    registeredHolders,
    children,
  };
}

// ---- Writes (the import's holdings derivation only) ---------------------------------------------

/** A relationships item as read for a change: its attributes and its revision (`rev`). */
export interface RelationshipsItem {
  ref: CompanyRef;
  /** Every attribute but the key; empty when the item is absent. */
  attributes: Item;
}

/** The relationships items of these companies as they are now (strongly consistent), absent ones empty. */
export async function readRelationshipsItems(refs: CompanyRef[]): Promise<Map<string, RelationshipsItem>> {
  const found = new Map<string, RelationshipsItem>();
  for (const ref of refs) found.set(companyKey(ref), { ref, attributes: {} });
  const items = await batchGet(tableName(), refs.map(keys.relationships), { consistent: true });
  for (const item of items) {
    const ref = companyOfKey(item['pk'] as string);
    const attributes = { ...item };
    delete attributes['pk'];
    delete attributes['sk'];
    found.set(companyKey(ref), { ref, attributes });
  }
  return found;
}

/** What changes in one item: attributes set and removed, from the revision it was read at. */
export interface RelationshipsWrite {
  ref: CompanyRef;
  /** The item's `rev` when read (undefined: absent, or never written with a revision). */
  rev: number | undefined;
  set: Item;
  remove: string[];
}

/** Attributes per action: an UpdateExpression stays under DynamoDB's 4 KB. */
const ATTRIBUTES_PER_ACTION = 50;
/** TransactWriteItems takes ≤ 100 actions and ≤ 4 MB; a transaction here stays under both. */
const ACTIONS_PER_TRANSACTION = 100;
const BYTES_PER_TRANSACTION = 3 * 1024 * 1024;
const TRANSACTIONS_IN_FLIGHT = 4;
/** Cancellations that mean "an item changed since it was read" (or a moment's contention): read again. */
const STALE = new Set(['None', 'ConditionalCheckFailed', 'TransactionConflict', 'ThrottlingError']);

/**
 * Writes what a batch's holdings change in the relationships items, each item conditioned on the
 * revision it was read at (and moving it on), in TransactWriteItems of up to 100 items: nothing a
 * concurrent import wrote meanwhile is overwritten. Answers false when some item changed since it was
 * read (its transaction wrote nothing; others may have): the caller reads again and writes what is
 * still missing. An item with more attributes than an action takes is written in rounds, one revision
 * each.
 */
export async function writeRelationshipsItems(writes: RelationshipsWrite[]): Promise<boolean> {
  const rounds: Array<Array<{ action: object; bytes: number }>> = [];
  for (const write of writes) {
    const changes: Array<[string, unknown]> = [
      ...Object.entries(write.set),
      ...write.remove.map((name): [string, unknown] => [name, REMOVE]),
    ];
    chunk(changes, ATTRIBUTES_PER_ACTION).forEach((part, round) => {
      (rounds[round] ??= []).push(updateAction(write, part, round));
    });
  }
  for (const round of rounds) {
    const transactions: Array<typeof round> = [];
    let bytes = Infinity;
    for (const entry of round) {
      const last = transactions[transactions.length - 1];
      if (!last || last.length === ACTIONS_PER_TRANSACTION || bytes + entry.bytes > BYTES_PER_TRANSACTION) {
        transactions.push([entry]);
        bytes = entry.bytes;
      } else {
        last.push(entry);
        bytes += entry.bytes;
      }
    }
    let written = true;
    await forEachLimited(transactions, TRANSACTIONS_IN_FLIGHT, async (transaction) => {
      if (!(await transact(transaction.map((t) => t.action)))) written = false;
    });
    if (!written) return false;
  }
  return true;
}

const REMOVE = Symbol('remove');

function updateAction(write: RelationshipsWrite, changes: Array<[string, unknown]>, round: number) {
  const names: Record<string, string> = { '#rev': 'rev' };
  const values: Record<string, unknown> = { ':next': (write.rev ?? 0) + round + 1 };
  const sets = ['#rev = :next'];
  const removes: string[] = [];
  changes.forEach(([name, value], i) => {
    names[`#a${i}`] = name;
    if (value === REMOVE) removes.push(`#a${i}`);
    else {
      values[`:a${i}`] = value;
      sets.push(`#a${i} = :a${i}`);
    }
  });
  const expected = write.rev === undefined && round === 0 ? null : (write.rev ?? 0) + round;
  if (expected !== null) values[':rev'] = expected;
  const action = {
    Update: {
      TableName: tableName(),
      Key: keys.relationships(write.ref),
      UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: expected === null ? 'attribute_not_exists(#rev)' : '#rev = :rev',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
  return { action, bytes: JSON.stringify(values).length + 200 };
}

/** One transaction; false when it was cancelled because an item changed since it was read. */
async function transact(TransactItems: object[]): Promise<boolean> {
  try {
    await sendTransaction(TransactItems as NonNullable<TransactWriteCommandInput['TransactItems']>);
    return true;
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.every((r) => STALE.has(r))) return false;
    throw error;
  }
}
