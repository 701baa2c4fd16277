/**
 * The benches' count of what an import reads by item kind (test/bench/read-kinds.ts, printed by the
 * registry bench beside its writes): keys a BatchGetItem asks for split by kind, consistent or not,
 * a Query counted by the partition its key condition names, writes not counted.
 */
import { countReads, formatReads, type ReadKinds } from '../bench/read-kinds';

const key = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });

it("counts a BatchGetItem's keys by item kind and consistency", () => {
  const reads: ReadKinds = new Map();
  countReads(reads, {
    operation: 'BatchGetItem',
    body: {
      RequestItems: {
        t: {
          Keys: [
            key('COMPANY#BE#1', 'COMPANY'),
            key('COMPANY#BE#2', 'COMPANY'),
            key('REGISTRY_DIGEST#kbo#1', 'DIGEST'),
          ],
          ConsistentRead: true,
        },
      },
    },
  });
  countReads(reads, { operation: 'GetItem', body: { Key: key('COMPANY#BE#3', 'COMPANY') } });
  expect(reads).toEqual(
    new Map([
      ['BatchGetItem consistent company company', { requests: 1, keys: 2 }],
      ['BatchGetItem consistent registry digest', { requests: 1, keys: 1 }],
      ['GetItem eventual company company', { requests: 1, keys: 1 }],
    ]),
  );
});

it('counts a Query by the partition its key condition names, and no write', () => {
  const reads: ReadKinds = new Map();
  countReads(reads, {
    operation: 'Query',
    body: {
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
      ExpressionAttributeValues: { ':s': { S: 'X' }, ':p': { S: 'LOOKALIKE_BLOCK#62' } },
      ConsistentRead: true,
    },
  });
  countReads(reads, { operation: 'BatchWriteItem', body: { RequestItems: {} } });
  expect(reads).toEqual(new Map([['Query consistent lookalike features', { requests: 1, keys: 0 }]]));
  expect(formatReads(reads, 4)[1]).toMatch(/^Query consistent lookalike features\s+0\.250\s+0\.000$/);
});
