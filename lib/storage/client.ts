/**
 * The DynamoDB client, built once per process and reused across invocations. Every HTTP attempt
 * the SDK makes is counted as a round trip for the request log. Throttling and unreachable storage
 * that outlast the SDK's own retries surface as 503 UNAVAILABLE, never as AWS text.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UnavailableError } from '../http/errors';
import { startDynamodbCall } from '../metrics';

const endpoint = process.env['DYNAMODB_ENDPOINT'];

function createClient(): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    maxAttempts: 3,
    ...(endpoint
      ? {
          endpoint,
          region: process.env['AWS_REGION'] ?? 'local',
          // DynamoDB Local accepts any credentials; these never reach AWS.
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
  });
  client.middlewareStack.add(
    (next) => async (args) => {
      const ended = startDynamodbCall();
      try {
        return await next(args);
      } finally {
        ended();
      }
    },
    // Innermost: wraps only the HTTP exchange (not the SDK's parsing), once per attempt (retries
    // happen further out), so every round trip counts.
    { step: 'deserialize', priority: 'low', name: 'roundTripCounter' },
  );
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

export const dynamodb = createClient();

export function tableName(): string {
  const name = process.env['TABLE_NAME'];
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}

const UNAVAILABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
]);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** Runs a storage call, turning "storage is busy or away" into a retryable 503. */
export async function send<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isUnavailable(error)) throw new UnavailableError();
    throw error;
  }
}

export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return UNAVAILABLE.has(error.name) || (typeof code === 'string' && NETWORK.has(code));
}
