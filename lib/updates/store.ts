/**
 * Where updates are kept (contract §8; key pattern in lib/storage/keys.ts): one feed item per company,
 * `COMPANY#<country>#<number>` / `UPDATES`, with one attribute per update, named after its id
 * (`u<id>`), holding what its title and time are made of (`['F', '2024-07-31', 2023]`).
 *
 * - **Never twice**: an update's attribute is its id, and the id is its event's (lib/updates/derive.ts),
 *   so deriving an event again names the same attribute. It is written only where the item lacks it
 *   (`SET u<id> = if_not_exists(u<id>, …)`): retries, a resumed import and parallel imports neither
 *   duplicate an update nor change one already there.
 * - **Exact total**: the number of updates is the number of `u…` attributes — nothing to keep in step.
 * - **Reads**: a feed is one item, so the feeds of 100 legal entities are one BatchGetItem (next to
 *   the BatchGetItem of their relationships items: both in one round of parallel calls).
 * - **Bound**: an update takes about 50 bytes, so a feed holds about 8,000 updates within DynamoDB's
 *   400 KB item — some 50 financial periods' worth (3 updates each at most) plus thousands of imports
 *   in which people left.
 */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { batchGet } from '../storage/batch';
import type { Addition } from '../storage/transactions';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { companyOfKey, updateAttribute, UPDATE_ATTRIBUTE_PREFIX } from '../storage/keys';
import type { Update, UpdateType } from './derive';

/** The stored form of each type, shortest first (type code, time, then the facts of the title). */
const CODE = {
  PUBLISHED_FINANCIALS: 'F',
  GROSS_MARGIN_GROWTH: 'G',
  HEALTHDROP: 'H',
  PEOPLE_LEFT: 'P',
  NAME_CHANGED: 'N',
  MOVED: 'M',
  STOPPED: 'S',
} as const satisfies Record<UpdateType, string>;

type Stored = [code: string, time: string, ...facts: Array<string | number>];

function pack(update: Update): Stored {
  const code = CODE[update.type];
  switch (update.type) {
    case 'PUBLISHED_FINANCIALS':
      return [code, update.time, update.year];
    case 'GROSS_MARGIN_GROWTH':
      return [code, update.time, update.pct];
    case 'HEALTHDROP':
      return [code, update.time, update.drop];
    case 'PEOPLE_LEFT':
      return [code, update.time, update.count, ...update.names];
    case 'NAME_CHANGED':
      return [code, update.time, update.old, update.new];
    case 'MOVED':
      return [code, update.time, update.place];
    case 'STOPPED':
      return [code, update.time];
  }
}

function unpack(id: string, [code, time, ...facts]: Stored): Update {
  switch (code) {
    case CODE.PUBLISHED_FINANCIALS:
      return { id, time, type: 'PUBLISHED_FINANCIALS', year: Number(facts[0]) };
    case CODE.GROSS_MARGIN_GROWTH:
      return { id, time, type: 'GROSS_MARGIN_GROWTH', pct: Number(facts[0]) };
    case CODE.HEALTHDROP:
      return { id, time, type: 'HEALTHDROP', drop: Number(facts[0]) };
    case CODE.PEOPLE_LEFT: {
      const [count, ...names] = facts;
      return { id, time, type: 'PEOPLE_LEFT', count: Number(count), names: names.map(String) };
    }
    case CODE.NAME_CHANGED:
      return { id, time, type: 'NAME_CHANGED', old: String(facts[0]), new: String(facts[1]) };
    case CODE.MOVED:
      return { id, time, type: 'MOVED', place: String(facts[0]) };
    case CODE.STOPPED:
      return { id, time, type: 'STOPPED' };
    default:
      throw new Error(`unknown update code ${code} in update ${id}`);
  }
}

/**
 * The write that keeps a company's updates: each as an attribute added only where the feed lacks it
 * (lib/storage/batch.ts `batchAdd`; the import makes a batch's additions together).
 */
export function feedAddition(company: CompanyRef, updates: Update[]): Addition {
  return {
    key: keys.updateFeed(company),
    attributes: {
      entity: 'UpdateFeed',
      ...Object.fromEntries(updates.map((u) => [updateAttribute(u.id), pack(u)])),
    },
  };
}

/**
 * The whole feed item of a company's first change: a plain put (a batched write at a quarter of a
 * transaction item's cost). A new company has no feed but what this same change derives, so putting
 * it again (a resumed import) writes the same item; a later change adds to it (`feedAddition`).
 */
export function feedItem(company: CompanyRef, updates: Update[]): Record<string, unknown> {
  const { key, attributes } = feedAddition(company, updates);
  return { ...key, ...attributes };
}

/** The updates of each company that has any, keyed by `companyKey`, unordered. One BatchGetItem per 100. */
export async function getFeeds(refs: CompanyRef[]): Promise<Map<string, Update[]>> {
  const items = await batchGet(tableName(), refs.map(keys.updateFeed));
  return new Map(items.map((item) => [companyKey(companyOfKey(item['pk'] as string)), updatesOf(item)]));
}

function updatesOf(item: Record<string, unknown>): Update[] {
  const updates: Update[] = [];
  for (const [attribute, value] of Object.entries(item)) {
    if (attribute.startsWith(UPDATE_ATTRIBUTE_PREFIX)) {
      updates.push(unpack(attribute.slice(UPDATE_ATTRIBUTE_PREFIX.length), value as Stored));
    }
  }
  return updates;
}
