/**
 * Batch reads against DynamoDB Local, with DynamoDB's partial answers (UnprocessedKeys) injected:
 * DynamoDB Local never throttles, so the test makes the first answer partial itself. Batched
 * additions (attributes added where absent), racing each other.
 */
import { BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet, batchPut, getItem } from '../../lib/storage/batch';
import { addByPut, batchAdd } from '../../lib/storage/transactions';
import { dynamodb } from '../../lib/storage/client';
import { StorageUnavailableError } from '../../lib/storage/errors';
import { useFreshTable } from '../support/table';

const table = useFreshTable();
const items = Array.from({ length: 150 }, (_, i) => ({ pk: `ITEM#${i}`, sk: 'ITEM', entity: 'Test', n: i }));
const keys = items.map(({ pk, sk }) => ({ pk, sk }));

beforeAll(() => batchPut(table.name, items));
afterEach(() => jest.restoreAllMocks());

type Send = (command: unknown) => Promise<unknown>;

/** Lets DynamoDB answer only the first half of a BatchGetItem's keys, `times` times over. */
function answerPartially(times: number) {
  const client = dynamodb();
  const realSend = client.send.bind(client) as Send;
  let partial = 0;
  return jest.spyOn(client, 'send').mockImplementation((async (command: unknown) => {
    if (!(command instanceof BatchGetItemCommand) || partial >= times) return realSend(command);
    partial++;
    const [name, request] = Object.entries(command.input.RequestItems ?? {})[0]!;
    const asked = request.Keys ?? [];
    const half = Math.ceil(asked.length / 2);
    const answered = (await realSend(
      new BatchGetItemCommand({ RequestItems: { [name]: { ...request, Keys: asked.slice(0, half) } } }),
    )) as { Responses?: Record<string, unknown[]> };
    return {
      Responses: answered.Responses,
      UnprocessedKeys: { [name]: { ...request, Keys: asked.slice(half) } },
    };
  }) as never);
}

describe('getItem', () => {
  it('reads one item by key, as the document client gives it, or undefined', async () => {
    expect(await getItem(table.name, keys[7]!)).toEqual(items[7]);
    expect(await getItem(table.name, keys[7]!, { projection: ['n', 'entity'], consistent: true })).toEqual({
      n: 7,
      entity: 'Test',
    });
    expect(await getItem(table.name, { pk: 'ITEM#none', sk: 'ITEM' })).toBeUndefined();
  });
});

describe('batchGet', () => {
  it('reads more than 100 keys in chunks', async () => {
    const found = await batchGet(table.name, keys);

    expect(found.map((item) => item['n']).sort((a, b) => Number(a) - Number(b))).toEqual(
      items.map((i) => i.n),
    );
  });

  it('asks again for unprocessed keys until every item is read', async () => {
    const send = answerPartially(3);

    const found = await batchGet(table.name, keys.slice(0, 40));

    expect(found).toHaveLength(40);
    expect(send).toHaveBeenCalledTimes(4);
  });

  it('answers every kind of attribute exactly as the document client does', async () => {
    const rich = {
      pk: 'RICH#1',
      sk: 'ITEM',
      text: '{"periods":[1,2]}',
      n: 12.5,
      big: 1234567890123,
      flag: false,
      none: null,
      tags: new Set(['b', 'a']),
      numbers: new Set([3, 1]),
      list: [1, 'two', { three: [3] }],
      map: { nested: { deep: 'x' }, empty: {} },
    };
    await batchPut(table.name, [rich]);
    const wanted = [keys[3]!, { pk: 'RICH#1', sk: 'ITEM' }];
    const viaDocumentClient = (await dynamodb().send(
      new BatchGetCommand({ RequestItems: { [table.name]: { Keys: wanted } } }),
    )) as { Responses: Record<string, unknown[]> };

    const found = await batchGet(table.name, wanted);

    const byPk = (list: unknown[]) =>
      [...list].sort((a, b) => String((a as { pk: string }).pk).localeCompare((b as { pk: string }).pk));
    expect(byPk(found)).toEqual(byPk(viaDocumentClient.Responses[table.name]!));
    expect(found.find((item) => item['pk'] === 'RICH#1')).toEqual(rich);
  });

  it('reads a repeated key once', async () => {
    const found = await batchGet(table.name, [keys[0]!, keys[0]!, keys[1]!]);

    expect(found).toHaveLength(2);
  });

  it('gives up with StorageUnavailableError (503 to a caller) when keys stay unprocessed', async () => {
    answerPartially(Number.POSITIVE_INFINITY);

    await expect(batchGet(table.name, keys.slice(0, 64))).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});

describe('batchAdd', () => {
  const key = (i: number) => ({ pk: `ADD#${i}`, sk: 'ADD' });
  const read = async (i: number) => (await batchGet(table.name, [key(i)]))[0];
  const attributes = (count: number, value: (a: number) => unknown) =>
    Object.fromEntries(Array.from({ length: count }, (_, a) => [`a#${a}`, value(a)]));

  it('creates items and adds attributes, more than 100 items and 60 attributes an item', async () => {
    const additions = Array.from({ length: 130 }, (_, i) => ({
      key: key(i),
      attributes: attributes(i === 7 ? 150 : 2, (a) => [i, a]),
    }));

    await batchAdd(table.name, additions);

    const items = await batchGet(
      table.name,
      additions.map((a) => a.key),
    );
    expect(items).toHaveLength(130);
    const big = await read(7);
    expect(Object.keys(big!).filter((name) => name.startsWith('a#'))).toHaveLength(150);
    expect(big!['a#149']).toEqual([7, 149]);
  });

  it('keeps the first value of an attribute: adding again changes nothing', async () => {
    await batchAdd(table.name, [{ key: key(500), attributes: { 'a#1': 'first', 'a#2': 'first' } }]);

    await batchAdd(table.name, [
      { key: key(500), attributes: { 'a#1': 'second', 'a#3': 'second' } },
      { key: key(500), attributes: { 'a#3': 'third' } },
    ]);

    expect(await read(500)).toEqual({ ...key(500), 'a#1': 'first', 'a#2': 'first', 'a#3': 'second' });
  });

  it('loses nothing when additions to the same items race', async () => {
    const items = Array.from({ length: 40 }, (_, i) => 600 + i);
    const racer = (n: number) =>
      batchAdd(
        table.name,
        items.map((i) => ({ key: key(i), attributes: { [`a#${n}`]: n, shared: n } })),
        1,
      );

    await Promise.all([0, 1, 2, 3, 4, 5].map(racer));

    for (const item of await batchGet(table.name, items.map(key))) {
      expect(
        Object.keys(item)
          .filter((name) => name.startsWith('a#'))
          .sort(),
      ).toEqual(['a#0', 'a#1', 'a#2', 'a#3', 'a#4', 'a#5']);
      expect([0, 1, 2, 3, 4, 5]).toContain(item['shared']);
    }
  });

  it('retries a transaction cancelled by a conflict', async () => {
    const client = dynamodb();
    const realSend = client.send.bind(client) as Send;
    let conflicts = 0;
    jest.spyOn(client, 'send').mockImplementation((async (command: unknown) => {
      if (command instanceof TransactWriteCommand && conflicts < 2) {
        conflicts++;
        throw Object.assign(new Error('Transaction cancelled'), {
          name: 'TransactionCanceledException',
          CancellationReasons: [{ Code: 'TransactionConflict' }],
        });
      }
      return realSend(command);
    }) as never);

    await batchAdd(table.name, [{ key: key(700), attributes: { 'a#1': 1 } }]);

    expect(conflicts).toBe(2);
    expect(await read(700)).toMatchObject({ 'a#1': 1 });
  });
});

describe('addByPut (the additions of a writer no other writes the items meanwhile)', () => {
  const key = (i: number) => ({ pk: `PUTADD#${i}`, sk: 'PUTADD' });

  it('adds what the items lack, keeps what they hold, in puts and no transaction, more than 100 items', async () => {
    await batchAdd(table.name, [{ key: key(1), attributes: { 'a#1': 'first', kept: 'stored' } }]);
    const client = dynamodb();
    const send = jest.spyOn(client, 'send');

    await addByPut(table.name, [
      { key: key(1), attributes: { 'a#1': 'second', 'a#2': 'second' } },
      { key: key(1), attributes: { 'a#2': 'third', 'a#3': 'third' } },
      ...Array.from({ length: 120 }, (_, i) => ({ key: key(100 + i), attributes: { 'a#1': i } })),
    ]);

    expect(send.mock.calls.some(([command]) => command instanceof TransactWriteCommand)).toBe(false);
    expect((await batchGet(table.name, [key(1)]))[0]).toEqual({
      ...key(1),
      'a#1': 'first',
      kept: 'stored',
      'a#2': 'second',
      'a#3': 'third',
    });
    const created = await batchGet(
      table.name,
      Array.from({ length: 120 }, (_, i) => key(100 + i)),
    );
    expect(created).toHaveLength(120);
    expect(created.find((item) => item['pk'] === key(150).pk)).toEqual({ ...key(150), 'a#1': 50 });
  });
});
