/**
 * The match indexes that adding companies by name, VAT number or website looks up: one item per index
 * key holding the companies under it, kept by the import.
 */
import { batchGet } from '../storage/batch';
import type { SetChange } from '../storage/transactions';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { matchIndexTextOfKey, type MatchKind } from '../storage/keys';

export interface MatchKey {
  kind: MatchKind;
  value: string;
}

/**
 * The write that adds the company (`BE#0403170701`) to the index entry, or takes it out: a set change
 * the import makes for a whole batch (lib/storage/batch.ts `batchSetChanges`).
 */
export function matchIndexChange(key: MatchKey, company: string, change: 'add' | 'remove'): SetChange {
  const { pk, sk } = keys.matchIndex(key.kind, key.value);
  return change === 'add'
    ? { key: { pk, sk }, attribute: 'companies', add: [company], attributes: { entity: 'MatchIndex' } }
    : { key: { pk, sk }, attribute: 'companies', remove: [company] };
}

/** The companies under each index key (`companyKey` form), by `${kind}#${value}`; absent keys have none. */
export async function getMatchIndexes(matchKeys: MatchKey[]): Promise<Map<string, string[]>> {
  if (matchKeys.length === 0) return new Map();
  const items = await batchGet(
    tableName(),
    matchKeys.map((k) => keys.matchIndex(k.kind, k.value)),
    { projection: ['pk', 'companies'] },
  );
  return new Map(
    items.map((item) => [
      matchIndexTextOfKey(item['pk'] as string),
      [...((item['companies'] as Set<string> | undefined) ?? [])],
    ]),
  );
}
