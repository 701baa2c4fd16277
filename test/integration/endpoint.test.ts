/**
 * What endpoint() gives the coming endpoints: any success status, headers of the use case's own,
 * Content-Language on translated routes, and a checked Idempotency-Key that withIdempotency keys on.
 * Test routes, real REST proxy events, DynamoDB Local for the idempotency records.
 */
import * as v from 'valibot';
import { answer, endpoint, SLOW_REQUEST_MS } from '../../lib/http/endpoint';
import { REQUEST_LOG_SAMPLE_RATE } from '../../lib/config';
import type { Route } from '../../lib/http/route';
import { jsonObject } from '../../lib/http/schemas';
import { withIdempotency } from '../../lib/idempotency/idempotency';
import { ALICE, call, lambdaContext, proxyEvent } from '../support/events';
import { useFreshTable } from '../support/table';
import { getCompanyWithFinancials } from '../../lib/companies/store';
import * as partitions from '../../lib/storage/partitions';
import type { StorageAccess } from '../../lib/storage/access';

useFreshTable();

const created = {
  method: 'POST',
  path: '/v1/things',
  summary: 'test',
  scope: 'lists:write',
  storage: {
    GetItem: [partitions.idempotency],
    PutItem: [partitions.idempotency],
    UpdateItem: [partitions.idempotency],
    DeleteItem: [partitions.idempotency],
  },
  status: 201,
  request: { body: jsonObject({ name: v.string() }) },
  response: v.object({ id: v.number(), name: v.string() }),
  idempotent: true,
} as const satisfies Route;

let runs = 0;
const createThing = endpoint(created, ({ body, caller, idempotencyKey }) =>
  withIdempotency({ caller, key: idempotencyKey, fingerprint: { body } }, async () => {
    runs++;
    return { id: runs, name: body.name };
  }).then((thing) => answer(thing, { Location: `/v1/things/${thing.id}` })),
);

const deleted = {
  method: 'DELETE',
  path: '/v1/things/{id}',
  summary: 'test',
  scope: 'lists:write',
  storage: {},
  status: 204,
  request: { params: v.object({ id: v.string() }) },
} as const satisfies Route;
const deleteThing = endpoint(deleted, async () => undefined);

const translated = {
  method: 'GET',
  path: '/v1/greeting',
  summary: 'test',
  scope: null,
  storage: {},
  request: {},
  response: v.object({ title: v.string() }),
  translated: true,
} as const satisfies Route;
const greet = endpoint(translated, async ({ language }) => ({
  title: { en: 'Hello', nl: 'Hallo', fr: 'Bonjour' }[language],
}));
// The same route, not translated: its use case is given no language, and its answer says none.
const untranslated = { ...translated, translated: false } as const satisfies Route;
let languageSeen: unknown = 'not called';
const greetInEnglish = endpoint(untranslated, async ({ language }) => {
  languageSeen = language;
  return { title: 'Hello' };
});

describe('endpoint()', () => {
  it('answers a route status of 201 with the headers the use case adds', async () => {
    const response = await call(createThing, { method: 'POST', body: { name: 'a' } });
    expect(response.status).toBe(201);
    expect(response.headers).toMatchObject({
      Location: `/v1/things/${(response.body as { id: number }).id}`,
    });
    expect(response.body).toEqual({ id: expect.any(Number), name: 'a' });
  });

  it('answers 204 with no body', async () => {
    const result = await deleteThing(
      proxyEvent({ method: 'DELETE', pathParameters: { id: '7' } }),
      lambdaContext,
    );
    expect(result.statusCode).toBe(204);
    expect(result.body).toBe('');
    expect(result.headers).toHaveProperty('x-request-id');
  });

  it.each([
    ['nl-BE,nl;q=0.9', 'nl', 'Hallo'],
    ['FR', 'fr', 'Bonjour'],
    [undefined, 'en', 'Hello'],
  ])('answers Accept-Language %s in %s with Content-Language', async (header, language, title) => {
    const response = await call(greet, {
      caller: null,
      headers: header ? { 'Accept-Language': header } : {},
    });
    expect(response.headers['Content-Language']).toBe(language);
    expect(response.body).toEqual({ title });
  });

  it('reads no Accept-Language on a route whose answer is not translated', async () => {
    const response = await call(greetInEnglish, { caller: null, headers: { 'Accept-Language': 'fr' } });
    expect(response.status).toBe(200);
    expect(response.headers).not.toHaveProperty('Content-Language');
    expect(languageSeen).toBeUndefined();
  });

  it('replays the first answer to a repeated Idempotency-Key and runs the use case once', async () => {
    const before = runs;
    const headers = { 'Idempotency-Key': 'create-thing-42' };
    const first = await call(createThing, { method: 'POST', body: { name: 'b' }, headers });
    const second = await call(createThing, { method: 'POST', body: { name: 'b' }, headers });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['Location']).toBe(first.headers['Location']);
    expect(runs).toBe(before + 1);
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED to the same key with another body, and scopes keys per account', async () => {
    const headers = { 'Idempotency-Key': 'create-thing-43' };
    await call(createThing, { method: 'POST', body: { name: 'c' }, headers });
    const reused = await call(createThing, { method: 'POST', body: { name: 'd' }, headers });
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });

    const other = await call(createThing, {
      method: 'POST',
      body: { name: 'd' },
      headers,
      caller: { ...ALICE, accountId: 'globex' },
    });
    expect(other.status).toBe(201);
  });

  it.each([['a'.repeat(256)], ['has space'], ['tab\tkey'], ['é']])(
    'refuses the Idempotency-Key %j with 400 VALIDATION_ERROR',
    async (key) => {
      const response = await call(createThing, {
        method: 'POST',
        body: { name: 'e' },
        headers: { 'Idempotency-Key': key },
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
        details: [{ path: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
      });
    },
  );
});

describe('declared storage access (least privilege by key)', () => {
  const company = { country: 'BE', companyNumber: '0403170701' } as const;
  const reading = (storage: StorageAccess) =>
    endpoint(
      {
        method: 'GET',
        path: '/v1/reading',
        summary: 'test',
        scope: null,
        storage,
        request: {},
        response: v.object({ found: v.boolean() }),
      },
      async () => ({ found: (await getCompanyWithFinancials(company)) !== null }),
    );

  it('lets a route make the storage calls its row declares', async () => {
    const response = await call(reading({ GetItem: [partitions.company] }), {
      method: 'GET',
      resource: '/v1/reading',
      caller: null,
    });
    expect(response).toMatchObject({ status: 200, body: { found: false } });
  });

  it.each([
    ['no storage at all', {}],
    ['another action', { BatchGetItem: [partitions.company] }],
    ['another partition', { GetItem: [partitions.token] }],
    ['the partition on an index', { GetItem: [{ ...partitions.company, index: 'gsi1' as const }] }],
  ])(
    'fails a call its row does not declare (%s) as IAM would: 500, logged, never sent',
    async (_, storage) => {
      const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      const logs = jest.spyOn(console, 'log').mockImplementation(() => undefined);
      const response = await call(reading(storage), { method: 'GET', resource: '/v1/reading', caller: null });
      expect(response).toMatchObject({ status: 500, body: { code: 'INTERNAL' } });
      const logged = errors.mock.calls.map(([line]) => String(line)).join('\n');
      expect(logged).toContain('UndeclaredStorageAccessError');
      expect(logged).toContain('GetItem on the table, partition COMPANY#BE#0403170701, is not declared');
      const requestLine = JSON.parse(String(logs.mock.calls.at(-1)?.[0])) as { dynamodb: { calls: number } };
      expect(requestLine.dynamodb.calls).toBe(0);
      errors.mockRestore();
      logs.mockRestore();
    },
  );
});

describe('the request log line', () => {
  const timed = {
    method: 'GET',
    path: '/v1/timed/{ms}',
    summary: 'test',
    scope: 'lists:read',
    storage: {},
    request: { params: v.object({ ms: v.pipe(v.string(), v.regex(/^\d+$/)) }) },
    response: v.object({ waited: v.number() }),
  } as const satisfies Route;
  const wait = endpoint(timed, async ({ params }) => {
    await new Promise((resolve) => setTimeout(resolve, Number(params.ms)));
    return { waited: Number(params.ms) };
  });
  const get = (ms: string) =>
    call(wait, { method: 'GET', resource: '/v1/timed/{ms}', pathParameters: { ms }, caller: ALICE });

  let lines: Array<Record<string, unknown>>;
  let logs: jest.SpyInstance;
  beforeEach(() => {
    lines = [];
    logs = jest
      .spyOn(console, 'log')
      .mockImplementation(
        (line: unknown) => void lines.push(JSON.parse(String(line)) as Record<string, unknown>),
      );
  });
  afterEach(() => {
    logs.mockRestore();
    delete process.env[REQUEST_LOG_SAMPLE_RATE];
  });

  it('is written for every request where no sample rate is set (the local stage, the tests)', async () => {
    await get('0');
    await get('0');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 'INFO',
      message: 'request',
      route: 'GET /v1/timed/{ms}',
      accountId: ALICE.accountId,
      status: 200,
      dynamodb: { calls: 0, ms: 0 },
    });
  });

  it('is left out for answered requests outside the sample, and written for every failed one', async () => {
    process.env[REQUEST_LOG_SAMPLE_RATE] = '0';
    expect((await get('0')).status).toBe(200);
    expect(lines).toEqual([]);
    expect((await get('soon')).status).toBe(400);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ message: 'request', status: 400, accountId: ALICE.accountId });
  });

  it('is written for a request that took SLOW_REQUEST_MS or more, whatever the sample', async () => {
    process.env[REQUEST_LOG_SAMPLE_RATE] = '0';
    expect((await get(String(SLOW_REQUEST_MS + 50))).status).toBe(200);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ message: 'request', status: 200 });
    expect(lines[0]!['durationMs']).toBeGreaterThanOrEqual(SLOW_REQUEST_MS);
  });

  it('takes a sample rate that is no number from 0 to 1 as unset: every request', async () => {
    for (const rate of ['', 'half', '-1', '2']) {
      process.env[REQUEST_LOG_SAMPLE_RATE] = rate;
      await get('0');
    }
    expect(lines).toHaveLength(4);
  });
});
