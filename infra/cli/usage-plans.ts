/**
 * An account's API key on a deployed stage (contract §13): created once, with the value the authorizer
 * names for the account (`usageKeyOf`), and filed under the usage plan of the account's tier — and under
 * no other, so a tier change moves it. The stage's plans are found by name, `<table name>:<tier>`
 * (infra/api.ts `addUsagePlans`). Runs in the CLIs only, with the operator's AWS credentials.
 */
import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlansCommand,
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import { usageKeyOf, type PlanTier } from '../../lib/plans/plans';

const client = () => new APIGatewayClient({});

/** The stage's usage plans by tier (those named `<table>:<tier>`). */
async function stagePlans(tableName: string): Promise<Map<string, string>> {
  const plans = new Map<string, string>();
  let position: string | undefined;
  do {
    const page = await client().send(new GetUsagePlansCommand({ position, limit: 500 }));
    for (const plan of page.items ?? []) {
      if (plan.id && plan.name?.startsWith(`${tableName}:`))
        plans.set(plan.name.slice(tableName.length + 1), plan.id);
    }
    position = page.position;
  } while (position);
  return plans;
}

/** The account's key id, created when it has none yet. */
async function accountKeyId(tableName: string, accountId: string): Promise<string> {
  const name = `${tableName}:${accountId}`;
  try {
    const created = await client().send(
      new CreateApiKeyCommand({ name, value: usageKeyOf(tableName, accountId), enabled: true }),
    );
    return created.id!;
  } catch (error) {
    if (!(error instanceof ConflictException)) throw error;
    const { items } = await client().send(new GetApiKeysCommand({ nameQuery: name, limit: 500 }));
    const existing = items?.find((key) => key.name === name);
    if (!existing?.id) throw error;
    return existing.id;
  }
}

/** Files the account's key under its tier's usage plan only; returns the key's and the plan's ids. */
export async function fileAccountKey(
  tableName: string,
  accountId: string,
  tier: PlanTier,
): Promise<{ apiKeyId: string; usagePlanId: string }> {
  const plans = await stagePlans(tableName);
  const target = plans.get(tier);
  if (!target) throw new Error(`no usage plan ${tableName}:${tier} on this stage (is the stack deployed?)`);
  const keyId = await accountKeyId(tableName, accountId);
  try {
    await client().send(new CreateUsagePlanKeyCommand({ usagePlanId: target, keyId, keyType: 'API_KEY' }));
  } catch (error) {
    if (!(error instanceof ConflictException)) throw error;
  }
  for (const [other, usagePlanId] of plans) {
    if (other === tier) continue;
    try {
      await client().send(new DeleteUsagePlanKeyCommand({ usagePlanId, keyId }));
    } catch (error) {
      if (!(error instanceof NotFoundException)) throw error;
    }
  }
  return { apiKeyId: keyId, usagePlanId: target };
}
