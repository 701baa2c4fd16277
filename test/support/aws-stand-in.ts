/**
 * A stand-in for the AWS services the webhook functions call on AWS only — SQS (SendMessageBatch) and
 * KMS (Encrypt, Decrypt) — on 127.0.0.1, speaking their JSON protocols as lib/webhooks/aws-json.ts
 * does. It keeps every message for the test to read, "encrypts" by wrapping the plaintext with its key
 * and encryption context (Decrypt refuses another context, as KMS does), and can be told to throttle
 * the next requests. Call at the top level of a test file; AWS_ENDPOINT_URL_SQS and
 * AWS_ENDPOINT_URL_KMS point the calls at it. Nothing leaves this machine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentMessage {
  queueUrl: string;
  body: string;
  delaySeconds?: number;
  groupId?: string;
  deduplicationId?: string;
}

export interface AwsStandIn {
  sent: SentMessage[];
  /** Requests answered, by `X-Amz-Target` (throttled ones too). */
  requests: string[];
  /** A queue's URL on the stand-in (set once it listens). */
  queueUrl: (name: string) => string;
  /** The next `n` requests are answered 400 ThrottlingException. */
  throttleNext: (n: number) => void;
}

type Body = Record<string, unknown>;

export function useAwsStandIn(): AwsStandIn {
  const sent: SentMessage[] = [];
  const requests: string[] = [];
  let throttled = 0;
  let base = '';
  const operations: Record<string, (input: Body) => [number, unknown]> = {
    'AmazonSQS.SendMessageBatch': (input) => {
      const entries = input['Entries'] as Array<Record<string, unknown>>;
      for (const e of entries) {
        sent.push({
          queueUrl: String(input['QueueUrl']),
          body: String(e['MessageBody']),
          ...(e['DelaySeconds'] !== undefined ? { delaySeconds: Number(e['DelaySeconds']) } : {}),
          ...(e['MessageGroupId'] !== undefined ? { groupId: String(e['MessageGroupId']) } : {}),
          ...(e['MessageDeduplicationId'] !== undefined
            ? { deduplicationId: String(e['MessageDeduplicationId']) }
            : {}),
        });
      }
      return [
        200,
        { Successful: entries.map((e) => ({ Id: e['Id'], MessageId: `m-${sent.length}` })), Failed: [] },
      ];
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
      const target = String(request.headers['x-amz-target']);
      requests.push(target);
      const answer = (status: number, body: unknown) =>
        response
          .writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0' })
          .end(JSON.stringify(body));
      if (!String(request.headers['authorization']).startsWith('AWS4-HMAC-SHA256 Credential=')) {
        return answer(403, { __type: 'MissingAuthenticationToken', message: 'stand-in: not signed' });
      }
      if (throttled > 0) {
        throttled--;
        return answer(400, { __type: 'com.amazonaws.stand-in#ThrottlingException', message: 'slow down' });
      }
      const operation = operations[target];
      if (!operation) return answer(400, { __type: 'UnknownOperationException', message: target });
      answer(...operation(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body));
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
  };
}
