/**
 * (ext) Registry rosters: the companies a registry wrote that are not stopped, so that a KBO full
 * extract finds the enterprises it no longer holds (contract §11.5.2) by reading a few items per block
 * of company numbers — one Query per shard — instead of a Scan of the whole table, which reads every
 * item of every company (and so made a full extract imported again cost as much as the stage is big).
 *
 * One item per rostered registry (KBO) and block of company numbers (the registry digests' blocks, about
 * 30 companies, lib/import/registry-digest.ts `digestBlock`), in one of 16 shard partitions: `companies`,
 * a string set of the canonical numbers. Every write of a company through the import
 * (lib/import/changes.ts, erase.ts) hands back a set change for each rostered registry among the
 * company's sources: added while it is not stopped, removed once it is stopped or erased. The changes of
 * a batch's companies merge into one update per block (lib/storage/transactions.ts `batchSetChanges`),
 * and set operations are idempotent, so a batch derived again ends the same.
 *
 * A stage whose companies were written before rosters were kept has none: until its `BUILT` mark exists,
 * `rosterCompanies` answers from the caller's fallback (the older way: a Scan, or the filter profiles),
 * adds what it answers to the roster as it goes, and puts the mark once it has answered all. A company
 * another import stops while that first fill runs may be left in the roster; a later full extract that
 * lacks it then stops it again on its own date, which is the one fill's only inexactness.
 */
import type { CompanyRef } from '../companies/identifiers';
import { batchGet, batchPut, queryPage } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { batchSetChanges, type SetChange } from '../storage/transactions';
import { digestBlock } from './registry-digest';

/**
 * The registries whose full files stop the companies they no longer hold (§11.5.2: KBO's). SIRENE's
 * stock stops nothing by absence: keeping a roster for it would be writes nobody reads.
 */
const ROSTERED: readonly string[] = ['kbo'];
const SHARDS = 16;
const BUILT = 'BUILT';
const ATTRIBUTE = 'companies';

const rosterKey = (source: string, ref: CompanyRef) => {
  const block = digestBlock(ref);
  return keys.registryRoster(source, ref.country, String(Number(block.slice(-6) || '0') % SHARDS), block);
};
const builtKey = (source: string, country: string) => keys.registryRoster(source, country, BUILT, BUILT);

/** A company written (or erased) and the sources that wrote it: its roster entries follow. */
export interface RosterWrite {
  company: CompanyRef;
  sources: readonly string[];
  /** Stored and not stopped: in the rosters of its registries; else out of them. */
  live: boolean;
  /** Erased (lib/import/erase.ts): its sources are no longer known, it leaves every roster. */
  erased?: boolean;
}

/**
 * Whether a write of a company by `source` may change what the rosters hold of it: a rostered
 * registry's own write (a new company, or one it writes again: set again, merged per block), or any
 * write that stops or restarts the company. Another source's write that leaves `stoppedOn` as it was (a
 * filing, most JSON Lines records) changes nothing there and costs no transaction item.
 */
export function rosterMayChange(
  source: string,
  before: { stoppedOn?: string | null } | null,
  after: { stoppedOn?: string | null },
): boolean {
  return ROSTERED.includes(source) || (before?.stoppedOn ?? null) !== (after.stoppedOn ?? null);
}

/** The set changes that keep the rosters of the registries among each company's sources. */
export function rosterChanges(writes: RosterWrite[]): SetChange[] {
  return writes.flatMap(({ company, sources, live, erased }) =>
    ROSTERED.filter((registry) => erased || sources.includes(registry)).map((registry) => ({
      key: rosterKey(registry, company),
      attribute: ATTRIBUTE,
      ...(live
        ? { add: [company.companyNumber], attributes: { entity: 'RegistryRoster' } }
        : { remove: [company.companyNumber] }),
    })),
  );
}

/**
 * Every company of `country` that `source` wrote and that is not stopped, page by page: the roster's
 * items when it is whole, else `fallback`'s pages, which fill it (see above).
 */
export async function* rosterCompanies(
  source: string,
  country: string,
  fallback: () => AsyncIterable<string[]>,
): AsyncGenerator<string[]> {
  // A registry without a roster (its writes keep none) is answered the older way, every time.
  if (!ROSTERED.includes(source)) {
    yield* fallback();
    return;
  }
  const [built] = await batchGet(tableName(), [builtKey(source, country)], {
    projection: ['pk'],
    consistent: true,
  });
  if (built) {
    for (let shard = 0; shard < SHARDS; shard++) {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await queryPage({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.registryRoster(source, country, String(shard), '').pk },
          ProjectionExpression: ATTRIBUTE,
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        });
        start = page.lastKey;
        const numbers = page.items.flatMap((item) => [
          ...((item[ATTRIBUTE] as Set<string> | undefined) ?? []),
        ]);
        if (numbers.length > 0) yield numbers;
      } while (start);
    }
    return;
  }
  for await (const numbers of fallback()) {
    await batchSetChanges(
      tableName(),
      rosterChanges(
        numbers.map((companyNumber) => ({
          company: { country, companyNumber } as CompanyRef,
          sources: [source],
          live: true,
        })),
      ),
    );
    yield numbers;
  }
  await batchPut(tableName(), [{ ...builtKey(source, country), entity: 'RegistryRosterBuilt' }]);
}
