/**
 * `npm run token -- <create|list|revoke>`: manage API tokens in a stage's table.
 *
 *   npm run token -- create --account acme --email ann@acme.example --scopes companies:read,lists:read [--expires-in 90 | --no-expiry]
 *   npm run token -- list
 *   npm run token -- revoke <tokenId>
 *   printf %s "$TOKEN" | npm run token -- revoke -      (a token itself: from standard input, never argv)
 *
 * On a deployed stage a token expires after 90 days unless --expires-in says otherwise, and never later
 * than a year (--no-expiry is refused there); on the local stage it never expires unless --expires-in
 * says so. Creating and revoking write an audit record in the same transaction: who (the principal the
 * AWS credentials resolve to; on the local stage `local:<OS user>`), when, the token id
 * (`npm run account -- audit`). On a deployed stage in AWS, an account's
 * first token also files the account's API key under its plan's usage plan (infra/cli/usage-plans.ts).
 * A revoked token stops working within 5 seconds (the gateways keep the authorizer's answer 4 s).
 *
 * Local stage (default): table company-data-local on http://127.0.0.1:${DYNAMODB_LOCAL_PORT:-8000}
 * (while `npm start` runs). Deployed stage: `--table <TableName output of the stack>` with AWS
 * credentials and AWS_REGION set. When the table cannot be reached, the one error line names the
 * endpoint and table it tried.
 */
import { parseArgs } from 'node:util';
import { LOCAL_TABLE_NAME } from '../../lib/storage/table';
import { isDeployedTable, isInAws, operatorIdentity } from './operator';
import { useStage } from './stage';

const USAGE = `usage: npm run token -- create --account ID --email EMAIL --scopes a,b [--expires-in DAYS | --no-expiry (local stage)]
       npm run token -- list
       npm run token -- revoke TOKEN_ID          (or: revoke - , the token on standard input)
options: --table NAME (default $TABLE_NAME or ${LOCAL_TABLE_NAME}), --endpoint URL (default $DYNAMODB_ENDPOINT;
         http://127.0.0.1:$DYNAMODB_LOCAL_PORT (8000) for the local table)`;
/** A token id as `list` shows it: the first 12 hex characters of the token's hash. */
const TOKEN_ID = /^[0-9a-f]{12}$/;

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
      'no-expiry': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  const [command, target] = positionals;
  if (values.help || !command) return fail(USAGE);

  if (values.endpoint) process.env['DYNAMODB_ENDPOINT'] = values.endpoint;
  const inAws = isInAws(values.table);
  stageInUse = useStage(values.table);
  // Only the commands that change a token record who ran them (and ask STS who that is).
  const actor = () => operatorIdentity(inAws);

  // Loaded after the environment is set: the storage client reads it when first imported.
  const {
    ACCOUNT_ID,
    createToken,
    InvalidAccountIdError,
    InvalidExpiryError,
    listTokenInfo,
    revoke,
    tokenExpiry,
  } = await import('../../lib/tokens/tokens');
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
      if (!ACCOUNT_ID.test(values.account)) return fail(new InvalidAccountIdError(values.account).message);
      if (values['no-expiry'] && values['expires-in'] !== undefined)
        return fail('--expires-in and --no-expiry exclude each other');
      let expiresAt: string | null;
      try {
        const days = values['no-expiry']
          ? null
          : values['expires-in'] !== undefined
            ? Number(values['expires-in'])
            : undefined;
        expiresAt = tokenExpiry(days, isDeployedTable(values.table));
      } catch (error) {
        if (error instanceof InvalidExpiryError) return fail(error.message);
        throw error;
      }
      if (inAws) {
        // The account's requests count against its plan's usage plan: without its key there, the stage refuses them.
        const { ensureAccountKey } = await import('../../lib/usage/accounts');
        const { fileAccountKey } = await import('./usage-plans');
        const table = process.env['TABLE_NAME']!;
        await ensureAccountKey(values.account, (accountId, tier) => fileAccountKey(table, accountId, tier));
      }
      const { token, info } = await createToken(
        { accountId: values.account, userEmail: values.email, scopes: scopes.filter(isScope), expiresAt },
        undefined,
        await actor(),
      );
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
    case 'revoke': {
      // A token on the command line would stay in shell history and the process list: ids only there.
      if (!target || (target !== '-' && !TOKEN_ID.test(target))) {
        return fail('revoke takes a token id (as `list` shows it), or `-` and the token on standard input');
      }
      const given = target === '-' ? (await readStdin()).trim() : target;
      if (!given) return fail('no token on standard input');
      if (!(await revoke(given, await actor())))
        return fail(target === '-' ? 'no such token' : `no token ${target}`);
      console.log(
        `revoked ${target === '-' ? 'the given token' : target} (it stops working within 5 seconds)`,
      );
      return 0;
    }
    default:
      return fail(USAGE);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
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
