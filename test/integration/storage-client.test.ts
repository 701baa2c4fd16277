/**
 * The storage client's SDK logger. The SDK's logger middleware copies every input and output (walked
 * against the schema, to mask sensitive members) for `logger.info`, and builds the copies only when
 * the logger has an `info`: the storage client's logger has none, so no call pays for a copy.
 */
import { DynamoDBClient, GetItemCommand, type GetItemCommandInput } from '@aws-sdk/client-dynamodb';
import { dynamodb, tableName } from '../../lib/storage/client';
import { useFreshTable } from '../support/table';

useFreshTable();

it('the SDK copies each input and output, member by member, for a logger with info', async () => {
  const logged: { input: GetItemCommandInput; output: unknown }[] = [];
  const client = new DynamoDBClient({
    endpoint: process.env['DYNAMODB_ENDPOINT']!,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    logger: {
      debug: () => undefined,
      info: (entry: { input: GetItemCommandInput; output: unknown }) => void logged.push(entry),
      warn: () => undefined,
      error: () => undefined,
    },
  });
  const input: GetItemCommandInput = { TableName: tableName(), Key: { pk: { S: 'X' }, sk: { S: 'Y' } } };

  await client.send(new GetItemCommand(input));
  client.destroy();

  expect(logged).toHaveLength(1);
  expect(logged[0]!.input).toEqual(input);
  expect(logged[0]!.input).not.toBe(input);
  expect(logged[0]!.input.Key).not.toBe(input.Key);
  expect(logged[0]!.input.Key!['pk']).not.toBe(input.Key!['pk']);
});

it("the storage client's logger has no info, so the middleware builds no copy", async () => {
  const { logger } = dynamodb().config;

  expect(logger).toBeDefined();
  expect((logger as { info?: unknown }).info).toBeUndefined();
});
