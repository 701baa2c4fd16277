/**
 * `npm run token` against a deployed-stage table (any table but the local stage's) on DynamoDB Local:
 * tokens expire after 90 days unless told otherwise and within a year at most (never-expiring tokens are
 * refused), and a token itself is revoked from standard input, never from the command line.
 */
import { callerForToken, createToken, InvalidAccountIdError } from '../../lib/tokens/tokens';
import { runCli } from '../support/cli';
import { useFreshTable } from '../support/table';

const table = useFreshTable();

const token = (args: string[], stdin = '') => runCli('infra/cli/token.ts', args, table.name, stdin);

const created = (stdout: string) => ({
  token: /\n\s+(cd_\S+)\n/.exec(stdout)![1]!,
  tokenId: /token ([0-9a-f]{12}) created/.exec(stdout)![1]!,
  expires: /expires: (\S+)/.exec(stdout)![1]!,
});
const create = ['create', '--account', 'acme', '--email', 'ops@acme.example', '--scopes', 'companies:read'];

it('gives a deployed stage token 90 days by default, at most 365, and refuses --no-expiry', async () => {
  const before = Date.now();
  const plain = await token(create);
  expect(plain.code).toBe(0);
  const expires = Date.parse(created(plain.stdout).expires);
  expect(expires - before).toBeGreaterThanOrEqual(90 * 86_400_000);
  expect(expires - before).toBeLessThan(91 * 86_400_000);

  const year = await token([...create, '--expires-in', '365']);
  expect(year.code).toBe(0);
  expect(Date.parse(created(year.stdout).expires) - before).toBeLessThan(366 * 86_400_000);

  for (const refused of [['--no-expiry'], ['--expires-in', '366'], ['--no-expiry', '--expires-in', '5']]) {
    const answer = await token([...create, ...refused]);
    expect(answer.code).toBe(2);
    expect(answer.stdout).not.toMatch(/cd_/);
  }
  expect((await token([...create, '--no-expiry'])).stderr).toContain('expire within 365 days');
});

it('revokes by token id, or by the token read from standard input, never from argv', async () => {
  const first = created((await token(create)).stdout);
  const second = created((await token(create)).stdout);

  const inArgv = await token(['revoke', first.token]);
  expect(inArgv.code).toBe(2);
  expect(inArgv.stderr).toContain('standard input');
  expect(await callerForToken(first.token)).not.toBeNull();

  expect((await token(['revoke', '-'], `${first.token}\n`)).code).toBe(0);
  expect(await callerForToken(first.token)).toBeNull();

  expect((await token(['revoke', second.tokenId])).code).toBe(0);
  expect(await callerForToken(second.token)).toBeNull();
});

it("refuses an account id that would not make safe keys ('#' would let one account pass for another)", async () => {
  for (const account of ['acme#LIST#7', '', 'a b', 'x'.repeat(65)]) {
    const refused = await token([
      'create',
      '--account',
      account,
      '--email',
      'ops@acme.example',
      '--scopes',
      'companies:read',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).not.toMatch(/cd_/);
  }
  await expect(
    createToken({ accountId: 'acme#LIST#7', userEmail: 'x@y.z', scopes: ['lists:read'], expiresAt: null }),
  ).rejects.toThrow(InvalidAccountIdError);
});
