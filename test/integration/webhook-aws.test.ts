/**
 * The AWS side of webhook delivery (contract §12), against a stand-in for SQS and KMS on 127.0.0.1
 * (test/support/aws-stand-in.ts) and DynamoDB Local: an import batch announces the accounts it wrote
 * events for on the FIFO fan-out queue (one message per account, grouped by account); the fan-out,
 * invoked by that queue, queues the announced accounts' events and no one else's; its minute's sweep
 * announces every account with an endpoint; the delivery function, invoked by the delivery queue,
 * delivers a batch, sends a job due later on to the queue with SQS's longest delay, and hands back the
 * one message it could not take; secrets are sealed by KMS under their account and endpoint and opened
 * by the delivery to sign; a throttled call is made again, another error surfaces by its type, messages
 * SQS refused are sent again. The calls are the SDK's own clients' (KMS, SQS): the stand-in checks each
 * one's protocol and signature.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { handler as deliverHandler } from '../../functions/deliver-webhooks';
import { handler as fanOutHandler } from '../../functions/fan-out-webhook-events';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { lastEventNumber } from '../../lib/events/store';
import type { Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';
import { announceEvents } from '../../lib/webhooks/announce';
import { getDeliveries } from '../../lib/webhooks/deliveries';
import { takeDueDeliveries } from '../../lib/webhooks/queue';
import { secretBox } from '../../lib/webhooks/secrets';
import { MAX_DELAY_SECONDS } from '../../lib/webhooks/sqs-queue';
import { getWebhook } from '../../lib/webhooks/store';
import { createWebhook } from '../../lib/webhooks/webhooks';
import { bareCompany, importRecords, withPeriod } from '../support/records';
import { watchCompanies } from '../support/watched';
import { useAwsStandIn } from '../support/aws-stand-in';
import { useFreshTable } from '../support/table';

useFreshTable();
const aws = useAwsStandIn();
jest.setTimeout(120_000);

const received: Array<{ id: string; signature: string; timestamp: string; body: string }> = [];
const receiver = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (c: Buffer) => chunks.push(c));
  request.on('end', () => {
    received.push({
      id: String(request.headers['webhook-id']),
      signature: String(request.headers['webhook-signature']),
      timestamp: String(request.headers['webhook-timestamp']),
      body: Buffer.concat(chunks).toString('utf8'),
    });
    response.writeHead(204).end();
  });
});
let hookUrl = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});
afterEach(() => {
  delete process.env['FAN_OUT_QUEUE_URL'];
  delete process.env['WEBHOOK_QUEUE_URL'];
  delete process.env['WEBHOOK_KMS_KEY_ID'];
  aws.sent.length = 0;
});

const LOCAL = { allowLocal: true, resolve: async () => ['127.0.0.1'] };
const account = (name: string): Caller => ({
  accountId: name,
  userEmail: `x@${name}.example`,
  scopes: [...SCOPES],
});

let number = 73_000_000;
/** `count` companies in a watched list of each account, imported with a first period. */
async function watchedCompanies(callers: Caller[], count: number): Promise<CompanyRecordInput[]> {
  const records = Array.from({ length: count }, () => bareCompany(number++));
  await load(records);
  for (const caller of callers) await watchCompanies(caller, records);
  return records;
}

/** A new period for each: one event per company and watching account. */
const publish = (records: CompanyRecordInput[]) => load(withPeriod(records, 2022));

const load = (records: CompanyRecordInput[]) => importRecords(records, { batchSize: 50 });

const record = (body: string, messageId: string): SQSRecord => ({ body, messageId }) as SQSRecord;

it('announces the accounts of each import batch that wrote events, one message per account grouped by it', async () => {
  const [a, b] = [account('announce-a'), account('announce-b')];
  const records = await watchedCompanies([a, b], 60);
  process.env['FAN_OUT_QUEUE_URL'] = aws.queueUrl('fan-out.fifo');
  await publish(records);

  // Two batches (50 + 10 companies), each announcing both accounts once.
  expect(aws.sent).toHaveLength(4);
  for (const message of aws.sent) {
    expect(message.queueUrl).toBe(aws.queueUrl('fan-out.fifo'));
    expect(message.groupId).toBe((JSON.parse(message.body) as { accountId: string }).accountId);
  }
  expect(aws.sent.map((m) => m.groupId).sort()).toEqual([a.accountId, a.accountId, b.accountId, b.accountId]);
  // Each batch and account its own deduplication id: SQS drops a repeat, never a later batch's.
  expect(new Set(aws.sent.map((m) => m.deduplicationId)).size).toBe(4);
});

it('does not fail an import batch whose announcement SQS kept refusing: its events are written, the sweep finds them', async () => {
  const watcher = account('announce-refused');
  const records = await watchedCompanies([watcher], 5);
  process.env['FAN_OUT_QUEUE_URL'] = aws.queueUrl('fan-out.fifo');
  const warned: string[] = [];
  const warnings = jest.spyOn(console, 'warn').mockImplementation((line: string) => void warned.push(line));
  try {
    aws.throttleNext(3);
    const summary = await publish(records);
    expect(summary.updates).toBe(5);
  } finally {
    aws.throttleNext(0);
    warnings.mockRestore();
  }
  expect(aws.sent).toEqual([]);
  expect(warned.map((line) => JSON.parse(line) as unknown)).toContainEqual({
    level: 'WARN',
    message: 'events not announced to the fan-out',
    error: { name: 'ThrottlingException', message: 'slow down' },
  });
  expect(await lastEventNumber(watcher.accountId)).toBe(5);
});

it('sends the same deduplication id for the same occasion and account (a retried batch)', async () => {
  process.env['FAN_OUT_QUEUE_URL'] = aws.queueUrl('fan-out.fifo');
  await announceEvents(['x', 'y', 'x'], 'change-1');
  await announceEvents(['x'], 'change-1');
  await announceEvents(['x'], 'change-2');
  const ids = aws.sent.map((m) => `${m.groupId} ${m.deduplicationId}`);
  expect(ids).toHaveLength(4);
  expect(ids[2]).toBe(ids[0]);
  expect(ids[3]).not.toBe(ids[0]);
});

it("queues the announced accounts' events and no one else's; the sweep announces every account with an endpoint", async () => {
  const [a, b] = [account('fan-out-a'), account('fan-out-b')];
  const { body: hookA } = await createWebhook(a, { url: hookUrl }, LOCAL);
  const { body: hookB } = await createWebhook(b, { url: hookUrl }, LOCAL);
  await publish(await watchedCompanies([a, b], 20));

  const announced: SQSEvent = { Records: [record(JSON.stringify({ accountId: a.accountId }), 'm1')] };
  expect(await fanOutHandler(announced)).toEqual({ queued: 20 });
  expect((await getWebhook(a.accountId, hookA.id))!.cursor).toBe(20);
  expect((await getWebhook(b.accountId, hookB.id))!.cursor).toBe(0);
  const jobs = await takeDueDeliveries(Date.now(), 1000);
  expect(new Set(jobs.map((j) => j.job.accountId))).toEqual(new Set([a.accountId]));
  expect(jobs).toHaveLength(20);

  // The minute's schedule on AWS: announcements only, each account once, nothing queued by itself.
  process.env['FAN_OUT_QUEUE_URL'] = aws.queueUrl('fan-out.fifo');
  expect(await fanOutHandler()).toEqual({ queued: 0 });
  expect(aws.sent.map((m) => m.groupId).sort()).toEqual([a.accountId, b.accountId]);
  expect((await getWebhook(b.accountId, hookB.id))!.cursor).toBe(0);
});

it('delivers a batch from the queue, sends a job due later on, and hands back the message it cannot take', async () => {
  const caller = account('sqs-delivery');
  const { body: endpoint } = await createWebhook(caller, { url: hookUrl }, LOCAL);
  process.env['WEBHOOK_QUEUE_URL'] = aws.queueUrl('deliveries');
  const now = Date.now();
  const job = (eventId: string, dueMs: number) =>
    JSON.stringify({
      job: {
        accountId: caller.accountId,
        webhookId: endpoint.id,
        eventId,
        attempt: 1,
        body: JSON.stringify({ id: eventId, type: 'webhook.test' }),
      },
      dueMs,
    });
  const before = received.length;
  const answer = await deliverHandler({
    Records: [
      record(job('evt_now_1', now), 'r1'),
      record(job('evt_now_2', now), 'r2'),
      record(job('evt_later', now + 2 * 60 * 60 * 1000), 'r3'),
      record('{not json', 'r4'),
    ],
  });

  expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'r4' }] });
  const arrived = received.slice(before);
  expect(arrived.map((r) => r.id).sort()).toEqual(['evt_now_1', 'evt_now_2']);
  const verifier = new Webhook(endpoint.secret);
  for (const r of arrived) {
    expect(() =>
      verifier.verify(r.body, {
        'webhook-id': r.id,
        'webhook-timestamp': r.timestamp,
        'webhook-signature': r.signature,
      }),
    ).not.toThrow();
  }
  expect(aws.sent).toHaveLength(1);
  expect(aws.sent[0]).toMatchObject({
    queueUrl: aws.queueUrl('deliveries'),
    delaySeconds: MAX_DELAY_SECONDS,
    // The delivery queue is a fair queue: its messages are grouped by account (the tenant).
    groupId: caller.accountId,
  });
  expect(JSON.parse(aws.sent[0]!.body)).toMatchObject({ job: { eventId: 'evt_later' } });
  const log = await getDeliveries(caller.accountId, endpoint.id, { limit: 10, offset: 0 });
  expect(log.data.map((d) => [d.eventId, d.status]).sort()).toEqual([
    ['evt_now_1', 'delivered'],
    ['evt_now_2', 'delivered'],
  ]);
});

it("queues a failed attempt's retry on SQS when the attempt ends: grouped by its account, delayed about 5 s", async () => {
  const failing = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  try {
    const caller = account('sqs-retry');
    const url = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/hook`;
    const { body: endpoint } = await createWebhook(caller, { url }, LOCAL);
    process.env['WEBHOOK_QUEUE_URL'] = aws.queueUrl('deliveries');
    const due = {
      job: {
        accountId: caller.accountId,
        webhookId: endpoint.id,
        eventId: 'evt_retried',
        attempt: 1,
        body: JSON.stringify({ id: 'evt_retried', type: 'company.update' }),
      },
      dueMs: Date.now(),
    };

    expect(await deliverHandler({ Records: [record(JSON.stringify(due), 'm1')] })).toEqual({
      batchItemFailures: [],
    });

    expect(aws.sent).toHaveLength(1);
    const [retry] = aws.sent;
    expect(retry).toMatchObject({ queueUrl: aws.queueUrl('deliveries'), groupId: caller.accountId });
    expect(retry!.delaySeconds).toBeGreaterThanOrEqual(4);
    expect(retry!.delaySeconds).toBeLessThanOrEqual(6);
    expect(JSON.parse(retry!.body)).toMatchObject({ job: { eventId: 'evt_retried', attempt: 2 } });
  } finally {
    failing.closeAllConnections();
    await new Promise<void>((resolve) => failing.close(() => resolve()));
  }
});

describe('secrets sealed by KMS', () => {
  const KEY = 'arn:aws:kms:local:000000000000:key/stand-in';

  it('seals a secret under its account and endpoint; the delivery opens it to sign', async () => {
    process.env['WEBHOOK_KMS_KEY_ID'] = KEY;
    const caller = account('kms-sealed');
    const { body: endpoint } = await createWebhook(caller, { url: hookUrl }, LOCAL);
    const stored = await getWebhook(caller.accountId, endpoint.id);
    expect(stored!.secrets).toHaveLength(1);
    expect(stored!.secrets[0]!.sealed).toMatch(/^kms:/);
    expect(JSON.stringify(stored)).not.toContain(endpoint.secret);
    expect(
      await secretBox().open(stored!.secrets[0]!.sealed, {
        accountId: caller.accountId,
        webhookId: endpoint.id,
      }),
    ).toBe(endpoint.secret);
    // Copied to another endpoint, it does not open.
    await expect(
      secretBox().open(stored!.secrets[0]!.sealed, { accountId: caller.accountId, webhookId: 'wh_other' }),
    ).rejects.toMatchObject({ name: 'InvalidCiphertextException', $metadata: { httpStatusCode: 400 } });

    process.env['WEBHOOK_QUEUE_URL'] = aws.queueUrl('deliveries');
    const before = received.length;
    const body = JSON.stringify({ id: 'evt_kms', type: 'webhook.test' });
    const job = { accountId: caller.accountId, webhookId: endpoint.id, eventId: 'evt_kms', attempt: 1, body };
    expect(
      await deliverHandler({ Records: [record(JSON.stringify({ job, dueMs: Date.now() }), 'k1')] }),
    ).toEqual({
      batchItemFailures: [],
    });
    const [arrived] = received.slice(before);
    expect(
      new Webhook(endpoint.secret).verify(arrived!.body, {
        'webhook-id': arrived!.id,
        'webhook-timestamp': arrived!.timestamp,
        'webhook-signature': arrived!.signature,
      }),
    ).toEqual(JSON.parse(body));
  });
});

describe('calls to AWS', () => {
  it('makes a throttled call again, up to 3 attempts in all', async () => {
    process.env['FAN_OUT_QUEUE_URL'] = aws.queueUrl('fan-out.fifo');
    const made = aws.requests.length;
    aws.throttleNext(2);
    await announceEvents(['throttled'], 'x');
    expect(aws.requests.slice(made)).toEqual(Array(3).fill('AmazonSQS.SendMessageBatch'));
    expect(aws.sent.map((m) => m.groupId)).toEqual(['throttled']);

    aws.throttleNext(3);
    await expect(announceEvents(['throttled'], 'y')).rejects.toMatchObject({ name: 'ThrottlingException' });
    aws.throttleNext(0);
  });

  it('surfaces an error AWS answered by its type, without trying again', async () => {
    process.env['WEBHOOK_KMS_KEY_ID'] = 'arn:aws:kms:local:000000000000:key/stand-in';
    const context = { accountId: 'kms-error', webhookId: 'wh_1' };
    const sealed = await secretBox().seal('whsec_x', context);
    const made = aws.requests.length;
    await expect(secretBox().open(sealed, { ...context, webhookId: 'wh_2' })).rejects.toMatchObject({
      name: 'InvalidCiphertextException',
      $metadata: { httpStatusCode: 400 },
    });
    expect(aws.requests.slice(made)).toEqual(['TrentService.Decrypt']);
  });

  it('sends again, after a wait, the messages SQS refused, and only those', async () => {
    process.env['FAN_OUT_QUEUE_URL'] = aws.queueUrl('fan-out.fifo');
    const made = aws.requests.length;
    aws.refuseNext(2);
    await announceEvents(['r1', 'r2', 'r3'], 'refused');
    // One send of three (two refused), one of the two again.
    expect(aws.requests.slice(made)).toEqual(Array(2).fill('AmazonSQS.SendMessageBatch'));
    expect(aws.sent.map((m) => m.groupId).sort()).toEqual(['r1', 'r2', 'r3']);
  });

  it('gives up on messages SQS keeps refusing, naming why', async () => {
    process.env['FAN_OUT_QUEUE_URL'] = aws.queueUrl('fan-out.fifo');
    const made = aws.requests.length;
    aws.refuseNext(5);
    await expect(announceEvents(['refused'], 'again')).rejects.toMatchObject({
      name: 'MessagesRefusedError',
      failed: [{ Code: 'InternalError', SenderFault: false }],
    });
    expect(aws.requests.length - made).toBe(5);
    expect(aws.sent).toEqual([]);
    aws.refuseNext(0);
  });

  it('the stand-in refuses a request whose signature is not the one the key gives', async () => {
    const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
    const response = await fetch(aws.queueUrl('deliveries'), {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'AmazonSQS.SendMessageBatch',
        'x-amz-date': amzDate,
        authorization: `AWS4-HMAC-SHA256 Credential=AWS-STAND-IN/${amzDate.slice(0, 8)}/local/sqs/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=${'0'.repeat(64)}`,
      },
      body: JSON.stringify({
        QueueUrl: aws.queueUrl('deliveries'),
        Entries: [{ Id: '0', MessageBody: 'x' }],
      }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      __type: 'InvalidSignatureException',
      message: 'the signature does not match',
    });
    expect(aws.sent).toEqual([]);
  });
});
