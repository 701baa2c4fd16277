/**
 * `npm run account -- <plan|show|audit>`: an account's fair-use plan (contract §13) and the audit trail.
 *
 *   npm run account -- plan --account acme --tier large      puts the account on a tier (audited)
 *   npm run account -- show --account acme                   its tier and the tier's figures
 *   npm run account -- audit [--month 2026-11]               token and plan changes of a month (UTC)
 *
 * Tiers: standard (the contract's defaults: 25/s, burst 50, 100,000 a day), large, bulk
 * (lib/plans/plans.ts). On a deployed stage (`--table`, AWS credentials and AWS_REGION set) `plan` also
 * files the account's API key under the tier's usage plan. Who ran it (the principal the AWS credentials
 * resolve to; on the local stage `local:<OS user>`) goes into the audit record, written in one
 * transaction with the plan. The stage as for `npm run token` (infra/cli/stage.ts).
 */
import { parseArgs } from 'node:util';
import { isInAws, operatorIdentity } from './operator';
import { useStage } from './stage';

const USAGE = `usage: npm run account -- plan --account ID --tier standard|large|bulk
       npm run account -- show --account ID
       npm run account -- audit [--month YYYY-MM]
options: --table NAME, --endpoint URL (as for npm run token)`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      table: { type: 'string' },
      endpoint: { type: 'string' },
      account: { type: 'string' },
      tier: { type: 'string' },
      month: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const [command] = positionals;
  if (values.help || !command) return fail(USAGE);
  if (values.endpoint) process.env['DYNAMODB_ENDPOINT'] = values.endpoint;
  const inAws = isInAws(values.table);
  const stage = useStage(values.table);

  const { PLAN_TIERS, isPlanTier } = await import('../../lib/plans/plans');
  const { ACCOUNT_ID } = await import('../../lib/tokens/tokens');
  switch (command) {
    case 'plan': {
      if (!values.account || !ACCOUNT_ID.test(values.account) || !values.tier) return fail(USAGE);
      if (!isPlanTier(values.tier))
        return fail(`unknown tier ${values.tier}: one of ${Object.keys(PLAN_TIERS).join(', ')}`);
      const { setAccountPlan } = await import('../../lib/usage/accounts');
      const { fileAccountKey } = await import('./usage-plans');
      const table = process.env['TABLE_NAME']!;
      const { before, after } = await setAccountPlan(
        values.account,
        values.tier,
        await operatorIdentity(inAws),
        inAws ? (accountId, tier) => fileAccountKey(table, accountId, tier) : null,
      );
      const figures = PLAN_TIERS[after.tier];
      console.log(
        `account ${values.account}: ${before.tier} → ${after.tier} (${figures.rate}/s, burst ${figures.burst}, ` +
          `${figures.dailyQuota} a day) on ${stage}`,
      );
      return 0;
    }
    case 'show': {
      if (!values.account) return fail(USAGE);
      const { getAccountPlan } = await import('../../lib/usage/store');
      const plan = await getAccountPlan(values.account);
      const figures = PLAN_TIERS[plan.tier];
      console.log(
        `account ${values.account}: ${plan.tier} (${figures.rate}/s, burst ${figures.burst}, ` +
          `${figures.dailyQuota} a day)${plan.changedAt ? `, set ${plan.changedAt}` : ', the default'}`,
      );
      return 0;
    }
    case 'audit': {
      const month = values.month ?? new Date().toISOString().slice(0, 7);
      if (!/^\d{4}-\d{2}$/.test(month)) return fail('--month takes YYYY-MM');
      const { auditRecords } = await import('../../lib/audit/audit');
      const records = await auditRecords(month);
      for (const r of records) {
        console.log([r.at, r.action, r.actor, r.accountId, r.tokenId ?? '-', r.detail ?? ''].join('\t'));
      }
      if (records.length === 0) console.log(`no audit records in ${month}`);
      return 0;
    }
    default:
      return fail(USAGE);
  }
}

function fail(message: string): number {
  console.error(message);
  return 2;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const name = error instanceof Error ? error.name : '';
    console.error(
      name === 'StorageUnavailableError' ? 'cannot reach the table' : `${name}: ${String(error)}`,
    );
    process.exit(1);
  },
);
