/**
 * The operator's audit trail: creating and revoking a token and changing an account's plan each write a
 * record naming who, when, the account and the token id — never the token — kept a year (ttl), and
 * `npm run account -- audit` prints them. Run through the CLIs, against a deployed-stage table on
 * DynamoDB Local.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { auditRecords, AUDIT_RETENTION_DAYS } from '../../lib/audit/audit';
import { dynamodb, tableName } from '../../lib/storage/client';
import { operatorKeys } from '../../lib/storage/operator-keys';
import { getAccountPlan } from '../../lib/usage/store';
import { runCli } from '../support/cli';
import { useFreshTable } from '../support/table';

const table = useFreshTable();
const cli = (script: string, args: string[], stdin = '') => runCli(script, args, table.name, stdin);

it('records token create, revoke and plan changes with who and when, never the token', async () => {
  const before = new Date();
  const create = await cli('infra/cli/token.ts', [
    'create',
    '--account',
    'initech',
    '--email',
    'peter@initech.example',
    '--scopes',
    'companies:read',
    '--actor',
    'ops-anna',
  ]);
  expect(create.code).toBe(0);
  const token = /\n\s+(cd_\S+)\n/.exec(create.stdout)![1]!;
  const tokenId = /token ([0-9a-f]{12}) created/.exec(create.stdout)![1]!;

  const revoke = await cli('infra/cli/token.ts', ['revoke', '-', '--actor', 'ops-bob'], `${token}\n`);
  expect(revoke.code).toBe(0);
  const plan = await cli('infra/cli/account.ts', [
    'plan',
    '--account',
    'initech',
    '--tier',
    'large',
    '--actor',
    'ops-carl',
  ]);
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('standard → large');
  expect((await getAccountPlan('initech')).tier).toBe('large');
  // A tier that does not exist changes nothing and records nothing.
  expect((await cli('infra/cli/account.ts', ['plan', '--account', 'initech', '--tier', 'gold'])).code).toBe(
    2,
  );

  const month = before.toISOString().slice(0, 7);
  const records = await auditRecords(month);
  expect(
    records.map(({ action, actor, accountId, tokenId: id }) => ({ action, actor, accountId, tokenId: id })),
  ).toEqual([
    { action: 'token.create', actor: 'ops-anna', accountId: 'initech', tokenId },
    { action: 'token.revoke', actor: 'ops-bob', accountId: 'initech', tokenId },
    { action: 'plan.change', actor: 'ops-carl', accountId: 'initech', tokenId: undefined },
  ]);
  for (const record of records) expect(Date.parse(record.at)).toBeGreaterThanOrEqual(before.getTime());

  // The stored items: no token anywhere in them, and each expires a year after it was written.
  const { Items = [] } = await dynamodb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': operatorKeys.auditMonth(month) },
    }),
  );
  expect(Items).toHaveLength(3);
  for (const item of Items) {
    expect(JSON.stringify(item)).not.toContain(token);
    expect(item['ttl']).toBe(
      Math.floor(Date.parse(item['at'] as string) / 1000) + AUDIT_RETENTION_DAYS * 86_400,
    );
  }

  const printed = await cli('infra/cli/account.ts', ['audit', '--month', month]);
  expect(printed.code).toBe(0);
  expect(printed.stdout.trim().split('\n')).toHaveLength(3);
  expect(printed.stdout).not.toContain(token);
});
