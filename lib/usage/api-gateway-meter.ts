/**
 * Today's count of an account's requests as API Gateway keeps it for the usage plan of its tier: the
 * same counter the stage's quota is enforced on. The key and plan ids come from the account's plan item
 * (the operator CLIs store them when they file the key under a plan).
 *
 * One `GetUsage` call of the SDK's API Gateway client, for the account's key and plan and today's UTC
 * day only. The client is built on first use and kept across invocations: the region and credentials (on
 * Lambda, the role's, from the environment) as the SDK reads them; AWS_ENDPOINT_URL_API_GATEWAY points it
 * elsewhere (the tests' stand-in). A caller waits on it, so an attempt has 2 s at most.
 */
import { APIGatewayClient, GetUsageCommand } from '@aws-sdk/client-api-gateway';
import { config, usageConfig } from '../config';
import { utcDay } from '../plans/plans';
import type { UsageMeter } from './meter';

let client: APIGatewayClient | undefined;

function apiGateway(): APIGatewayClient {
  const endpoint = usageConfig.apiGatewayEndpoint();
  return (client ??= new APIGatewayClient({
    region: config.endpointRegion(),
    ...(endpoint ? { endpoint } : {}),
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 1000, requestTimeout: 2000, throwOnRequestTimeout: true },
  }));
}

export const apiGatewayMeter: UsageMeter = {
  async requestsToday(_accountId, { apiKeyId, usagePlanId }, now) {
    // No key filed yet: no request of the account has been counted on this stage.
    if (!usagePlanId || !apiKeyId) return 0;
    const day = utcDay(now);
    const { items } = await apiGateway().send(
      new GetUsageCommand({ usagePlanId, keyId: apiKeyId, startDate: day, endDate: day }),
    );
    // items: key id → one [used, remaining] pair per day asked for.
    return items?.[apiKeyId]?.[0]?.[0] ?? 0;
  },
};
