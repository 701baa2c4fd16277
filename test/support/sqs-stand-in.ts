/**
 * A stand-in for SQS on 127.0.0.1, for the code paths that run on AWS only (the webhook queues): it
 * answers `SendMessageBatch` in SQS's JSON protocol, as the SDK speaks it, and keeps every message for
 * the test to read. Call at the top level of a test file; AWS_ENDPOINT_URL_SQS points the SDK at it.
 * Nothing leaves this machine.
 */
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentMessage {
  queueUrl: string;
  body: string;
  delaySeconds?: number;
  groupId?: string;
  deduplicationId?: string;
}

interface BatchRequest {
  QueueUrl: string;
  Entries: Array<{
    Id: string;
    MessageBody: string;
    DelaySeconds?: number;
    MessageGroupId?: string;
    MessageDeduplicationId?: string;
  }>;
}

export interface SqsStandIn {
  sent: SentMessage[];
  /** A queue's URL on the stand-in (set once it listens). */
  queueUrl: (name: string) => string;
}

export function useSqsStandIn(): SqsStandIn {
  const sent: SentMessage[] = [];
  let base = '';
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const answer = (status: number, body: unknown) =>
        response
          .writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0' })
          .end(JSON.stringify(body));
      if (request.headers['x-amz-target'] !== 'AmazonSQS.SendMessageBatch') {
        return answer(400, { __type: 'com.amazonaws.sqs#UnsupportedOperation', message: 'stand-in' });
      }
      const { QueueUrl, Entries } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as BatchRequest;
      for (const entry of Entries) {
        sent.push({
          queueUrl: QueueUrl,
          body: entry.MessageBody,
          ...(entry.DelaySeconds !== undefined ? { delaySeconds: entry.DelaySeconds } : {}),
          ...(entry.MessageGroupId !== undefined ? { groupId: entry.MessageGroupId } : {}),
          ...(entry.MessageDeduplicationId !== undefined
            ? { deduplicationId: entry.MessageDeduplicationId }
            : {}),
        });
      }
      answer(200, {
        Successful: Entries.map((e) => ({
          Id: e.Id,
          MessageId: randomUUID(),
          // The SDK checks each body's MD5 against SQS's answer.
          MD5OfMessageBody: createHash('md5').update(e.MessageBody).digest('hex'),
        })),
        Failed: [],
      });
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.env['AWS_ENDPOINT_URL_SQS'] = base;
    // 'local', as the tests' DynamoDB Local clients: DynamoDB Local keeps tables per region.
    process.env['AWS_REGION'] ??= 'local';
    process.env['AWS_ACCESS_KEY_ID'] ??= 'SQS-STAND-IN';
    process.env['AWS_SECRET_ACCESS_KEY'] ??= 'SQS-STAND-IN';
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { sent, queueUrl: (name) => `${base}/000000000000/${name}` };
}
