/**
 * The benches' count of write units as AWS bills them (test/bench/write-kinds.ts, used by
 * `npm run bench:scale` and the registry and filing benches): an item's size by DynamoDB's rules
 * (attribute names and values), rounded up to the KB, twice in a transaction, again for an index entry.
 */
import { actionsOf, countActions, splitByItemKind, type KindCount, type Wire } from '../bench/write-kinds';
import { variantOf } from '../bench/write-replay';

/** An item of exactly `bytes` bytes by DynamoDB's rules: `pk` `sk` and `data` names, 1-byte keys. */
const item = (bytes: number, extra: Record<string, Wire> = {}): Wire => ({
  pk: { S: 'A' },
  sk: { S: 'B' },
  data: { S: 'x'.repeat(bytes - 10) },
  ...extra,
});

const batch = (...items: Wire[]) => ({
  operation: 'BatchWriteItem',
  body: { RequestItems: { t: items.map((Item) => ({ PutRequest: { Item } })) } },
});
const transaction = (...items: Wire[]) => ({
  operation: 'TransactWriteItems',
  body: { TransactItems: items.map((Item) => ({ Put: { TableName: 't', Item } })) },
});

function units(...requests: Array<{ operation: string; body: Wire }>): number {
  const kinds = new Map<string, KindCount>();
  for (const request of requests) countActions(kinds, actionsOf(request));
  return [...kinds.values()].reduce((sum, kind) => sum + kind.writeUnits, 0);
}

it('bills an item written alone one unit a KB, rounded up', () => {
  expect(units(batch(item(100)))).toBe(1);
  expect(units(batch(item(1024)))).toBe(1);
  expect(units(batch(item(1025)))).toBe(2);
  expect(units(batch(item(3000), item(200)))).toBe(3 + 1);
});

it('bills an item written in a transaction twice', () => {
  expect(units(transaction(item(100)))).toBe(2);
  expect(units(transaction(item(1024), item(1025)))).toBe(2 + 4);
});

it('bills an item with index attributes again for its index entry', () => {
  const indexed = item(500, { gsi1pk: { S: 'G' }, gsi1sk: { S: 'H' } });
  expect(units(batch(indexed))).toBe(2);
  expect(units(transaction(indexed))).toBe(4);
});

it('bills a delete at least a unit, and a condition check nothing', () => {
  const request = {
    operation: 'TransactWriteItems',
    body: {
      TransactItems: [
        { Delete: { TableName: 't', Key: { pk: { S: 'A' }, sk: { S: 'B' } } } },
        { ConditionCheck: { TableName: 't', Key: { pk: { S: 'A' }, sk: { S: 'C' } } } },
      ],
    },
  };
  expect(units(request)).toBe(2);
});

it('regroups batched writes by item kind, 25 to a request, in their order, other requests as they are', () => {
  const keyed = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });
  const companies = Array.from({ length: 30 }, (_, i) => keyed(`COMPANY#BE#${i}`, 'COMPANY'));
  const feeds = Array.from({ length: 3 }, (_, i) => keyed(`COMPANY#BE#${i}`, 'UPDATES'));
  const split = splitByItemKind([
    batch(...companies.slice(0, 20), ...feeds),
    transaction(item(100)),
    batch(...companies.slice(20)),
  ]);
  const entries = (i: number) => (split[i]!.body['RequestItems'] as { t: Wire[] }).t;
  expect(split.map((r) => r.label ?? r.operation)).toEqual([
    'BatchWriteItem company company',
    'BatchWriteItem company company',
    'BatchWriteItem company updates',
    'TransactWriteItems',
  ]);
  expect(split.map((r) => r.operation)).toEqual([
    'BatchWriteItem',
    'BatchWriteItem',
    'BatchWriteItem',
    'TransactWriteItems',
  ]);
  expect([entries(0).length, entries(1).length, entries(2).length]).toEqual([25, 5, 3]);
  expect(entries(1).map((e) => ((e['PutRequest'] as Wire)['Item'] as Wire)['pk'])).toEqual(
    companies.slice(25).map((c) => c.pk),
  );
});

it('sorts batched writes by key, 25 to a request, when asked', () => {
  const keyed = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });
  const split = splitByItemKind(
    [
      batch(
        keyed('COMPANY#BE#2', 'UPDATES'),
        keyed('FILTER_PROFILES#1', 'A'),
        keyed('COMPANY#BE#2', 'COMPANY'),
      ),
    ],
    true,
  );
  expect(split.map((r) => r.label)).toEqual(['BatchWriteItem sorted by key']);
  const items = (split[0]!.body['RequestItems'] as { t: Wire[] }).t.map(
    (e) => (e['PutRequest'] as Wire)['Item'] as Record<string, { S: string }>,
  );
  expect(items.map((i) => `${i['pk']!.S} ${i['sk']!.S}`)).toEqual([
    'COMPANY#BE#2 COMPANY',
    'COMPANY#BE#2 UPDATES',
    'FILTER_PROFILES#1 A',
  ]);
});

it('asks the regrouped requests for the capacity consumed when the recorded ones did', () => {
  const keyed = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });
  const asked = {
    operation: 'BatchWriteItem',
    body: {
      RequestItems: { t: [{ PutRequest: { Item: keyed('COMPANY#BE#1', 'COMPANY') } }] },
      ReturnConsumedCapacity: 'TOTAL',
    },
  };
  for (const sorted of [false, true])
    expect(splitByItemKind([asked], sorted).map((r) => r.body['ReturnConsumedCapacity'])).toEqual(['TOTAL']);
  expect(splitByItemKind([batch(keyed('COMPANY#BE#1', 'COMPANY'))])[0]!.body).not.toHaveProperty(
    'ReturnConsumedCapacity',
  );
});

it('replays the recorded requests without the capacity asked, as a variant', () => {
  const recorded = {
    operation: 'BatchWriteItem',
    body: { RequestItems: { t: [{ PutRequest: { Item: item(100) } }] }, ReturnConsumedCapacity: 'TOTAL' },
  };
  const variant = variantOf(recorded, 'without capacity asked');
  expect(variant.body).toEqual({ RequestItems: recorded.body.RequestItems });
  expect(recorded.body.ReturnConsumedCapacity).toBe('TOTAL');
});
