/**
 * Today's count of an account's requests as API Gateway keeps it for the usage plan of its tier: the
 * same counter the stage's quota is enforced on. The key and plan ids come from the account's plan item
 * (the operator CLIs store them when they file the key under a plan).
 *
 * One signed GET of API Gateway's `GetUsage`, made with the SDK's own signer and HTTP handler (already in
 * every function's bundle for DynamoDB) rather than the API Gateway client, which would add about 50 KB
 * of minified code to the function for this one call.
 */
import { createHash, createHmac } from 'node:crypto';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SourceData } from '@smithy/types';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { config, usageConfig } from '../config';
import { utcDay } from './plans';
import type { UsageMeter } from './meter';

const bytes = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

/** SHA-256, or HMAC-SHA-256 when given a secret, as the signer wants it. */
class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret ? createHmac('sha256', bytes(secret)) : createHash('sha256');
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(this.hash.digest());
  }
}

let signer: SignatureV4 | undefined;
let http: NodeHttpHandler | undefined;

export const apiGatewayMeter: UsageMeter = {
  async requestsToday(_accountId, { apiKeyId, usagePlanId }, now) {
    // No key filed yet: no request of the account has been counted on this stage.
    if (!usagePlanId || !apiKeyId) return 0;
    const region = config.endpointRegion();
    const day = utcDay(now);
    // Lambda hands the function its role's credentials in the environment.
    signer ??= new SignatureV4({
      service: 'apigateway',
      region,
      credentials: fromEnv(),
      sha256: Sha256,
    });
    http ??= new NodeHttpHandler({ requestTimeout: 2000, connectionTimeout: 1000 });
    const endpoint = new URL(
      usageConfig.apiGatewayEndpoint() ?? `https://apigateway.${region}.amazonaws.com`,
    );
    const { hostname, protocol } = endpoint;
    const port = endpoint.port ? Number(endpoint.port) : undefined;
    const request = await signer.sign({
      method: 'GET',
      protocol,
      hostname,
      ...(port ? { port } : {}),
      path: `/usageplans/${encodeURIComponent(usagePlanId)}/usage`,
      query: { keyId: apiKeyId, startDate: day, endDate: day },
      headers: { host: endpoint.host, accept: 'application/json' },
    });
    const { response } = await http.handle(request as Parameters<NodeHttpHandler['handle']>[0]);
    const chunks: Buffer[] = [];
    for await (const chunk of response.body as AsyncIterable<Buffer>) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    if (response.statusCode !== 200) throw new Error(`GetUsage answered ${response.statusCode}`);
    // items: key id → one [used, remaining] pair per day asked for.
    const { items } = JSON.parse(text) as { items?: Record<string, number[][]> };
    return items?.[apiKeyId]?.[0]?.[0] ?? 0;
  },
};
