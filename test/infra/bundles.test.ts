/**
 * Every function as the stack bundles it (infra/bundling.ts through the bench's build options): each
 * route, the authorizer and every background worker is built, loaded by a bare `node` (as Lambda loads
 * it: nothing of jest or ts-jest) and its handler called once, against DynamoDB Local, a local S3 and
 * the AWS stand-in for SQS and KMS. A bundle that does not load, or whose dependencies fail once bundled
 * (an SDK client, middy, a lazily loaded module), fails here rather than after a deploy.
 *
 * A route gets the smallest request its path takes (sample path parameters; `{}` as a body): it must
 * answer, 2xx or a 4xx in the contract's shape, never throw nor answer 5xx. The webhook POST seals its
 * secret with KMS; the workers run for real: the import's steps one after the other on a small file
 * (as its state machine chains them), the fan-out's sweep announcing on SQS, a delivery batch opening
 * the secret with KMS and sending a job due later on to SQS. What the bundles carry (each route's own
 * endpoint parts, keys and schemas) is test/infra/bundle-contents.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, stop } from 'esbuild';
import yazl from 'yazl';
import { importBucket } from '../../lib/import/bucket';
import { routes, workers, type RouteId, type WorkerId } from '../../lib/routes';
import { createToken } from '../../lib/tokens/tokens';
import { putAccountPlan } from '../../lib/usage/store';
import { SCOPES } from '../../lib/tokens/scopes';
import { buildFunctions, buildOptions, type FunctionBundle } from '../bench/bundles';
import type { FunctionId } from '../bench/bench-case';
import { useAwsStandIn } from '../support/aws-stand-in';
import { answerOf, bundleCaller } from '../support/bundle-caller';
import { ALICE, proxyEvent } from '../support/events';
import { generateDemoData } from '../fixtures/demo-data/companies';
import { useLocalS3 } from '../support/local-s3';
import { useFreshTable } from '../support/table';

const ROOT = path.join(__dirname, '..', '..');
const BUCKET = 'bundles-test-imports';
const KMS_KEY = 'arn:aws:kms:local:000000000000:key/bundles-test';

useFreshTable();
// The local S3 first: it takes the credentials the SDK clients sign with, which the AWS stand-in checks.
useLocalS3(BUCKET);
const aws = useAwsStandIn();
jest.setTimeout(300_000);

const dir = mkdtempSync(path.join(os.tmpdir(), 'bundles-'));
const callBundle = bundleCaller(dir);
const received: string[] = [];
const receiver = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received.push(String(request.headers['webhook-id']));
    response.writeHead(204).end();
  });
});
let hookUrl = '';

let built: Record<FunctionId, FunctionBundle>;
const workerBundles = {} as Record<WorkerId, string>;
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  built = await buildFunctions(dir);
  await Promise.all(
    (Object.keys(workers) as WorkerId[]).map(async (id) => {
      const outfile = path.join(dir, `${id}.js`);
      await build({ ...buildOptions(outfile), entryPoints: [path.join(ROOT, workers[id].entry)] });
      workerBundles[id] = outfile;
    }),
  );
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
  // esbuild's service process, which `build` started.
  await stop();
});

// ---- Routes and the authorizer -------------------------------------------------------------------

/** A value for each path parameter of the routes (a route with a new one fails until it is added here). */
const PATH_SAMPLES: Record<string, string> = {
  countryCode: 'BE',
  companyNumber: '0403170701',
  id: '1',
  legalEntityId: 'le_0000000000000000',
};

/** The smallest request a route takes: its path filled in, `{}` as the body of a method that has one. */
function smallestRequest(id: RouteId) {
  const { method, path: template, scope } = routes[id];
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const missing = names.filter((name) => !(name in PATH_SAMPLES));
  if (missing.length > 0) throw new Error(`${id}: no sample for path parameter ${missing.join(', ')}`);
  return proxyEvent({
    method,
    resource: template,
    ...(names.length > 0
      ? { pathParameters: Object.fromEntries(names.map((n) => [n, PATH_SAMPLES[n]!])) }
      : {}),
    ...(['POST', 'PUT', 'PATCH'].includes(method) ? { body: {} } : {}),
    caller: scope === null ? null : ALICE,
  });
}

/** Why an answer is not one a caller may get (null when it is). */
function unfit(answer: unknown): string | null {
  const { statusCode, body } = (answer ?? {}) as { statusCode?: unknown; body?: unknown };
  if (typeof statusCode !== 'number') return `no status: ${JSON.stringify(answer)?.slice(0, 200)}`;
  if (statusCode >= 500) return `${statusCode}: ${String(body).slice(0, 300)}`;
  if (statusCode >= 400) {
    const error = JSON.parse(String(body)) as { code?: unknown; message?: unknown };
    if (typeof error.code !== 'string' || typeof error.message !== 'string') {
      return `${statusCode} without the contract's error shape: ${String(body).slice(0, 300)}`;
    }
  }
  return null;
}

it('loads every route bundle and answers its smallest request without a 5xx', async () => {
  const ids = (Object.keys(routes) as RouteId[]).filter((id) => id !== 'createWebhook');
  const unfitAnswers: string[] = [];
  // Two at a time: the machine's two cores.
  for (let i = 0; i < ids.length; i += 2) {
    await Promise.all(
      ids.slice(i, i + 2).map(async (id) => {
        const outcome = await callBundle(built[id].file, smallestRequest(id), { requestPath: true });
        const why = 'error' in outcome ? `${outcome.stage}: ${outcome.error.message}` : unfit(outcome.answer);
        if (why) unfitAnswers.push(`${id}: ${why}`);
      }),
    );
  }
  expect(unfitAnswers).toEqual([]);
});

let webhook: { id: string; secret: string };

it('creates a webhook endpoint through its bundle, its secret sealed by KMS', async () => {
  const made = aws.requests.length;
  const answer = answerOf(
    'createWebhook',
    await callBundle(
      built.createWebhook.file,
      proxyEvent({ method: 'POST', resource: '/v1/webhooks', body: { url: hookUrl } }),
      {
        requestPath: true,
        env: { WEBHOOK_KMS_KEY_ID: KMS_KEY },
      },
    ),
  ) as { statusCode: number; body: string };
  expect(answer.statusCode).toBe(201);
  webhook = JSON.parse(answer.body) as typeof webhook;
  expect(webhook.secret).toMatch(/^whsec_/);
  expect(aws.requests.slice(made)).toEqual(['TrentService.Encrypt']);
});

it("answers the usage GET from its bundle with API Gateway's count, asked through the SDK's client", async () => {
  await putAccountPlan(ALICE.accountId, {
    tier: 'standard',
    apiKeyId: 'key-bundles',
    usagePlanId: 'plan-standard',
    changedAt: null,
  });
  aws.usage['key-bundles'] = 1234;
  const answer = answerOf(
    'getUsage',
    await callBundle(built.getUsage.file, smallestRequest('getUsage'), {
      requestPath: true,
      env: { USAGE_METER: 'api-gateway', AWS_ENDPOINT_URL_API_GATEWAY: aws.endpoint() },
    }),
  ) as { statusCode: number; body: string };
  expect(answer.statusCode).toBe(200);
  expect(JSON.parse(answer.body)).toMatchObject({ today: { requests: 1234 } });
  expect(aws.requests).toContain('APIGateway.GetUsage');
});

it("loads the authorizer's bundle and allows a valid token", async () => {
  const { token } = await createToken({
    accountId: ALICE.accountId,
    userEmail: ALICE.userEmail,
    scopes: [...SCOPES],
    expiresAt: null,
  });
  const answer = answerOf(
    'authorizer',
    await callBundle(
      built.authorizer.file,
      {
        type: 'TOKEN',
        authorizationToken: `Bearer ${token}`,
        methodArn: 'arn:aws:execute-api:local:000000000000:api/test/GET/v1/lists',
      },
      { requestPath: true },
    ),
  ) as { policyDocument: { Statement: Array<{ Effect: string }> } };
  expect(answer.policyDocument.Statement[0]!.Effect).toBe('Allow');
});

// ---- Background workers --------------------------------------------------------------------------

const worker = async (id: WorkerId, event: unknown, env: Record<string, string> = {}) =>
  answerOf(id, await callBundle(workerBundles[id], event, { env }));

/** The state after the partitions: the completion's bundle frees the run's import lease. */
const releaseLease = async (run: string) =>
  expect(await worker('importComplete', { run, releaseImportLease: true })).toEqual({ released: true });

it("runs the import's steps from their bundles, one after the other, as the state machine chains them", async () => {
  const asOf = '2026-11-20';
  const key = `incoming/${asOf}/companies.jsonl.gz`;
  const records = generateDemoData({ companies: 40 });
  await importBucket(BUCKET).write(key, gzipSync(records.map((r) => JSON.stringify(r)).join('\n') + '\n'));
  const run = { run: 'bundles-test', key, startedAt: new Date().toISOString() };

  const split = (await worker('importSplit', { ...run, bucket: BUCKET })) as {
    asOf: string;
    partitions: number[];
  };
  expect(split.asOf).toBe(asOf);
  const imported = await Promise.all(
    split.partitions.map(
      async (partition) =>
        (await worker('importPartition', {
          bucket: BUCKET,
          run: run.run,
          asOf,
          format: 'jsonl',
          partition,
        })) as {
          imported: number;
        },
    ),
  );
  expect(imported.reduce((n, p) => n + p.imported, 0)).toBe(records.length);
  await releaseLease(run.run);

  const plan = (await worker('lookalikesPlan', {
    bucket: BUCKET,
    run: run.run,
    mode: 'marked',
    round: 1,
  })) as {
    planned: boolean;
    round: number;
    shards: unknown[];
  };
  expect(plan.planned).toBe(true);
  for (const shard of plan.shards) await worker('lookalikesShard', { bucket: BUCKET, run: run.run, shard });
  const finish = (await worker('lookalikesFinish', { bucket: BUCKET, run: run.run, round: plan.round })) as {
    round: number;
  };
  expect(finish.round).toBeGreaterThanOrEqual(plan.round);

  const done = (await worker('importComplete', { ...split, ...run, bucket: BUCKET })) as {
    reportKey: string;
    imported: number;
  };
  expect(done.imported).toBe(records.length);
});

it("runs the import's steps on a registry's ZIP from their bundles: the converters and the ZIP reader bundled", async () => {
  const folder = path.join(ROOT, 'test', 'fixtures', 'registries', 'kbo-full');
  const zip = new yazl.ZipFile();
  for (const name of readdirSync(folder)) zip.addFile(path.join(folder, name), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  const key = 'kbo/KboOpenData_0127_2025_09_Full.zip';
  await importBucket(BUCKET).write(key, Buffer.concat(chunks));
  const run = { run: 'bundles-test-kbo', key, startedAt: new Date().toISOString() };

  const split = (await worker('importSplit', { ...run, bucket: BUCKET })) as {
    status: string;
    format: string;
    asOf: string;
    partitions: number[];
  };
  expect(split).toMatchObject({ status: 'split', format: 'kbo', asOf: '2025-08-30', partitions: [0] });
  const [partition] = (await Promise.all(
    split.partitions.map((p) => worker('importPartition', { ...split, bucket: BUCKET, partition: p })),
  )) as [{ imported: number; rejected: number }];
  expect(partition.imported).toBeGreaterThan(0);
  expect(partition.rejected).toBe(2); // the sample's two enterprises rejected on purpose
  await releaseLease(run.run);

  const done = (await worker('importComplete', { ...split, bucket: BUCKET })) as { imported: number };
  expect(done.imported).toBe(partition.imported);
});

it("runs a SIRENE pair's steps from their bundles: planned by siren range, each range split, then gathered", async () => {
  const folder = path.join(ROOT, 'test', 'fixtures', 'registries', 'sirene');
  const bucket = importBucket(BUCKET);
  await bucket.write(
    'sirene/2026-11/StockEtablissement_utf8.csv',
    readFileSync(path.join(folder, 'StockEtablissement_utf8.csv')),
  );
  const key = 'sirene/2026-11/StockUniteLegale_utf8.csv';
  await bucket.write(key, readFileSync(path.join(folder, 'StockUniteLegale_utf8.csv')));
  const run = { run: 'bundles-test-sirene', key, startedAt: new Date().toISOString(), bucket: BUCKET };

  const plan = (await worker('importSplit', run)) as {
    status: string;
    ranges: unknown[];
    establishments: string | null;
    note: string | null;
  };
  expect(plan).toMatchObject({
    status: 'ranges',
    establishments: 'sirene/2026-11/StockEtablissement_utf8.csv',
    note: null,
  });
  for (const range of plan.ranges)
    expect(await worker('importSplit', { ...run, range, establishments: plan.establishments })).toMatchObject(
      {
        status: 'range',
      },
    );
  const split = (await worker('importSplit', { ...run, gather: true, note: plan.note })) as {
    status: string;
    partitions: number[];
  };
  expect(split).toMatchObject({ status: 'split', format: 'sirene' });
  const imported = (await Promise.all(
    split.partitions.map((p) => worker('importPartition', { ...split, bucket: BUCKET, partition: p })),
  )) as Array<{ imported: number }>;
  await releaseLease(run.run);
  const done = (await worker('importComplete', { ...split, bucket: BUCKET })) as { imported: number };
  expect(done.imported).toBe(imported.reduce((n, p) => n + p.imported, 0));
  expect(done.imported).toBeGreaterThan(0);
});

it('runs the scheduled list workers from their bundles', async () => {
  expect(await worker('evaluateSmartLists', null)).toEqual({
    lists: expect.any(Number),
    entered: expect.any(Number),
  });
  expect(await worker('cleanUpLists', null)).toEqual({ cleaned: expect.any(Number) });
});

it("runs the fan-out's sweep from its bundle: it announces the account with an endpoint on SQS", async () => {
  aws.sent.length = 0;
  const queueUrl = aws.queueUrl('fan-out.fifo');
  expect(await worker('fanOutWebhookEvents', null, { FAN_OUT_QUEUE_URL: queueUrl })).toEqual({ queued: 0 });
  expect(aws.sent.map((m) => [m.queueUrl, m.groupId])).toContainEqual([queueUrl, ALICE.accountId]);
});

it('delivers a batch from its bundle: the secret opened by KMS, a job due later sent on to SQS', async () => {
  aws.sent.length = 0;
  const queueUrl = aws.queueUrl('deliveries');
  const job = (eventId: string, dueMs: number) =>
    JSON.stringify({
      job: {
        accountId: ALICE.accountId,
        webhookId: webhook.id,
        eventId,
        attempt: 1,
        body: JSON.stringify({ id: eventId, type: 'webhook.test' }),
      },
      dueMs,
    });
  const now = Date.now();
  const made = aws.requests.length;
  const answer = await worker(
    'deliverWebhooks',
    {
      Records: [
        { messageId: 'm1', body: job('evt_bundle_now', now) },
        { messageId: 'm2', body: job('evt_bundle_later', now + 2 * 60 * 60 * 1000) },
      ],
    },
    { WEBHOOK_KMS_KEY_ID: KMS_KEY, WEBHOOK_QUEUE_URL: queueUrl },
  );
  expect(answer).toEqual({ batchItemFailures: [] });
  expect(received).toContain('evt_bundle_now');
  expect(aws.requests.slice(made).sort()).toEqual(['AmazonSQS.SendMessageBatch', 'TrentService.Decrypt']);
  expect(aws.sent.map((m) => (JSON.parse(m.body) as { job: { eventId: string } }).job.eventId)).toEqual([
    'evt_bundle_later',
  ]);
});
