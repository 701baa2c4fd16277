/**
 * Batch reads against DynamoDB Local, with DynamoDB's partial answers (UnprocessedKeys) injected:
 * DynamoDB Local never throttles, so the test makes the first answer partial itself.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet, batchPut, getItem } from '../../lib/storage/batch';
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
    if (!(command instanceof BatchGetCommand) || partial >= times) return realSend(command);
    partial++;
    const [name, request] = Object.entries(command.input.RequestItems ?? {})[0]!;
    const asked = request.Keys ?? [];
    const half = Math.ceil(asked.length / 2);
    const answered = (await realSend(
      new BatchGetCommand({ RequestItems: { [name]: { ...request, Keys: asked.slice(0, half) } } }),
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

  it('reads a repeated key once', async () => {
    const found = await batchGet(table.name, [keys[0]!, keys[0]!, keys[1]!]);

    expect(found).toHaveLength(2);
  });

  it('gives up with StorageUnavailableError (503 to a caller) when keys stay unprocessed', async () => {
    answerPartially(Number.POSITIVE_INFINITY);

    await expect(batchGet(table.name, keys.slice(0, 64))).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});
