/**
 * End to end over HTTP: input a careful public API must survive (contract §1, §2). Query, header and
 * path names that are also Object property names, bodies nested thousands of levels deep, bodies of
 * invalid UTF-8, oversized bodies on a keep-alive connection, requests Node's own HTTP parser refuses,
 * bodies on GET, and a doubled Authorization header. Every answer is a 4xx or 2xx in the contract's
 * shape; none is a 5xx.
 *
 * Self-contained on purpose: a fresh table with one token, no demo companies (the requests here
 * never need a company to exist).
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createGateway } from '../../infra/local/gateway';
import { handler as financialsHandler } from '../../functions/get-company-financials';
import { handler as healthHandler } from '../../functions/get-health';
import { routes } from '../../lib/routes';
import { SCOPES } from '../../lib/tokens/scopes';
import { createToken } from '../../lib/tokens/tokens';
import { lambdaContext, proxyEvent } from '../support/events';
import { useFreshTable } from '../support/table';
import { expectErrorAnswer } from './http';

useFreshTable();

const TOKEN = 'hostile_input_every_scope_0001';
const KiB = 1024;
const MiB = 1024 * KiB;
const BULK = '/v1/companies/financials';
/** A Belgian number with valid check digits that the (empty) table does not hold. */
const UNKNOWN_BE = '0403170701';
const UNKNOWN_COMPANY = `/v1/companies/BE/${UNKNOWN_BE}/financials`;
const OBJECT_PROPERTY_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];

let server: http.Server;
let port = 0;

beforeAll(async () => {
  await createToken(
    { accountId: 'acme', userEmail: 'mallory@acme.example', scopes: [...SCOPES], expiresAt: null },
    TOKEN,
  );
  // Plans counted, not enforced: this file sends hundreds of requests at once (fair-use.test.ts tests plans).
  server = createGateway({ fairUse: false });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

interface Send {
  headers?: http.OutgoingHttpHeaders;
  body?: string | Buffer;
  /** Default: a Bearer header with the test token. `null` sends none. */
  token?: string | null;
  agent?: http.Agent;
}

/** One exchange through `node:http`, which sends the path and header names exactly as given. */
function send(method: string, path: string, options: Send = {}): Promise<Reply> {
  const token = options.token === undefined ? TOKEN : options.token;
  const headers: http.OutgoingHttpHeaders = {
    ...(token !== null ? { Authorization: `Bearer ${token}` } : {}),
    // Node's client frames a GET body only when told its length.
    ...(options.body !== undefined ? { 'Content-Length': Buffer.byteLength(options.body) } : {}),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method, path, headers, agent: options.agent ?? false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve(reply(response.statusCode!, response.headers, Buffer.concat(chunks).toString('utf8'))),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  send('POST', path, { body, headers: { 'Content-Type': 'application/json', ...headers } });

/** Bytes written straight to a socket (for what an HTTP client library refuses to send), read until the server closes. */
function sendRaw(data: string | Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(parseResponse(Buffer.concat(chunks).toString('latin1'))));
    socket.write(data);
  });
}

function parseResponse(text: string): Reply {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`no HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const headers: http.IncomingHttpHeaders = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return reply(Number(statusLine.split(' ')[1]), headers, Buffer.from(body, 'latin1').toString('utf8'));
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

function reply(status: number, headers: http.IncomingHttpHeaders, raw: string): Reply {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = undefined;
  }
  return { status, headers, raw, body };
}

/** A contract error body (§2.1), read off a raw `node:http` answer. */
function expectError(response: Reply, status: number, code: string, message?: string): void {
  const requestIdHeader = response.headers['x-request-id'] as string | undefined;
  expectErrorAnswer(
    { ...response, requestIdHeader, contentType: response.headers['content-type'] },
    status,
    code,
    message,
  );
}

function expectHealthy(response: Reply): void {
  expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { status: 'ok' } });
  expect(response.headers['x-request-id']).toBeTruthy();
}

const nested = (depth: number, leaf = '"0403170701"') => '['.repeat(depth) + leaf + ']'.repeat(depth);
const bulkWithNumber = (numberJson: string) =>
  `{"companies":[{"countryCode":"BE","companyNumber":${numberJson}}]}`;

describe('names that are also Object properties', () => {
  test.each(OBJECT_PROPERTY_NAMES)(
    'ignores an unknown query parameter named %s: 200 on /v1/health',
    async (name) => {
      expectHealthy(await send('GET', `/v1/health?${encodeURIComponent(name)}=1`, { token: null }));
    },
  );

  test.each(OBJECT_PROPERTY_NAMES)(
    'ignores a query parameter named %s on an authorised route: 404 Company not found, never 5xx',
    async (name) => {
      const response = await send('GET', `${UNKNOWN_COMPANY}?${encodeURIComponent(name)}=x&limit=2`);

      expectError(response, 404, 'NOT_FOUND', 'Company not found');
    },
  );

  test('ignores the same name given twice, and still validates the known parameters beside it', async () => {
    const response = await send('GET', `${UNKNOWN_COMPANY}?toString=a&toString=b&__proto__=1&limit=abc`);

    expectError(response, 400, 'VALIDATION_ERROR');
    expect(response.body.details.map((d: { path: string }) => d.path)).toEqual(['limit']);
  });

  test('accepts request headers named like Object properties', async () => {
    const headers = OBJECT_PROPERTY_NAMES.map((name) => `${name}: x\r\n`).join('');
    const request = (path: string, authorization = '') =>
      sendRaw(`GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}${authorization}Connection: close\r\n\r\n`);

    expectHealthy(await request('/v1/health'));
    expectError(
      await request(UNKNOWN_COMPANY, `Authorization: Bearer ${TOKEN}\r\n`),
      404,
      'NOT_FOUND',
      'Company not found',
    );
  });

  test('endpoint() is safe when API Gateway delivers such names as own keys of the event', async () => {
    // JSON.parse makes `__proto__` an own key, as the Lambda runtime does with the event AWS sends.
    const names = JSON.parse(`{${OBJECT_PROPERTY_NAMES.map((name) => `"${name}":"1"`).join(',')}}`) as Record<
      string,
      string
    >;
    const lists = JSON.parse(
      `{${OBJECT_PROPERTY_NAMES.map((name) => `"${name}":["1"]`).join(',')}}`,
    ) as Record<string, string[]>;
    const event = (spec: Parameters<typeof proxyEvent>[0]): APIGatewayProxyEvent => {
      const base = proxyEvent(spec);
      return {
        ...base,
        headers: Object.assign(JSON.parse(JSON.stringify(names)), base.headers),
        multiValueHeaders: Object.assign(JSON.parse(JSON.stringify(lists)), base.multiValueHeaders),
        queryStringParameters: Object.assign(JSON.parse(JSON.stringify(names)), spec.query),
        multiValueQueryStringParameters: JSON.parse(JSON.stringify(lists)),
        pathParameters: spec.pathParameters
          ? Object.assign(JSON.parse(JSON.stringify(names)), spec.pathParameters)
          : null,
      };
    };

    const health = await healthHandler(event({ caller: null }), lambdaContext);
    const financials = await financialsHandler(
      event({
        resource: '/v1/companies/{countryCode}/{companyNumber}/financials',
        pathParameters: { countryCode: 'BE', companyNumber: UNKNOWN_BE },
        query: { limit: '2' },
      }),
      lambdaContext,
    );

    expect({ status: health.statusCode, body: JSON.parse(health.body) }).toEqual({
      status: 200,
      body: { status: 'ok' },
    });
    expect({ status: financials.statusCode, body: JSON.parse(financials.body).message }).toEqual({
      status: 404,
      body: 'Company not found',
    });
  });
});

describe('deeply nested bodies', () => {
  test('refuses a bulk entry nested 4,500 levels deep with 400 VALIDATION_ERROR, not 500', async () => {
    const response = await post(BULK, bulkWithNumber(nested(4500)));

    expectError(
      response,
      400,
      'VALIDATION_ERROR',
      'body must not nest arrays and objects more than 32 levels deep',
    );
    expect(response.body.details).toEqual([
      { path: 'body', message: 'must not nest arrays and objects more than 32 levels deep' },
    ]);
  });

  test('refuses deep nesting in an unknown field too (it would be ignored, but is parsed first)', async () => {
    const response = await post(
      BULK,
      `{"companies":[{"countryCode":"BE","companyNumber":"${UNKNOWN_BE}"}],"extra":${nested(100_000, '{}')}}`,
    );

    expectError(response, 400, 'VALIDATION_ERROR');
  });

  test('refuses a body of nothing but half a million nested arrays with a 400', async () => {
    const response = await post(BULK, nested(500_000, ''));

    expect(response.status).toBe(400);
    expectError(response, 400, response.body.code);
  });

  test('echoes a nested value within the limit as sent, in the failed item', async () => {
    // Depth: body 1, companies 2, entry 3, then 29 arrays = 32.
    const value = nested(29);

    const response = await post(BULK, bulkWithNumber(value));

    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      {
        identifier: { country: 'BE', companyNumber: JSON.parse(value) },
        data: null,
        pagination: null,
        message: 'Invalid company number',
      },
    ]);
  });

  test('refuses one level more than the limit', async () => {
    expectError(await post(BULK, bulkWithNumber(nested(30))), 400, 'VALIDATION_ERROR');
  });
});

describe('body size counts the bytes received', () => {
  test('600 KiB of invalid UTF-8 is 400 INVALID_JSON, not 413', async () => {
    const response = await post(BULK, Buffer.alloc(600 * KiB, 0xff));

    expectError(response, 400, 'INVALID_JSON');
  });

  test('invalid UTF-8 inside a JSON string is 400 INVALID_JSON, never a replacement character echoed back', async () => {
    const body = Buffer.concat([
      Buffer.from('{"companies":[{"countryCode":"BE","companyNumber":"'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}]}'),
    ]);

    expectError(await post(BULK, body), 400, 'INVALID_JSON');
  });

  test('counts characters by their UTF-8 bytes: 600 K two-byte characters are 413, 300 K are not', async () => {
    const body = (characters: number) =>
      `{"companies":[{"countryCode":"BE","companyNumber":"${UNKNOWN_BE}"}],"pad":"${'é'.repeat(characters)}"}`;
    const [small, large] = [body(300 * 1000), body(600 * 1000)];
    expect(large.length).toBeLessThan(MiB);
    expect(Buffer.byteLength(large)).toBeGreaterThan(MiB);

    expect((await post(BULK, small)).status).toBe(200);
    expectError(await post(BULK, large), 413, 'PAYLOAD_TOO_LARGE');
  });

  test('still refuses invalid UTF-8 over 1 MiB with 413', async () => {
    expectError(await post(BULK, Buffer.alloc(MiB + 1, 0xff)), 413, 'PAYLOAD_TOO_LARGE');
  });
});

/**
 * Every route that takes a body parses it with @middy/http-json-body-parser between the project's guards
 * (lib/http/json-body.ts): the parser's own answers (415 for a type it refuses and for a body that is
 * not JSON alike) must come out as the contract's, on every such route.
 */
describe('the JSON body parser, on every route that takes a body', () => {
  const bodyRoutes = Object.entries(routes)
    .filter(([, route]) => 'body' in route.request && ['POST', 'PUT', 'PATCH'].includes(route.method))
    .map(([id, route]) => [id, route.method, route.path.replace(/\{[^}]+\}/g, '1')] as const);

  test('covers the routes with a body', () => {
    expect(bodyRoutes.map(([id]) => id)).toEqual(expect.arrayContaining(['createList', 'addListCompanies']));
  });

  test.each(bodyRoutes)('%s: not JSON is 400 INVALID_JSON, another type 415', async (_id, method, path) => {
    const json = { 'Content-Type': 'application/json' };
    for (const body of ['{"companies": [', '\ufeff{}', "{'a': 1}", 'NaN']) {
      expectError(await send(method, path, { body, headers: json }), 400, 'INVALID_JSON');
    }
    for (const type of ['text/plain', 'application/vnd.api+json', 'application/jsonp', 'json']) {
      expectError(
        await send(method, path, { body: '{}', headers: { 'Content-Type': type } }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
    }
  });

  test.each([
    'APPLICATION/JSON',
    'application/json;',
    'application/json ; charset=UTF-8',
    'Application/Json;charset=utf-8',
  ])('takes %s as JSON, as the contract reads media types', async (type) => {
    const body = `{"companies":[{"countryCode":"BE","companyNumber":"${UNKNOWN_BE}"}]}`;
    const response = await send('POST', BULK, { body, headers: { 'Content-Type': type } });

    expect(response.status).toBe(200);
    expect(response.body[0].message).toBe('Company not found');
  });

  test("a JSON value that is not an object is the schema's 400 VALIDATION_ERROR, not INVALID_JSON", async () => {
    for (const body of ['"companies"', '[]', 'null', '42']) {
      expectError(await post(BULK, body), 400, 'VALIDATION_ERROR');
    }
  });
});

describe('keep-alive after a refused body', () => {
  test('answers the next request on the same keep-alive connection at once after refusing an 11 MiB body', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await send('POST', BULK, {
        agent,
        body: Buffer.alloc(11 * MiB, 0x20),
        headers: { 'Content-Type': 'application/json' },
      });
      const started = Date.now();
      const next = await send('GET', '/v1/health', { agent, token: null });
      const elapsed = Date.now() - started;

      expectError(refused, 413, 'PAYLOAD_TOO_LARGE');
      expectHealthy(next);
      // A generous bound: the stall this guards against lasted the 5 s keep-alive timeout and more.
      expect(elapsed).toBeLessThan(2000);
    } finally {
      agent.destroy();
    }
  });

  test('answers the next request at once after refusing an 11 MiB body sent without Content-Length', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await new Promise<Reply>((resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: BULK,
            agent,
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve(reply(response.statusCode!, response.headers, Buffer.concat(chunks).toString())),
            );
          },
        );
        request.on('error', reject);
        for (let i = 0; i < 11; i++) request.write(Buffer.alloc(MiB, 0x20)); // chunked
        request.end();
      });
      const started = Date.now();
      const next = await send('GET', '/v1/health', { agent, token: null });
      const elapsed = Date.now() - started;

      expectError(refused, 413, 'PAYLOAD_TOO_LARGE');
      expectHealthy(next);
      expect(elapsed).toBeLessThan(2000);
    } finally {
      agent.destroy();
    }
  });
});

describe("answers of Node's HTTP parser", () => {
  test('a URL over 16 KB answers 400 in the contract shape (a status from its table), with x-request-id', async () => {
    const response = await send('GET', `/v1/health?q=${'a'.repeat(20 * KiB)}`, { token: null });

    expectError(response, 400, 'VALIDATION_ERROR');
    expect(response.body).toMatchObject({ details: [{ path: 'headers' }] });
  });

  test('a malformed request line answers 400 in the contract shape', async () => {
    const response = await sendRaw('GARBAGE\r\n\r\n');

    expectError(response, 400, 'VALIDATION_ERROR');
    expect(response.headers['connection']).toBe('close');
    expect(response.headers['cache-control']).toBe('no-store');
  });

  test('a header without a colon answers 400 in the contract shape', async () => {
    const response = await sendRaw('GET /v1/health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n');

    expectError(response, 400, 'VALIDATION_ERROR');
  });
});

describe('request targets', () => {
  test('an absolute-form target that does not parse answers 400, not 503', async () => {
    const response = await sendRaw(
      'GET http://[bad/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );

    expectError(response, 400, 'VALIDATION_ERROR');
    expect(response.headers['retry-after']).toBeUndefined();
  });

  test('an absolute-form target that parses is routed by its path', async () => {
    expectHealthy(
      await sendRaw('GET http://api.example/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    );
  });

  test('a target that is neither a path nor an http URL answers 400', async () => {
    const response = await sendRaw(
      'GET mailto:x@example.com HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );

    expectError(response, 400, 'VALIDATION_ERROR');
  });

  test('a path starting with // is a path, not a host', async () => {
    const response = await sendRaw('GET //v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');

    expectError(response, 404, 'NOT_FOUND', 'Route not found');
  });
});

describe('bodies on GET are ignored', () => {
  const bodies: Array<[string, string, string | Buffer]> = [
    ['a text/plain body', 'text/plain', 'hello'],
    ['malformed JSON', 'application/json', '{"companies":'],
    ['invalid UTF-8', 'application/json', Buffer.alloc(10, 0xff)],
    ['2 MiB of JSON', 'application/json', `"${'x'.repeat(2 * MiB)}"`],
  ];

  test.each(bodies)('GET /v1/health with %s answers 200', async (_what, type, body) => {
    expectHealthy(await send('GET', '/v1/health', { token: null, body, headers: { 'Content-Type': type } }));
  });

  test.each(bodies)('GET financials with %s answers as without a body', async (_what, type, body) => {
    const response = await send('GET', UNKNOWN_COMPANY, { body, headers: { 'Content-Type': type } });

    expectError(response, 404, 'NOT_FOUND', 'Company not found');
  });

  test('endpoint() ignores a GET body too (API Gateway passes it on)', async () => {
    const response = await financialsHandler(
      proxyEvent({
        method: 'GET',
        resource: '/v1/companies/{countryCode}/{companyNumber}/financials',
        pathParameters: { countryCode: 'BE', companyNumber: UNKNOWN_BE },
        headers: { 'Content-Type': 'text/plain' },
        body: 'x'.repeat(2 * MiB),
      }),
      lambdaContext,
    );

    expect({ status: response.statusCode, message: JSON.parse(response.body).message }).toEqual({
      status: 404,
      message: 'Company not found',
    });
  });
});

describe('a doubled Authorization header', () => {
  test('is refused with 401, whichever order and letter case the two come in', async () => {
    const other = 'Bearer never_issued_token_0000000001';
    for (const [first, second] of [
      [`Authorization: Bearer ${TOKEN}`, `Authorization: ${other}`],
      [`Authorization: ${other}`, `authorization: Bearer ${TOKEN}`],
      [`authorization: Bearer ${TOKEN}`, `AUTHORIZATION: Bearer ${TOKEN}`],
    ]) {
      const response = await sendRaw(
        `GET ${UNKNOWN_COMPANY} HTTP/1.1\r\nHost: x\r\n${first}\r\n${second}\r\nConnection: close\r\n\r\n`,
      );

      expectError(response, 401, 'UNAUTHORIZED', 'Unauthorized');
    }
  });

  test('one Authorization header still works', async () => {
    expectError(await send('GET', UNKNOWN_COMPANY), 404, 'NOT_FOUND', 'Company not found');
  });
});

describe('never a 5xx', () => {
  test('a run of hostile requests gets only 2xx and 4xx answers', async () => {
    const answers = await Promise.all([
      send('GET', '/v1/health?__proto__[x]=1', { token: null }),
      send('GET', `${UNKNOWN_COMPANY}?constructor[prototype][x]=1`),
      send('GET', '/v1/companies/BE/%E0%A4%A/financials'),
      send('GET', '/v1/companies/__proto__/constructor/financials'),
      post(BULK, '{"__proto__":{"companies":[]},"companies":[{"__proto__":{"countryCode":"BE"}}]}'),
      post(BULK, '{"companies":[{"countryCode":{"toString":1},"companyNumber":{"valueOf":2}}]}'),
      post(BULK, '\ufeff{"companies":[]}'),
    ]);

    for (const response of answers) {
      expect(response.status).toBeLessThan(500);
      expect(response.headers['x-request-id']).toBeTruthy();
    }
  });
});
