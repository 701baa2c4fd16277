/**
 * `npm run token -- <create|list|revoke>`: manage API tokens in a stage's table.
 *
 *   npm run token -- create --account acme --email ann@acme.example --scopes companies:read,lists:read [--expires-in 90]
 *   npm run token -- list
 *   npm run token -- revoke <tokenId or token>
 *
 * Local stage (default): table company-data-local on http://127.0.0.1:${DYNAMODB_LOCAL_PORT:-8000}
 * (while `npm start` runs). Deployed stage: `--table <TableName output of the stack>` with AWS
 * credentials and AWS_REGION set. When the table cannot be reached, the one error line names the
 * endpoint and table it tried.
 */
import { parseArgs } from 'node:util';
import { LOCAL_TABLE_NAME } from '../../lib/storage/table';
import { useStage } from './stage';

const USAGE = `usage: npm run token -- create --account ID --email EMAIL --scopes a,b [--expires-in DAYS]
       npm run token -- list
       npm run token -- revoke TOKEN_ID_OR_TOKEN
options: --table NAME (default $TABLE_NAME or ${LOCAL_TABLE_NAME}), --endpoint URL (default $DYNAMODB_ENDPOINT;
         http://127.0.0.1:$DYNAMODB_LOCAL_PORT (8000) for the local table)`;

/** Where the command looked for the table, in words, for an error line that says what to do. */
let stageInUse = `table ${LOCAL_TABLE_NAME}`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      table: { type: 'string' },
      endpoint: { type: 'string' },
      account: { type: 'string' },
      email: { type: 'string' },
      scopes: { type: 'string' },
      'expires-in': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const [command, target] = positionals;
  if (values.help || !command) return fail(USAGE);

  if (values.endpoint) process.env['DYNAMODB_ENDPOINT'] = values.endpoint;
  stageInUse = useStage(values.table);

  // Loaded after the environment is set: the storage client reads it when first imported.
  const { createToken, listTokenInfo, revoke } = await import('../../lib/tokens/tokens');
  const { isScope } = await import('../../lib/tokens/scopes');

  switch (command) {
    case 'create': {
      const scopes = (values.scopes ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = scopes.filter((s) => !isScope(s));
      if (!values.account || !values.email || scopes.length === 0 || bad.length > 0) {
        return fail(bad.length ? `unknown scope(s): ${bad.join(', ')}` : USAGE);
      }
      const days = values['expires-in'] === undefined ? null : Number(values['expires-in']);
      if (days !== null && !(Number.isInteger(days) && days > 0))
        return fail('--expires-in takes a whole number of days');
      const expiresAt = days === null ? null : new Date(Date.now() + days * 86_400_000).toISOString();
      const { token, info } = await createToken({
        accountId: values.account,
        userEmail: values.email,
        scopes: scopes.filter(isScope),
        expiresAt,
      });
      console.log(
        `token ${info.tokenId} created for ${info.userEmail} (${info.accountId}): ${info.scopes.join(' ')}`,
      );
      console.log(`expires: ${info.expiresAt ?? 'never'}`);
      console.log(
        `\n  ${token}\n\nThis is the only time the token is shown; only its SHA-256 hash is stored.`,
      );
      return 0;
    }
    case 'list': {
      const tokens = await listTokenInfo();
      for (const t of tokens) {
        const state = t.revokedAt
          ? `revoked ${t.revokedAt}`
          : t.expiresAt && t.expiresAt <= new Date().toISOString()
            ? 'expired'
            : 'active';
        console.log(
          [
            t.tokenId,
            t.accountId,
            t.userEmail,
            t.scopes.join(' '),
            `created ${t.createdAt}`,
            `expires ${t.expiresAt ?? 'never'}`,
            state,
          ].join('\t'),
        );
      }
      if (tokens.length === 0) console.log('no tokens');
      return 0;
    }
    case 'revoke':
      if (!target) return fail(USAGE);
      if (!(await revoke(target))) return fail(`no token ${target}`);
      console.log(
        `revoked ${target.length > 12 ? 'the given token' : target} (gateways may honour a cached answer for up to 5 minutes)`,
      );
      return 0;
    default:
      return fail(USAGE);
  }
}

function fail(message: string): number {
  console.error(message);
  return 2;
}

/** One line that names the table and endpoint tried (and, locally, says to run `npm start`); never an SDK stack. */
function explain(error: unknown): string {
  const name = error instanceof Error ? error.name : '';
  if (name === 'StorageUnavailableError') return `cannot reach ${stageInUse}`;
  if (name === 'ResourceNotFoundException') return `no such table: ${stageInUse}`;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `${message} (${stageInUse})`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(explain(error));
    process.exit(1);
  },
);
