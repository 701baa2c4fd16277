/**
 * End to end over HTTP: what the transport brings a careful public API (contract §1, §2). Oversized
 * bodies on a keep-alive connection, requests Node's own HTTP parser refuses, odd request targets,
 * bodies on GET, a doubled Authorization header, and a burst of all of these: every answer is a 4xx or
 * 2xx in the contract's shape; none is a 5xx. Bodies and names: hostile-input.test.ts.
 */
import http from 'node:http';
import { handler as financialsHandler } from '../../functions/get-company-financials';
import { lambdaContext, proxyEvent } from '../support/events';
import {
  KiB,
  MiB,
  BULK,
  UNKNOWN_BE,
  UNKNOWN_COMPANY,
  send,
  post,
  sendRaw,
  expectError,
  expectHealthy,
  useRawGateway,
  TOKEN,
  connectionsAccepted,
} from './raw-gateway';

useRawGateway();

describe('keep-alive after a refused body', () => {
  // Over the gateway's 10 MiB a body is refused with 413 at once, and the rest of it is read and dropped
  // so that the connection can carry the next request. Left unread, it would hold the connection until
  // the server's keep-alive timeout; closed after the 413, the connection would be gone. Either way the
  // next request could not go out on it, which is what this checks: the gateway accepts one connection
  // for both requests, whatever the speed of the machine (a stall is caught by the test's timeout).
  test.each([
    ['with Content-Length', { body: Buffer.alloc(11 * MiB, 0x20) }],
    [
      'sent chunked, without Content-Length',
      { bodyChunks: [...Array(11)].map(() => Buffer.alloc(MiB, 0x20)) },
    ],
  ])(
    'answers the next request on the same connection after refusing an 11 MiB body %s',
    async (_how, body) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const connectionsBefore = connectionsAccepted();

        const refused = await send('POST', BULK, {
          agent,
          ...body,
          headers: { 'Content-Type': 'application/json' },
        });
        const next = await send('GET', '/v1/health', { agent, token: null });

        expectError(refused, 413, 'PAYLOAD_TOO_LARGE');
        expect(refused.headers['connection']).toBe('keep-alive');
        expectHealthy(next);
        expect(connectionsAccepted() - connectionsBefore).toBe(1);
      } finally {
        agent.destroy();
      }
    },
  );
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
