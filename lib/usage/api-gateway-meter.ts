/**
 * Today's count of an account's requests as API Gateway keeps it for the usage plan of its tier: the
 * same counter the stage's quota is enforced on. The key and plan ids come from the account's plan item
 * (the operator CLIs store them when they file the key under a plan).
 */
import { APIGatewayClient, GetUsageCommand } from '@aws-sdk/client-api-gateway';
import { utcDay } from './plans';
import type { UsageMeter } from './meter';

let client: APIGatewayClient | undefined;

export const apiGatewayMeter: UsageMeter = {
  async requestsToday(_accountId, { apiKeyId, usagePlanId }, now) {
    // No key filed yet: no request of the account has been counted on this stage.
    if (!usagePlanId || !apiKeyId) return 0;
    const day = utcDay(now);
    client ??= new APIGatewayClient({});
    const { items } = await client.send(
      new GetUsageCommand({ usagePlanId, keyId: apiKeyId, startDate: day, endDate: day }),
    );
    // items: key id → one [used, remaining] pair per day asked for.
    const [used] = items?.[apiKeyId]?.[0] ?? [0];
    return used ?? 0;
  },
};
