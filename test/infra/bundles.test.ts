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
 * the secret with KMS and sending a job due later on to SQS.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, stop } from 'esbuild';
import yazl from 'yazl';
import { bundlingSettings, functionDefine } from '../../infra/bundling';
import { endpointFeatures } from '../../lib/http/features';
import { handlerEntry } from '../../lib/http/route';
import { importBucket } from '../../lib/import/bucket';
import { routes, workers, type RouteId, type WorkerId } from '../../lib/routes';
import { createToken } from '../../lib/tokens/tokens';
import { putAccountPlan } from '../../lib/usage/store';
import { SCOPES } from '../../lib/tokens/scopes';
import { buildFloors, buildFunctions, buildOptions, type FunctionBundle } from '../bench/bundles';
import type { FunctionId } from '../bench/cases';
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

// ---- What the bundles carry ----------------------------------------------------------------------

// Each route's function carries only the endpoint's parts its route uses (lib/http/features.ts, from the
// route table through infra/bundling.ts `functionDefine`): a text of the part tells whether it is there.
it("carries only the endpoint's JSON body and validation where its route uses them", () => {
  const carried = (id: RouteId) => {
    const text = readFileSync(built[id].file, 'utf8');
    return {
      jsonBody: text.includes('must not nest arrays and objects more than'),
      validation: text.includes('must be an integer between'),
    };
  };
  expect(carried('getHealth')).toEqual({ jsonBody: false, validation: false });
  expect(carried('getCompany')).toEqual({ jsonBody: false, validation: true });
  expect(carried('createList')).toEqual({ jsonBody: true, validation: true });
  // Every route that uses a part carries it; one that does not, none of it (the generated document's
  // functions are left out: the document quotes these texts).
  for (const id of Object.keys(routes) as RouteId[]) {
    if (id === 'getOpenApi' || id === 'getDocs') continue;
    const { jsonBody, validation } = endpointFeatures(routes[id]);
    expect({ id, ...carried(id) }).toEqual({ id, jsonBody, validation });
  }
});

// A bundle built with defines that leave out a part its route uses fails when it loads, never on a request.
it('refuses to load a function whose bundle left out a part its route uses', async () => {
  const outfile = path.join(dir, 'createList-as-health.js');
  await build({
    ...buildOptions(outfile),
    define: functionDefine(routes.getHealth),
    entryPoints: [path.join(ROOT, handlerEntry('createList'))],
  });
  const outcome = await callBundle(outfile, smallestRequest('createList'), { requestPath: true });
  expect(outcome).toMatchObject({
    stage: 'load',
    error: {
      message:
        'POST /v1/lists uses jsonBody, validation, scope, storage, left out of its bundle (infra/bundling.ts)',
    },
  });
});

// The bench holds each caller-facing function against a floor loading the same public packages
// (test/bench/bundles.ts `loadedPackages`): what a bundle loads when it loads, not what it loads on first use.
it('finds the public packages a bundle loads when it loads, for its floor to load and use them too', async () => {
  expect(built.getCompany.packages).toMatchObject({
    clients: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
    middy: true,
    others: expect.arrayContaining(['valibot']) as unknown,
  });
  expect(built.getCompany.packages.loaded).toEqual(expect.arrayContaining(['valibot', '@middy/core']));
  // A route that takes no body does not load the JSON body parser (its bundle has none of its code).
  expect(built.getCompany.packages.loaded).not.toContain('@middy/http-json-body-parser');
  expect(built.createList.packages.others).toContain('@middy/http-json-body-parser');
  // Loaded on first use: the usage meter's API Gateway client, the webhooks' KMS and SQS clients, the
  // legal entity ids' Secrets Manager client.
  expect(built.getLegalEntityUpdates.packages.clients).not.toContain('@aws-sdk/client-secrets-manager');
  expect(built.getUsage.packages.clients).not.toContain('@aws-sdk/client-api-gateway');
  expect(built.createWebhook.packages.clients).not.toContain('@aws-sdk/client-kms');
  expect(built.getWebhooks.packages.clients).not.toContain('@aws-sdk/client-sqs');
  expect(built.authorizer.packages).toMatchObject({ middy: false });
  expect(built.authorizer.packages.loaded).not.toContain('valibot');

  const withSecrets = { ...built.getCompany.packages, clients: ['@aws-sdk/client-secrets-manager'] };
  // Health's packages with createList's body parser: a floor that parses a body.
  const withBody = { ...built.getHealth.packages, others: ['@middy/http-json-body-parser', 'valibot'] };
  const floors = await buildFloors(
    dir,
    [
      { kind: 'empty', packages: built.getHealth.packages },
      { kind: 'empty', packages: withBody },
      { kind: 'getCompany', packages: withSecrets },
    ],
    { complete: false },
  );
  expect([...floors.keys()]).toEqual([
    'empty+middy+valibot',
    'empty+middy+http-json-body-parser+valibot',
    'getCompany+middy+secrets-manager+valibot',
  ]);
  // The floor validates the path and parses a JSON body with the function's packages.
  const empty = floors.get('empty+middy+http-json-body-parser+valibot')!.file;
  expect(answerOf('floor', await callBundle(empty, {}))).toEqual({ statusCode: 200, body: '{}' });
  const sent = {
    headers: { 'Content-Type': 'application/json' },
    body: '{"a":1}',
    pathParameters: { id: '1' },
  };
  expect(answerOf('floor', await callBundle(empty, sent))).toEqual({ statusCode: 200, body: '{}' });
  await expect(callBundle(empty, { pathParameters: { id: 1 } })).resolves.toMatchObject({ stage: 'call' });
  const floor = readFileSync(floors.get('getCompany+middy+secrets-manager+valibot')!.file, 'utf8');
  expect(floor).toContain('secretsmanager');

  // Each caller-facing function's floor loads every package the function loads (buildFloors checks it).
  await expect(
    buildFloors(dir, [{ id: 'getCompany', kind: 'getCompany', packages: built.getCompany.packages }]),
  ).resolves.toBeDefined();
  await expect(
    buildFloors(dir, [
      { id: 'getCompany', kind: 'getCompany', packages: { ...built.getCompany.packages, others: [] } },
    ]),
  ).rejects.toThrow(/getCompany: floor getCompany\+middy\+lib-dynamodb does not load .*valibot/);
});

// Dependencies are bundled as published: an upgrade is what these tests load and call.
it('replaces no module of any dependency', () => {
  expect(bundlingSettings).not.toHaveProperty('alias');
  expect(bundlingSettings).not.toHaveProperty('inject');
});

// What only runs unbundled is left out of every function: the in-process storage access check (IAM
// enforces the declaration: infra/bundling.ts `define`), by its middleware's name and its error's text,
// and an import's write counters (lib/storage/write-counts.ts).
it('bundles neither the in-process storage access check nor the write counters', () => {
  const markers = ['declaredAccessCheck', 'is not declared', 'writeCounter'];
  const carried = (Object.keys(built) as FunctionId[]).flatMap((id) => {
    const code = readFileSync(built[id].file, 'utf8');
    return markers.filter((marker) => code.includes(marker)).map((marker) => `${id}: ${marker}`);
  });
  expect(carried).toEqual([]);
});

// Each key is an export of its own (lib/storage/keys.ts): a bundle carries only the keys its function uses.
it('bundles only the keys its function uses', () => {
  // The keys of a list's name and of an account's list count, which creating a list writes.
  const listKeys = ['LISTNAME#', 'LIST_COUNT'];
  const company = readFileSync(built.getCompany.file, 'utf8');
  const createList = readFileSync(built.createList.file, 'utf8');
  expect(listKeys.filter((key) => company.includes(key))).toEqual([]);
  expect(listKeys.filter((key) => createList.includes(key))).toEqual(listKeys);
});

// Each route is an export of its own (lib/<domain>/routes.ts): a function's bundle carries its own route
// and none of the others (their summaries are their text). The two document routes embed every route's
// summary in the document they hand out, so they are left out.
it("bundles only its own route of the route table, not its domain's other routes", () => {
  const ids = (Object.keys(routes) as RouteId[]).filter((id) => id !== 'getOpenApi' && id !== 'getDocs');
  const carried = ids.flatMap((id) => {
    const code = readFileSync(built[id].file, 'utf8');
    expect(code).toContain(JSON.stringify(routes[id].summary));
    const others = ids.filter(
      (other) => other !== id && code.includes(JSON.stringify(routes[other].summary)),
    );
    return others.map((other) => `${id}: ${other}`);
  });
  expect(carried).toEqual([]);
});

// Schema modules' calls are marked pure (test/unit/schemas-droppable.test.ts): a function builds the
// schemas its route reaches, not every schema of a module it imports. The financial period's messages
// are in the financials' bundles only, not in the details' nor a list's (which import lib/companies/schemas.ts).
it('bundles only the schemas its route uses of the schema modules it imports', () => {
  const periodMessage = JSON.stringify('must have at most 2 decimals');
  const carrying = (['getCompanyFinancials', 'getCompany', 'getList', 'createList'] as const).filter((id) =>
    readFileSync(built[id].file, 'utf8').includes(periodMessage),
  );
  expect(carrying).toEqual(['getCompanyFinancials']);
});

// infra/bundling.ts `supported`: a pattern with a Unicode property escape stays a literal, compiled on
// first use, rather than a `new RegExp(…)` built at load (valibot's emoji pattern is one, in every bundle).
it('builds no Unicode property pattern at load', () => {
  const propertyPatternCall = /new RegExp\("(?:[^"\\]|\\.)*\\\\p\{/;
  const calls = (Object.keys(built) as FunctionId[]).filter((id) =>
    propertyPatternCall.test(readFileSync(built[id].file, 'utf8')),
  );
  expect(calls).toEqual([]);
});
