/**
 * The AWS calls of the webhook functions — KMS Encrypt and Decrypt (lib/webhooks/secrets.ts), SQS
 * SendMessageBatch (lib/webhooks/sqs-queue.ts) — made as the SDK makes them: a POST of JSON to the
 * service's regional endpoint (`X-Amz-Target` names the operation), signed with Signature Version 4 by
 * the SDK's own signer, with the function's role credentials from its environment.
 *
 * Why not the SDK's KMS and SQS clients: each carries its service's whole model (every error class and
 * shape, about 25 KB minified apiece), which put the delivery function at 272 KB against its 250 KB
 * budget, loaded at every cold start for three operations. The protocol is small and stable; the
 * signer, the hashing and the credentials stay the SDK's.
 *
 * Retries as the SDK's standard mode: 3 attempts at most, again after a throttle, a 5xx or a failed
 * connection, with full-jitter backoff; 10 s per attempt. AWS_ENDPOINT_URL_KMS / AWS_ENDPOINT_URL_SQS
 * (the SDK's own variables) point a service elsewhere: the tests' stand-ins on 127.0.0.1.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';

const SERVICES = {
  kms: {
    contentType: 'application/x-amz-json-1.1',
    prefix: 'TrentService',
    endpointVariable: 'AWS_ENDPOINT_URL_KMS',
  },
  sqs: {
    contentType: 'application/x-amz-json-1.0',
    prefix: 'AmazonSQS',
    endpointVariable: 'AWS_ENDPOINT_URL_SQS',
  },
} as const;
export type AwsService = keyof typeof SERVICES;

const ATTEMPTS = 3;
const ATTEMPT_TIMEOUT_MS = 10_000;
const BACKOFF_BASE_MS = 100;
/** Error types AWS answers a request it throttled with (also as a 400). */
const THROTTLES = new Set([
  'ThrottlingException',
  'RequestThrottled',
  'RequestLimitExceeded',
  'KMSInternalException',
]);

/** An error AWS answered: `name` is its type (e.g. `AccessDeniedException`), `status` the HTTP status. */
export class AwsError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const signers = new Map<AwsService, SignatureV4>();

/** Calls `operation` of `service` with `input`; answers the service's JSON answer. */
export async function callAws<T>(service: AwsService, operation: string, input: unknown): Promise<T> {
  const { contentType, prefix, endpointVariable } = SERVICES[service];
  const region = process.env['AWS_REGION'];
  if (!region) throw new Error('AWS_REGION environment variable is not set');
  const url = new URL(
    process.env[endpointVariable] ||
      `https://${service}.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}/`,
  );
  let signer = signers.get(service);
  if (!signer)
    signers.set(
      service,
      (signer = new SignatureV4({ service, region, credentials: fromEnv(), sha256: Sha256 })),
    );
  const body = JSON.stringify(input);
  for (let attempt = 1; ; attempt++) {
    const signed = await signer.sign(
      new HttpRequest({
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        path: url.pathname,
        headers: { host: url.host, 'content-type': contentType, 'x-amz-target': `${prefix}.${operation}` },
        body,
      }),
    );
    let failure: unknown;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: signed.headers,
        body,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      const text = await response.text();
      if (response.ok) return (text ? JSON.parse(text) : {}) as T;
      failure = awsError(response.status, text);
    } catch (error) {
      // A connection refused, reset or timed out: no answer to read.
      failure = error;
    }
    if (attempt === ATTEMPTS || !retryable(failure)) throw failure;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * BACKOFF_BASE_MS * 2 ** attempt));
  }
}

function awsError(status: number, text: string): AwsError {
  let answer: { __type?: string; message?: string; Message?: string } = {};
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  // `__type` may carry a namespace (`com.amazonaws.kms#NotFoundException`).
  const type = (answer.__type ?? `HTTP${status}`).split('#').pop()!;
  return new AwsError(type, answer.message ?? answer.Message ?? `AWS answered ${status}`, status);
}

function retryable(failure: unknown): boolean {
  if (!(failure instanceof AwsError)) return true;
  return failure.status >= 500 || failure.status === 429 || THROTTLES.has(failure.name);
}
