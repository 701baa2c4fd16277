/**
 * Every environment variable that code in lib/ reads, in one place. Each is read when used, never at
 * import, so a CLI or a test can set it first; a required one that is missing fails with its name.
 *
 * | Variable                          | Set by                                   | Unset                                    |
 * |-----------------------------------|------------------------------------------|------------------------------------------|
 * | TABLE_NAME                        | the stack, the local stage, the tests    | required: fails                          |
 * | DYNAMODB_ENDPOINT                 | the local stage, the tests (DynamoDB Local) | the region's DynamoDB                 |
 * | AWS_REGION                        | Lambda                                   | `local` (only with DYNAMODB_ENDPOINT)    |
 * | STORAGE_ACCESS_ENFORCED_BY_IAM    | the stack (`true`)                       | each call checks its declared access     |
 * | DYNAMODB_CONNECTION_TIMEOUT_MS, DYNAMODB_REQUEST_TIMEOUT_MS | the stack, on request paths | patient timeouts (lib/storage/client.ts) |
 * | LEGAL_ENTITY_SECRET_ARN           | the stack                                | LEGAL_ENTITY_SECRET (lib/legal-entities/ids.ts) |
 * | LEGAL_ENTITY_SECRET               | a developer, the tests                   | the local constant on a DYNAMODB_ENDPOINT, else fails |
 * | AWS_ENDPOINT_URL_S3               | the local import (s3rver)                | S3 with virtual-hosted URLs              |
 * | USAGE_METER                       | the stack (usage function): `api-gateway` | the local gateway's counts (lib/usage)  |
 * | AWS_ENDPOINT_URL_API_GATEWAY      | a test (a stand-in for API Gateway)      | the region's API Gateway endpoint        |
 * | WEBHOOK_KMS_KEY_ID                | the stack (webhook functions)            | the local key on a DYNAMODB_ENDPOINT, else fails |
 * | WEBHOOK_LOCAL_KEY                 | a developer (base64 of 32 bytes)         | a fixed development key (local stage only) |
 * | WEBHOOK_RETRY_SCALE               | the tests (e.g. 0.001: 5 min → 0.3 s)    | 1: the contract's retry schedule          |
 * | WEBHOOK_TIMEOUT_MS                | the tests (a receiver that never answers) | 10,000: the contract's 10 s            |
 * | WEBHOOK_QUEUE_URL                 | the stack (functions that enqueue deliveries) | deliveries wait in the table for the local poller |
 * | FAN_OUT_QUEUE_URL                 | the stack (the import, the fan-out's sweep) | no announcement: the local fan-out polls |
 * | REQUEST_LOG_SAMPLE_RATE           | the stack (route functions: 0.01)         | 1: every request logs its line (lib/http/endpoint.ts) |
 * | SMART_LISTS_MAX_COMPANIES         | the tests (a low bound)                   | 1,000,000: the contract's bound per account (§7.6) |
 * | SMART_LISTS_EVALUATE_AT_ONCE      | the tests (small numbers)                 | 10,000: companies a request reads (NEW members, filter profiles), so enters or takes out |
 * | SMART_LISTS_TURN_COMPANIES        | the tests (small numbers)                 | 10,000: filter profiles (or members) one turn of the smart-list worker reads |
 */

/** Set to `true` where IAM enforces each function's declared storage access (lib/storage/access.ts). */
export const ACCESS_ENFORCED_BY_IAM = 'STORAGE_ACCESS_ENFORCED_BY_IAM';

export const TIMEOUT_VARIABLES = {
  connectionMs: 'DYNAMODB_CONNECTION_TIMEOUT_MS',
  requestMs: 'DYNAMODB_REQUEST_TIMEOUT_MS',
} as const;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} environment variable is not set`);
  return value;
}

/** A positive number, or undefined when unset or not one (the caller's default applies). */
function positiveNumber(name: string): number | undefined {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

export const REQUEST_LOG_SAMPLE_RATE = 'REQUEST_LOG_SAMPLE_RATE';

export const config = {
  tableName: (): string => required('TABLE_NAME'),
  /** A DynamoDB endpoint of its own (DynamoDB Local): also what marks a local stage or a test. */
  dynamodbEndpoint: (): string | undefined => process.env['DYNAMODB_ENDPOINT'] || undefined,
  /** The region named to a DynamoDB endpoint of its own. */
  endpointRegion: (): string => process.env['AWS_REGION'] ?? 'local',
  storageAccessEnforcedByIam: (): boolean => process.env[ACCESS_ENFORCED_BY_IAM] === 'true',
  storageTimeouts: () => ({
    connectionMs: positiveNumber(TIMEOUT_VARIABLES.connectionMs),
    requestMs: positiveNumber(TIMEOUT_VARIABLES.requestMs),
  }),
  legalEntitySecretArn: (): string | undefined => process.env['LEGAL_ENTITY_SECRET_ARN'] || undefined,
  /** An empty value counts as set (and is refused as a secret). */
  legalEntitySecret: (): string | undefined => process.env['LEGAL_ENTITY_SECRET'],
  /** An S3 endpoint of its own (s3rver) takes path-style URLs. */
  s3PathStyle: (): boolean => Boolean(process.env['AWS_ENDPOINT_URL_S3']),
  /** The share of answered requests (2xx, 3xx, in time) that log their line; failed and slow ones always do. */
  requestLogSampleRate: (): number => {
    // Unset, empty or no number from 0 to 1: every request.
    const rate = Number(process.env[REQUEST_LOG_SAMPLE_RATE] || 1);
    return rate >= 0 && rate <= 1 ? rate : 1;
  },
};

/**
 * What the webhook code alone reads (contract §12): apart from `config`, so the functions that never
 * touch webhooks do not bundle it (an object's properties are all kept once it is).
 */
export const webhookConfig = {
  kmsKeyId: (): string | undefined => process.env['WEBHOOK_KMS_KEY_ID'] || undefined,
  localKey: (): string | undefined => process.env['WEBHOOK_LOCAL_KEY'] || undefined,
  /** Multiplies every wait of the retry schedule (tests compress it; never below 0). */
  retryScale: (): number => positiveNumber('WEBHOOK_RETRY_SCALE') ?? 1,
  timeoutMs: (): number => positiveNumber('WEBHOOK_TIMEOUT_MS') ?? 10_000,
  queueUrl: (): string | undefined => process.env['WEBHOOK_QUEUE_URL'] || undefined,
  fanOutQueueUrl: (): string | undefined => process.env['FAN_OUT_QUEUE_URL'] || undefined,
};

/** What `GET /v1/usage` alone reads: apart from `config`, so no other function bundles it. */
export const usageConfig = {
  /** Where today's count comes from: API Gateway's usage plans on a deployed stage. */
  fromApiGateway: (): boolean => process.env['USAGE_METER'] === 'api-gateway',
  /** Another endpoint for API Gateway's own API (the SDK's variable for it). */
  apiGatewayEndpoint: (): string | undefined => process.env['AWS_ENDPOINT_URL_API_GATEWAY'] || undefined,
};

/**
 * Lower bounds for the smart lists (contract §7.6), for tests: apart from `config`, so only the list
 * functions bundle it. Undefined when unset: the domain's own numbers apply (lib/lists).
 */
export const smartListConfig = {
  /** Companies an account's smart lists hold together, at most. */
  maxCompanies: (): number | undefined => positiveNumber('SMART_LISTS_MAX_COMPANIES'),
  /** Companies a create or filter change reads (NEW members, filter profiles) in the request; the rest in the background. */
  evaluateAtOnce: (): number | undefined => positiveNumber('SMART_LISTS_EVALUATE_AT_ONCE'),
  /** What one turn of the background worker reads: filter profiles, or a list's NEW members. */
  turnCompanies: (): number | undefined => positiveNumber('SMART_LISTS_TURN_COMPANIES'),
};
