/**
 * The operator's audit trail: creating and revoking a token and changing an account's plan each write a
 * record naming who, when, the account and the token id — never the token — kept a year (ttl), and
 * `npm run account -- audit` prints them. Who is the identity the CLI finds (here, off AWS, the OS user
 * marked local), never a name given; a record is written in the change's own transaction. Run through
 * the CLIs, against a deployed-stage table on DynamoDB Local.
 */
import os from 'node:os';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { auditRecords, AUDIT_RETENTION_DAYS } from '../../lib/audit/audit';
import { putToken, revokeToken } from '../../lib/tokens/store';
import { createToken, MAX_TOKEN_DAYS } from '../../lib/tokens/tokens';
import { dynamodb, tableName } from '../../lib/storage/client';
import { operatorKeys } from '../../lib/storage/operator-keys';
import { getAccountPlan } from '../../lib/usage/store';
import { runCli } from '../support/cli';
import { useFreshTable } from '../support/table';

const table = useFreshTable();
const cli = (script: string, args: string[], stdin = '') => runCli(script, args, table.name, stdin);

const me = `local:${os.userInfo().username}`;
const thisMonth = () => new Date().toISOString().slice(0, 7);

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
  ]);
  expect(create.code).toBe(0);
  const token = /\n\s+(cd_\S+)\n/.exec(create.stdout)![1]!;
  const tokenId = /token ([0-9a-f]{12}) created/.exec(create.stdout)![1]!;

  const revoke = await cli('infra/cli/token.ts', ['revoke', '-'], `${token}\n`);
  expect(revoke.code).toBe(0);
  const plan = await cli('infra/cli/account.ts', ['plan', '--account', 'initech', '--tier', 'large']);
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
    { action: 'token.create', actor: me, accountId: 'initech', tokenId },
    { action: 'token.revoke', actor: me, accountId: 'initech', tokenId },
    { action: 'plan.change', actor: me, accountId: 'initech', tokenId: undefined },
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

it('takes no actor from the command line or the environment: the identity is found, not told', async () => {
  const given = await cli('infra/cli/account.ts', [
    'plan',
    '--account',
    'hooli',
    '--tier',
    'large',
    '--actor',
    'x',
  ]);
  expect(given.code).not.toBe(0);
  expect((await getAccountPlan('hooli')).tier).toBe('standard');

  process.env['AUDIT_ACTOR'] = 'somebody-else';
  try {
    expect((await cli('infra/cli/account.ts', ['plan', '--account', 'hooli', '--tier', 'large'])).code).toBe(
      0,
    );
  } finally {
    delete process.env['AUDIT_ACTOR'];
  }
  const records = (await auditRecords(thisMonth())).filter((r) => r.accountId === 'hooli');
  expect(records.map((r) => r.actor)).toEqual([me]);
});

it('writes a token change and its record together, or neither', async () => {
  const { info } = await createToken(
    { accountId: 'umbrella', userEmail: 'al@umbrella.example', scopes: ['companies:read'], expiresAt: null },
    undefined,
    me,
  );
  const recordsOf = async () => (await auditRecords(thisMonth())).filter((r) => r.accountId === 'umbrella');
  expect((await recordsOf()).map((r) => r.action)).toEqual(['token.create']);

  // A token that is already there is not stored again: nor is a record of its creation.
  const now = new Date().toISOString();
  const hash = 'f'.repeat(64);
  const token = {
    tokenId: hash.slice(0, 12),
    hash,
    accountId: 'umbrella',
    userEmail: 'al@umbrella.example',
    scopes: [],
    createdAt: now,
    expiresAt: null,
    revokedAt: null,
  };
  await putToken(token, { action: 'token.create', actor: me, accountId: 'umbrella', tokenId: token.tokenId });
  await expect(
    putToken(token, { action: 'token.create', actor: me, accountId: 'umbrella', tokenId: token.tokenId }),
  ).rejects.toThrow();
  // A token that does not exist is not revoked: nor is a record of its revocation written.
  await expect(
    revokeToken('0'.repeat(64), now, { action: 'token.revoke', actor: me, accountId: 'umbrella' }),
  ).rejects.toThrow();
  expect((await recordsOf()).map((r) => [r.action, r.tokenId])).toEqual([
    ['token.create', info.tokenId],
    ['token.create', token.tokenId],
  ]);
});

it('keeps a record longer than any token of a deployed stage lives', () => {
  expect(AUDIT_RETENTION_DAYS).toBeGreaterThan(MAX_TOKEN_DAYS);
});
