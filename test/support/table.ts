/**
 * A fresh table per test file, built from the shared table definition on the run's DynamoDB Local.
 * Call at the top level of a test file; TABLE_NAME points the storage adapter at it.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ensureTable, localClient } from '../../infra/local/dynamodb';

export function useFreshTable(): { name: string } {
  const table = { name: `test-${randomUUID()}` };
  beforeAll(async () => {
    process.env['TABLE_NAME'] = table.name;
    await ensureTable(endpoint(), table.name);
  });
  afterAll(async () => {
    const client = localClient(endpoint());
    await client.send(new DeleteTableCommand({ TableName: table.name })).catch(() => undefined);
    client.destroy();
  });
  return table;
}

function endpoint(): string {
  const value = process.env['DYNAMODB_ENDPOINT'];
  if (!value) throw new Error('DYNAMODB_ENDPOINT is not set: jest globalSetup starts DynamoDB Local');
  return value;
}
