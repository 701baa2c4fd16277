/**
 * A stand-in for the AWS services the functions call on AWS only — SQS (SendMessageBatch), KMS
 * (Encrypt, Decrypt) and API Gateway's GetUsage — on 127.0.0.1, speaking what the SDK's clients send:
 * SQS's AWS JSON 1.0 and KMS's AWS JSON 1.1 protocols (`X-Amz-Target` names the operation), API
 * Gateway's REST one (a GET of the plan's usage), each request's Signature Version 4
 * checked again with the SDK's own signer (`verifySigV4`, a 403 when it does not match). It keeps every
 * message for the test to read and answers each with the MD5 of its body (the SQS client checks it),
 * "encrypts" by wrapping the plaintext with its key and encryption context (Decrypt refuses another
 * context, as KMS does), and can be told to throttle the next requests or to refuse the next messages.
 * Call at the top level of a test file; AWS_ENDPOINT_URL_SQS and AWS_ENDPOINT_URL_KMS (the SDK's own
 * variables) point the clients at it. Nothing leaves this machine.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';

export interface SentMessage {
  queueUrl: string;
  body: string;
  delaySeconds?: number;
  groupId?: string;
  deduplicationId?: string;
}

export interface AwsStandIn {
  sent: SentMessage[];
  /** Requests answered, by `X-Amz-Target` (throttled and refused ones too). */
  requests: string[];
  /** A queue's URL on the stand-in (set once it listens). */
  queueUrl: (name: string) => string;
  /** The next `n` requests are answered 400 ThrottlingException. */
  throttleNext: (n: number) => void;
  /** The next `n` messages sent are refused (a failed entry, SQS's fault): the sender may send them again. */
  refuseNext: (n: number) => void;
  /** API Gateway's count of today's requests, by API key id (GetUsage answers it; 0 for another key). */
  usage: Record<string, number>;
  /** Where the stand-in listens (set once it listens): AWS_ENDPOINT_URL_API_GATEWAY for a test that counts usage. */
  endpoint: () => string;
}

/** The credentials the SDK's clients sign with: those of the environment (set in `useAwsStandIn`, unless a test set them). */
const environmentCredentials = () => ({
  accessKeyId: String(process.env['AWS_ACCESS_KEY_ID']),
  secretAccessKey: String(process.env['AWS_SECRET_ACCESS_KEY']),
});

/**
 * Whether a request carries the Signature Version 4 that the SDK's signer computes for it with
 * `credentials`: the signed headers as sent, the scope's date, region and service, and a payload hash
 * (`x-amz-content-sha256`, when sent) that is the body's. Answers why not, or null when it matches.
 */
export async function verifySigV4(
  request: http.IncomingMessage,
  body: string,
  credentials: { accessKeyId: string; secretAccessKey: string } = environmentCredentials(),
): Promise<string | null> {
  const authorization = String(request.headers['authorization'] ?? '');
  const parts =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/.exec(
      authorization,
    );
  if (!parts) return `not a SigV4 authorization: ${authorization}`;
  const [, keyId, , region, service, signedHeaders] = parts;
  if (keyId !== credentials.accessKeyId) return `signed with another key: ${keyId}`;
  const payloadHash = request.headers['x-amz-content-sha256'];
  if (payloadHash !== undefined && payloadHash !== createHash('sha256').update(body).digest('hex')) {
    return 'x-amz-content-sha256 is not the hash of the body';
  }
  const amzDate = String(request.headers['x-amz-date']);
  const signingDate = new Date(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
  );
  if (Number.isNaN(signingDate.getTime())) return `no x-amz-date: ${amzDate}`;
  const url = new URL(request.url ?? '/', 'http://stand-in');
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  const headers = Object.fromEntries(
    signedHeaders!.split(';').map((name) => [name, String(request.headers[name] ?? '')]),
  );
  const signer = new SignatureV4({ service: service!, region: region!, credentials, sha256: Sha256 });
  const expected = await signer.sign(
    {
      method: request.method ?? 'GET',
      protocol: 'http:',
      hostname: url.hostname,
      path: url.pathname,
      query,
      headers,
      body,
    },
    { signingDate, signingRegion: region!, signingService: service! },
  );
  return expected.headers['authorization'] === authorization ? null : 'the signature does not match';
}

type Body = Record<string, unknown>;

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** What each operation's requests are sent as (the protocol of its service). */
const CONTENT_TYPES: Record<string, string> = {
  AmazonSQS: 'application/x-amz-json-1.0',
  TrentService: 'application/x-amz-json-1.1',
};

export function useAwsStandIn(): AwsStandIn {
  const sent: SentMessage[] = [];
  const requests: string[] = [];
  let throttled = 0;
  let refused = 0;
  let base = '';
  const usage: Record<string, number> = {};
  /** API Gateway's GetUsage (REST, JSON): the counts of the key asked for, under `values` as the service sends them. */
  const getUsage = (url: URL): [number, unknown] => {
    const plan = /^\/usageplans\/([^/]+)\/usage$/.exec(url.pathname)?.[1];
    const key = url.searchParams.get('keyId');
    if (!plan || !key) return [404, { message: 'stand-in: no such resource' }];
    const [startDate, endDate] = [url.searchParams.get('startDate'), url.searchParams.get('endDate')];
    return [200, { usagePlanId: plan, startDate, endDate, values: { [key]: [[usage[key] ?? 0, 1000]] } }];
  };
  const operations: Record<string, (input: Body) => [number, unknown]> = {
    'AmazonSQS.SendMessageBatch': (input) => {
      const entries = input['Entries'] as Array<Record<string, unknown>>;
      const successful: unknown[] = [];
      const failed: unknown[] = [];
      for (const e of entries) {
        if (refused > 0) {
          refused--;
          failed.push({
            Id: e['Id'],
            SenderFault: false,
            Code: 'InternalError',
            Message: 'stand-in: refused',
          });
          continue;
        }
        sent.push({
          queueUrl: String(input['QueueUrl']),
          body: String(e['MessageBody']),
          ...(e['DelaySeconds'] !== undefined ? { delaySeconds: Number(e['DelaySeconds']) } : {}),
          ...(e['MessageGroupId'] !== undefined ? { groupId: String(e['MessageGroupId']) } : {}),
          ...(e['MessageDeduplicationId'] !== undefined
            ? { deduplicationId: String(e['MessageDeduplicationId']) }
            : {}),
        });
        successful.push({
          Id: e['Id'],
          MessageId: `m-${sent.length}`,
          MD5OfMessageBody: md5(String(e['MessageBody'])),
        });
      }
      return [200, { Successful: successful, Failed: failed }];
    },
    'TrentService.Encrypt': (input) => {
      const wrapped = JSON.stringify({
        key: input['KeyId'],
        context: input['EncryptionContext'],
        plain: input['Plaintext'],
      });
      return [200, { CiphertextBlob: Buffer.from(wrapped).toString('base64'), KeyId: input['KeyId'] }];
    },
    'TrentService.Decrypt': (input) => {
      const wrapped = JSON.parse(Buffer.from(String(input['CiphertextBlob']), 'base64').toString()) as Body;
      if (
        JSON.stringify(wrapped['context']) !== JSON.stringify(input['EncryptionContext']) ||
        wrapped['key'] !== input['KeyId']
      ) {
        return [400, { __type: 'InvalidCiphertextException', message: 'stand-in: another key or context' }];
      }
      return [200, { Plaintext: wrapped['plain'], KeyId: wrapped['key'] }];
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      const rest = request.method === 'GET';
      const target = rest ? 'APIGateway.GetUsage' : String(request.headers['x-amz-target']);
      requests.push(target);
      const contentType = rest
        ? 'application/json'
        : (CONTENT_TYPES[target.split('.')[0]!] ?? 'application/x-amz-json-1.0');
      const answer = (status: number, body: unknown) =>
        response.writeHead(status, { 'Content-Type': contentType }).end(JSON.stringify(body));
      const text = Buffer.concat(chunks).toString('utf8');
      void verifySigV4(request, text).then(
        (unsigned) => {
          if (unsigned) return answer(403, { __type: 'InvalidSignatureException', message: unsigned });
          if (rest) return answer(...getUsage(url));
          if (request.headers['content-type'] !== contentType) {
            return answer(400, { __type: 'SerializationException', message: 'stand-in: content type' });
          }
          if (throttled > 0) {
            throttled--;
            return answer(400, {
              __type: 'com.amazonaws.stand-in#ThrottlingException',
              message: 'slow down',
            });
          }
          const operation = operations[target];
          if (!operation) return answer(400, { __type: 'UnknownOperationException', message: target });
          answer(...operation(JSON.parse(text) as Body));
        },
        (error: unknown) => answer(500, { __type: 'InternalFailure', message: String(error) }),
      );
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.env['AWS_ENDPOINT_URL_SQS'] = base;
    process.env['AWS_ENDPOINT_URL_KMS'] = base;
    // 'local', as the tests' DynamoDB Local clients: DynamoDB Local keeps tables per region.
    process.env['AWS_REGION'] ??= 'local';
    process.env['AWS_ACCESS_KEY_ID'] ??= 'AWS-STAND-IN';
    process.env['AWS_SECRET_ACCESS_KEY'] ??= 'AWS-STAND-IN';
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    sent,
    requests,
    queueUrl: (name) => `${base}/000000000000/${name}`,
    throttleNext: (n) => void (throttled = n),
    refuseNext: (n) => void (refused = n),
    usage,
    endpoint: () => base,
  };
}
