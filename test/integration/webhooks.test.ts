/**
 * Webhook endpoints (contract §12) through their handlers on DynamoDB Local: the secret shown once and
 * stored sealed, at most 5 per account (also when creations race), another account's id is 404, the URL
 * rules (IP literals and a stub resolver: no connection is ever made), rotation, test and the log.
 */
import { getItem, queryAll } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import type { Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';
import { secretBox } from '../../lib/webhooks/secrets';
import { getWebhook } from '../../lib/webhooks/store';
import { createWebhook, updateOneWebhook } from '../../lib/webhooks/webhooks';
import { webhookRoutes } from '../../lib/webhooks/routes';
import { handler as create } from '../../functions/create-webhook';
import { handler as list } from '../../functions/get-webhooks';
import { handler as getOne } from '../../functions/get-webhook';
import { handler as update } from '../../functions/update-webhook';
import { handler as remove } from '../../functions/delete-webhook';
import { handler as rotate } from '../../functions/rotate-webhook-secret';
import { handler as sendTest } from '../../functions/test-webhook';
import { handler as deliveries } from '../../functions/get-webhook-deliveries';
import { ALICE, call } from '../support/events';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(60_000);

const CAROL: Caller = { accountId: 'globex', userEmail: 'carol@globex.example', scopes: [...SCOPES] };
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  enabled: boolean;
  createdAt: string;
  secret?: string;
}

const post = (url: string, caller: Caller = ALICE, description?: string) =>
  call(create, {
    method: 'POST',
    resource: webhookRoutes.createWebhook.path,
    body: { url, ...(description === undefined ? {} : { description }) },
    caller,
  });
const byId = (handler: typeof getOne, route: { method: string; path: string }, id: string, caller = ALICE) =>
  call(handler, { method: route.method, resource: route.path, pathParameters: { id }, caller });

describe('creating and reading endpoints', () => {
  it('answers 201 with the secret once; reads never show it; the table holds it sealed', async () => {
    const created = await post('http://127.0.0.1:4000/hook', ALICE, 'CRM');
    expect(created.status).toBe(201);
    const body = created.body as Endpoint;
    expect(Object.keys(body)).toEqual(['id', 'url', 'description', 'enabled', 'createdAt', 'secret']);
    expect(body).toMatchObject({ url: 'http://127.0.0.1:4000/hook', description: 'CRM', enabled: true });
    expect(body.secret).toMatch(SECRET);
    expect(created.headers['Location']).toBe(`/v1/webhooks/${body.id}`);

    const one = await byId(getOne, webhookRoutes.getWebhook, body.id);
    expect(one.body).toEqual({ ...body, secret: undefined });
    expect(Object.keys(one.body as object)).not.toContain('secret');
    const all = await call(list, { resource: webhookRoutes.getWebhooks.path });
    expect((all.body as { data: Endpoint[] }).data).toEqual([one.body]);

    const item = await getItem(tableName(), keys.webhook(ALICE.accountId, body.id));
    expect(JSON.stringify(item)).not.toContain(body.secret!.slice('whsec_'.length));
    const stored = (await getWebhook(ALICE.accountId, body.id))!;
    const context = { accountId: ALICE.accountId, webhookId: body.id };
    expect(await secretBox().open(stored.secrets[0]!.sealed, context)).toBe(body.secret);
    // Sealed for this endpoint: it does not open as another's.
    await expect(
      secretBox().open(stored.secrets[0]!.sealed, { ...context, webhookId: 'wh_other' }),
    ).rejects.toThrow();
  });

  it("answers 404 Webhook not found for another account's id and for ids that are none", async () => {
    const { id } = (await post('http://localhost:4001/hook')).body as Endpoint;
    for (const [handler, route] of [
      [getOne, webhookRoutes.getWebhook],
      [update, webhookRoutes.updateWebhook],
      [remove, webhookRoutes.deleteWebhook],
      [rotate, webhookRoutes.rotateWebhookSecret],
      [sendTest, webhookRoutes.testWebhook],
      [deliveries, webhookRoutes.getWebhookDeliveries],
    ] as const) {
      const answer = await call(handler, {
        method: route.method,
        resource: route.path,
        pathParameters: { id },
        caller: CAROL,
        ...(route.method === 'PATCH' ? { body: { enabled: false } } : {}),
      });
      expect({ path: route.path, status: answer.status, body: answer.body }).toMatchObject({
        path: route.path,
        status: 404,
        body: { code: 'NOT_FOUND', message: 'Webhook not found' },
      });
      expect((await byId(getOne, webhookRoutes.getWebhook, 'wh_nothing', ALICE)).status).toBe(404);
    }
    expect((await getWebhook(ALICE.accountId, id))!.enabled).toBe(true);
  });

  it('keeps an account to 5 endpoints, also when eight creations race', async () => {
    const racer: Caller = { ...CAROL, accountId: 'racing' };
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post(`http://localhost:${5000 + i}/hook`, racer)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 201, 409, 409, 409]);
    expect(answers.find((a) => a.status === 409)!.body).toMatchObject({
      code: 'LIMIT_REACHED',
      message: 'An account can have at most 5 webhook endpoints',
    });
    const listed = await call(list, { resource: webhookRoutes.getWebhooks.path, caller: racer });
    expect((listed.body as { data: Endpoint[] }).data).toHaveLength(5);

    // A deleted endpoint frees its place.
    const { id } = answers.find((a) => a.status === 201)!.body as Endpoint;
    expect((await byId(remove, webhookRoutes.deleteWebhook, id, racer)).status).toBe(204);
    expect((await byId(getOne, webhookRoutes.getWebhook, id, racer)).status).toBe(404);
    expect((await post('http://localhost:5999/hook', racer)).status).toBe(201);
    expect((await post('http://localhost:5998/hook', racer)).status).toBe(409);
  });
});

describe('URL rules', () => {
  it.each([
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[fe80::1]/hook',
    'http://hooks.example.com/hook',
    'ftp://localhost/hook',
    `https://8.8.8.8/${'a'.repeat(2048)}`,
  ])('refuses %s with 400 on url, writing nothing', async (url) => {
    const accountId = `refused-${Math.random()}`;
    const answer = await post(url, { ...ALICE, accountId });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'url' }] });
    expect(
      await queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.webhooks(accountId) },
      }),
    ).toEqual([]);
  });

  it('checks names through the resolver it is given, at creation and on a change of URL', async () => {
    const caller: Caller = { ...ALICE, accountId: 'resolved' };
    const rules = {
      allowLocal: false,
      resolve: async (host: string) => (host === 'public.example' ? ['93.184.216.34'] : ['10.0.0.7']),
    };
    const created = await createWebhook(caller, { url: 'https://public.example/in' }, rules);
    await expect(createWebhook(caller, { url: 'https://internal.example/in' }, rules)).rejects.toMatchObject({
      details: [{ path: 'url' }],
    });
    await expect(
      updateOneWebhook(caller, created.body.id, { url: 'https://internal.example/in' }, rules),
    ).rejects.toMatchObject({ details: [{ path: 'url' }] });
    expect((await getWebhook(caller.accountId, created.body.id))!.url).toBe('https://public.example/in');
  });
});

describe('changing, rotating, testing', () => {
  it('changes description, enabled and url', async () => {
    const { id } = (await post('http://localhost:4100/hook', { ...ALICE, accountId: 'patch' }))
      .body as Endpoint;
    const answer = await call(update, {
      method: 'PATCH',
      resource: webhookRoutes.updateWebhook.path,
      pathParameters: { id },
      body: { enabled: false, description: 'paused', url: 'http://127.0.0.1:4101/hook' },
      caller: { ...ALICE, accountId: 'patch' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      id,
      enabled: false,
      description: 'paused',
      url: 'http://127.0.0.1:4101/hook',
    });
  });

  it('rotates: a new secret, shown once; the old one signs beside it for 24 hours', async () => {
    const caller = { ...ALICE, accountId: 'rotating' };
    const created = (await post('http://localhost:4200/hook', caller)).body as Endpoint;
    const started = Date.now();
    const rotated = await byId(rotate, webhookRoutes.rotateWebhookSecret, created.id, caller);
    expect(rotated.status).toBe(200);
    const { secret } = rotated.body as { secret: string };
    expect(Object.keys(rotated.body as object)).toEqual(['secret']);
    expect(secret).toMatch(SECRET);
    expect(secret).not.toBe(created.secret);
    const stored = (await getWebhook(caller.accountId, created.id))!;
    const context = { accountId: caller.accountId, webhookId: created.id };
    expect(await Promise.all(stored.secrets.map((s) => secretBox().open(s.sealed, context)))).toEqual([
      secret,
      created.secret,
    ]);
    const until = Date.parse(stored.secrets[1]!.until!);
    expect(until).toBeGreaterThanOrEqual(started + 24 * 3600 * 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + 24 * 3600 * 1000);
    // A second rotation drops the oldest: the two newest sign.
    await byId(rotate, webhookRoutes.rotateWebhookSecret, created.id, caller);
    expect((await getWebhook(caller.accountId, created.id))!.secrets).toHaveLength(2);
  });

  it('queues a webhook.test event with 202 and has an empty log before any attempt', async () => {
    const caller = { ...ALICE, accountId: 'testing' };
    const { id } = (await post('http://localhost:4300/hook', caller)).body as Endpoint;
    const answer = await byId(sendTest, webhookRoutes.testWebhook, id, caller);
    expect([answer.status, answer.body]).toEqual([202, null]);
    const due = (
      await Promise.all(
        [0, 1, 2, 3].map((shard) =>
          queryAll({
            TableName: tableName(),
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.deliveriesDue(shard) },
          }),
        ),
      )
    ).flat();
    const job = due.find((d) => JSON.parse(d['body'] as string).type === 'webhook.test')!;
    expect(JSON.parse(job['body'] as string)).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{24}$/),
      type: 'webhook.test',
      createdAt: expect.any(String),
      data: {},
    });
    const log = await byId(deliveries, webhookRoutes.getWebhookDeliveries, id, caller);
    expect(log.body).toEqual({ data: [], pagination: { limit: 4, offset: 0, total: 0 } });
  });
});
