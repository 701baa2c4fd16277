import { marshall } from '@aws-sdk/util-dynamodb';
import type { CompanyRef } from '../../lib/companies/identifiers';
import {
  UndeclaredStorageAccessError,
  withDeclaredAccess,
  type Partition,
  type StorageAccess,
} from '../../lib/storage/access';
import {
  allows,
  checkDeclaredAccess,
  deniedPartitions,
  globMatches,
  touchesOf,
} from '../../lib/storage/access-check';
import * as keys from '../../lib/storage/keys';
import * as partitions from '../../lib/storage/partitions';
import { operatorPartitions } from '../../lib/storage/operator-keys';
import { authorizer, routes, workers } from '../../lib/routes';

const acme: CompanyRef = { country: 'BE', companyNumber: '0403170701' };
const key = (k: Record<string, unknown>) => marshall(k);

describe('partition patterns', () => {
  // One real key of every family, built by its key function.
  const samples: Array<[keyof typeof partitions, string]> = [
    ['company', keys.company(acme).pk],
    ['company', keys.relationships(acme).pk],
    ['company', keys.lookalikes(acme).pk],
    ['legalEntity', keys.legalEntity('123456789012').pk],
    ['lookalikeBlock', keys.lookalikeFeatures('43', acme).pk],
    ['lookalikeMarks', keys.lookalikeMark('run.1', 'p').pk],
    ['lookalikeLease', keys.lookalikeLease().pk],
    ['importChange', keys.importChange('c1', 3).pk],
    ['registryDigest', keys.registryDigest('kbo', 'BE', '040317').pk],
    ['contactClaims', keys.contactClaims(12).pk],
    ['token', keys.token('ab'.repeat(32)).pk],
    ['tokenListing', keys.tokenListing('2026-01-01T00:00:00.000Z', 'abc')['gsi1pk']!],
    ['idempotency', keys.idempotency('acme', 'key-1').pk],
    ['accountLists', keys.list('acme', 7).pk],
    ['listMembers', keys.listMember('acme', 7, acme).pk],
    ['listOrder', keys.listOrder('acme', 7, 'SAVED', 1_700_000_000_000, acme).pk],
    ['listMemberships', keys.listMembership('acme', 7, acme)['gsi1pk']!],
    ['matchIndex', keys.matchIndex('VAT', 'BE0403170701').pk],
  ];

  it.each(samples)('%s covers %s', (family, pk) => {
    expect(globMatches(partitions[family].pattern, pk)).toBe(true);
  });

  it('keeps token hashes out of every pattern but the token one', () => {
    const token = keys.token('ab'.repeat(32)).pk;
    const others = Object.entries(partitions).filter(([family]) => family !== 'token');
    expect(others.filter(([, p]) => globMatches(p.pattern, token)).map(([family]) => family)).toEqual([]);
  });

  it('keeps company data out of the account partitions and the other way round', () => {
    expect(globMatches(partitions.company.pattern, keys.list('acme', 1).pk)).toBe(false);
    expect(globMatches(partitions.accountLists.pattern, keys.company(acme).pk)).toBe(false);
  });

  it('names the index of the index-only families', () => {
    expect(partitions.tokenListing).toEqual({ index: 'gsi1', pattern: 'TOKENS' });
    expect(partitions.listMemberships).toEqual({ index: 'gsi1', pattern: 'LISTED#*#*' });
  });
});

describe('what a call touches, as IAM judges it', () => {
  const table = 't';

  it('single-item calls name their item', () => {
    expect(touchesOf('GetItemCommand', { TableName: table, Key: key(keys.company(acme)) })).toEqual([
      { action: 'GetItem', partitionKey: 'COMPANY#BE#0403170701' },
    ]);
    expect(touchesOf('PutItemCommand', { Item: key({ ...keys.token('x'), a: 1 }) })).toEqual([
      { action: 'PutItem', partitionKey: 'TOKEN#x' },
    ]);
  });

  it('batch calls name every item', () => {
    const touches = touchesOf('BatchGetItemCommand', {
      RequestItems: { [table]: { Keys: [key(keys.company(acme)), key(keys.token('x'))] } },
    });
    expect(touches.map((t) => t.partitionKey)).toEqual(['COMPANY#BE#0403170701', 'TOKEN#x']);
    const writes = touchesOf('BatchWriteItemCommand', {
      RequestItems: {
        [table]: [
          { PutRequest: { Item: key(keys.company(acme)) } },
          { DeleteRequest: { Key: key(keys.token('y')) } },
        ],
      },
    });
    expect(writes).toEqual([
      { action: 'BatchWriteItem', partitionKey: 'COMPANY#BE#0403170701' },
      { action: 'BatchWriteItem', partitionKey: 'TOKEN#y' },
    ]);
  });

  it('a transaction is its items, each as its own action', () => {
    const touches = touchesOf('TransactWriteItemsCommand', {
      TransactItems: [
        { Put: { Item: key(keys.listMember('acme', 1, acme)) } },
        { Update: { Key: key(keys.list('acme', 1)) } },
        { Delete: { Key: key(keys.idempotency('acme', 'k')) } },
        { ConditionCheck: { Key: key(keys.company(acme)) } },
      ],
    });
    expect(touches.map((t) => t.action)).toEqual([
      'PutItem',
      'UpdateItem',
      'DeleteItem',
      'ConditionCheckItem',
    ]);
  });

  it('a Query names the partition of its key condition, on the table or the index it reads', () => {
    expect(
      touchesOf('QueryCommand', {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: marshall({ ':pk': 'ACCOUNT#acme', ':p': 'LIST#' }),
      }),
    ).toEqual([{ action: 'Query', partitionKey: 'ACCOUNT#acme' }]);
    expect(
      touchesOf('QueryCommand', {
        IndexName: 'gsi1',
        KeyConditionExpression: '#pk = :v',
        ExpressionAttributeNames: { '#pk': 'gsi1pk' },
        ExpressionAttributeValues: marshall({ ':v': 'TOKENS' }),
      }),
    ).toEqual([{ action: 'Query', index: 'gsi1', partitionKey: 'TOKENS' }]);
  });

  it('a Scan names no partition, so no declaration allows it', () => {
    const [scan] = touchesOf('ScanCommand', { TableName: table });
    const everything: StorageAccess = Object.fromEntries(
      ['GetItem', 'Query', 'BatchGetItem'].map((a) => [a, Object.values(partitions)]),
    );
    expect(allows(everything, scan!)).toBe(false);
  });

  it('an index partition is not a table partition', () => {
    const access: StorageAccess = { Query: [partitions.tokenListing] };
    expect(allows(access, { action: 'Query', index: 'gsi1', partitionKey: 'TOKENS' })).toBe(true);
    expect(allows(access, { action: 'Query', partitionKey: 'TOKENS' })).toBe(false);
  });
});

describe('checkDeclaredAccess', () => {
  const get = { Key: key(keys.company(acme)) };

  it('refuses an undeclared action or partition inside a declaration, and names it', async () => {
    await withDeclaredAccess({ GetItem: [partitions.company] }, async () => {
      expect(() => checkDeclaredAccess('GetItemCommand', get)).not.toThrow();
      expect(() => checkDeclaredAccess('GetItemCommand', { Key: key(keys.token('x')) })).toThrow(
        UndeclaredStorageAccessError,
      );
      expect(() => checkDeclaredAccess('DeleteItemCommand', get)).toThrow(
        'DeleteItem on the table, partition COMPANY#BE#0403170701, is not declared',
      );
    });
  });

  it('checks nothing outside a declaration (CLIs and the import run with operator rights)', () => {
    expect(() => checkDeclaredAccess('ScanCommand', {})).not.toThrow();
  });
});

describe('families a declared pattern also matches', () => {
  const listKey = keys.list('acme', 7).pk;
  const memberKey = keys.listMember('acme', 7, acme).pk;
  const orderKey = keys.listOrder('acme', 7, 'NEW', 1_700_000_000_000, acme).pk;
  const replayKey = keys.idempotency('acme', 'key-1').pk;
  const query = (access: StorageAccess, partitionKey: string) =>
    allows(access, { action: 'Query', partitionKey });

  it("are refused: the account's lists pattern (ACCOUNT#*) reaches no list's members or stored answers", () => {
    const overview: StorageAccess = { Query: [partitions.accountLists] };

    expect(query(overview, listKey)).toBe(true);
    for (const other of [memberKey, orderKey, replayKey]) expect(query(overview, other)).toBe(false);
    expect(deniedPartitions(overview, 'Query')).toEqual([
      partitions.idempotency,
      partitions.listMembers,
      partitions.listOrder,
      partitions.events,
      partitions.eventLog,
      partitions.webhooks,
      partitions.webhookDeliveries,
    ]);
  });

  it('are allowed as soon as they are declared, and a member pattern reaches no order item', () => {
    const members: StorageAccess = { Query: [partitions.accountLists, partitions.listMembers] };

    expect(query(members, listKey)).toBe(true);
    expect(query(members, memberKey)).toBe(true);
    expect(query(members, orderKey)).toBe(false);
    expect(query(members, replayKey)).toBe(false);
  });

  const all: Array<[string, StorageAccess]> = [
    ...Object.entries(routes).map(([id, r]) => [id, r.storage] as [string, StorageAccess]),
    ['authorizer', authorizer.storage],
    ...Object.entries(workers).map(([id, w]) => [id, w.storage] as [string, StorageAccess]),
  ];
  const realKeys = new Map<object, string>([
    [partitions.accountLists, listKey],
    [partitions.listMembers, memberKey],
    [partitions.listOrder, orderKey],
    [partitions.idempotency, replayKey],
    [partitions.company, keys.company(acme).pk],
    [partitions.token, keys.token('ab'.repeat(32)).pk],
  ]);

  it.each(all)('take nothing %s declares away', (_, storage) => {
    for (const [action, declared] of Object.entries(storage)) {
      for (const partition of declared ?? []) {
        const pk = realKeys.get(partition);
        if (!pk) continue;
        expect(
          allows(storage, {
            action,
            ...(partition.index ? { index: partition.index } : {}),
            partitionKey: pk,
          }),
        ).toBe(true);
      }
    }
  });
});

describe('declarations', () => {
  const all: Array<[string, StorageAccess]> = [
    ...Object.entries(routes).map(([id, r]) => [id, r.storage] as [string, StorageAccess]),
    ['authorizer', authorizer.storage],
    ...Object.entries(workers).map(([id, w]) => [id, w.storage] as [string, StorageAccess]),
  ];

  it.each(all)('%s names only partitions of the key module', (_, storage) => {
    const known = new Set<Partition>([...Object.values(partitions), ...Object.values(operatorPartitions)]);
    for (const list of Object.values(storage)) for (const p of list ?? []) expect(known.has(p)).toBe(true);
  });

  it('the authorizer reads token items and nothing else', () => {
    expect(authorizer.storage).toEqual({ GetItem: [partitions.token] });
  });
});
