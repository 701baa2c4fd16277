/**
 * Where holdings are kept (contract §6.2, §6.4): one relationships item per company (key pattern in
 * lib/storage/keys.ts), derived at import from the held company's `shareholders` — the one fact per
 * holding — by lib/companies/holdings.ts. The item holds:
 *
 * - `self`: the company's identifier and legal entity id, written by its own derivation (present =
 *   the company is imported), with `version`, a counter that grows with every derivation of it;
 * - `parents`: its shareholders (the fact itself, merged per holder), written by its own derivation;
 * - `n#<holder>`: the registered name and place of each imported company among its holders, written
 *   by whichever of the two derivations runs second (see holdings.ts), newest `version` wins;
 * - `c#<held>`: one attribute per company it holds shares in: percentage, function, the held
 *   company's name, place and legal entity id — written only by the held company's derivation.
 *
 * Separate attributes, not one list, so that the derivations of different companies change one item
 * without reading it first and without losing each other's writes (UpdateItem is atomic per item).
 *
 * Access patterns: relationships or legal entities of one company = one GetItem; of up to 100
 * companies = one BatchGetItem (1 round trip while the 100 items stay under BatchGetItem's 16 MB
 * answer, i.e. up to about 1,500 holdings per company on average; DynamoDB hands back the rest as
 * unprocessed keys, one more round trip per 16 MB). A company's item is bounded by DynamoDB's
 * 400 KB: its ≤ 1,000 shareholders (the record's bound) plus about 2,500 companies it holds.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet, chunk, getItem } from '../storage/batch';
import { conditionHeld, dynamodb, isConditionFailed, send, tableName } from '../storage/client';
import { companyOfAttribute, companyOfKey, heldAttribute, holderNameAttribute, keys } from '../storage/keys';
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

// ---- Writes (the import's derivation only) -----------------------------------------------------

/** A registered company as its relatives keep it: `version` orders concurrent writes of its name. */
export interface VersionedName {
  name: string;
  place: string | null;
  version: number;
}

/**
 * Writes a company's own part of its item — `self`, `parents` — and, when `self` changed, bumps its
 * version (deriving the same change again leaves the version as it was, so a resumed import ends in
 * the same state as an uninterrupted one). Answers the version and the companies it holds (the `c#…`
 * attributes present at that moment: those written by the derivations of companies it holds shares in
 * that ran before).
 */
export async function putOwnRelationships(
  self: RegisteredCompany & { legalEntityId: string },
  parents: Holder[],
): Promise<{ version: number; held: CompanyRef[] }> {
  const update = (changed: boolean) =>
    send(() =>
      dynamodb().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.relationships(self),
          UpdateExpression: changed
            ? 'SET #self = :self, #parents = :parents ADD #version :one'
            : 'SET #parents = :parents',
          ...(changed ? { ConditionExpression: 'attribute_not_exists(#self) OR #self <> :self' } : {}),
          ExpressionAttributeNames: {
            '#parents': 'parents',
            ...(changed ? { '#self': 'self', '#version': 'version' } : {}),
          },
          ExpressionAttributeValues: {
            ':parents': JSON.stringify(parents),
            ...(changed ? { ':self': self, ':one': 1 } : {}),
          },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
  let answer;
  try {
    answer = await update(true);
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    answer = await update(false);
  }
  const attributes = answer.Attributes ?? {};
  return {
    version: attributes['version'] as number,
    held: Object.keys(attributes)
      .filter((attribute) => attribute.startsWith(PREFIX.held))
      .map(companyOfAttribute),
  };
}

/** Forgets the registered names of companies that no longer hold shares in `held` (100 per request). */
export async function deleteHolderNames(held: CompanyRef, formerHolders: CompanyRef[]): Promise<void> {
  for (const part of chunk(formerHolders, 100)) {
    const names = Object.fromEntries(part.map((holder, i) => [`#r${i}`, holderNameAttribute(holder)]));
    await send(() =>
      dynamodb().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.relationships(held),
          UpdateExpression: `REMOVE ${Object.keys(names).join(', ')}`,
          ExpressionAttributeNames: names,
        }),
      ),
    );
  }
}

/**
 * Records in the holder's item that it holds `held`. Answers the holder's registered name when the
 * holder is imported (its `self` is there), so the held company can show it.
 */
export async function putHolding(holder: CompanyRef, held: Held): Promise<VersionedName | null> {
  const { country, companyNumber, ...entry } = held;
  const { Attributes = {} } = await send(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.relationships(holder),
        // Touching `self` and `version` (unchanged when present) makes UPDATED_NEW return them,
        // so the holder's name comes back without returning its whole item.
        UpdateExpression:
          'SET #held = :entry, #self = if_not_exists(#self, :none), #version = if_not_exists(#version, :zero)',
        ExpressionAttributeNames: {
          '#held': heldAttribute({ country, companyNumber }),
          '#self': 'self',
          '#version': 'version',
        },
        ExpressionAttributeValues: { ':entry': entry, ':none': null, ':zero': 0 },
        ReturnValues: 'UPDATED_NEW',
      }),
    ),
  );
  const self = Attributes['self'] as RegisteredCompany | null | undefined;
  return self ? { name: self.name, place: self.place, version: Attributes['version'] as number } : null;
}

/** The holder no longer holds shares in `held`. */
export async function deleteHolding(holder: CompanyRef, held: CompanyRef): Promise<void> {
  await send(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.relationships(holder),
        UpdateExpression: 'REMOVE #held',
        ExpressionAttributeNames: { '#held': heldAttribute(held) },
      }),
    ),
  );
}

/**
 * Keeps in `held`'s item the registered name of its holder `holder`, unless a newer version of it is
 * there already (two derivations may write it, in either order: the newest version wins).
 */
export async function putHolderName(
  held: CompanyRef,
  holder: CompanyRef,
  name: VersionedName,
): Promise<void> {
  await conditionHeld(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.relationships(held),
        UpdateExpression: 'SET #name = :name',
        ConditionExpression: 'attribute_not_exists(#name) OR #name.#version < :version',
        ExpressionAttributeNames: { '#name': holderNameAttribute(holder), '#version': 'version' },
        ExpressionAttributeValues: { ':name': name, ':version': name.version },
      }),
    ),
  );
}
