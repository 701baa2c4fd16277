/**
 * The match indexes that adding companies by name, VAT number or website looks up: one item per index
 * key holding the companies under it, kept by the import.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../../storage/batch';
import { dynamodb, send, tableName } from '../../storage/client';
import { keys, matchIndexTextOfKey, type MatchKind } from '../../storage/keys';

export interface MatchKey {
  kind: MatchKind;
  value: string;
}

/** Adds the company (`BE#0403170701`) to the index entry, or takes it out. */
export async function updateMatchIndex(key: MatchKey, company: string, change: 'add' | 'remove') {
  await send(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.matchIndex(key.kind, key.value),
        UpdateExpression: change === 'add' ? 'ADD companies :c SET entity = :entity' : 'DELETE companies :c',
        ExpressionAttributeValues: {
          ':c': new Set([company]),
          ...(change === 'add' ? { ':entity': 'MatchIndex' } : {}),
        },
      }),
    ),
  );
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
