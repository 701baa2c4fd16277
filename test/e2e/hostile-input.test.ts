/**
 * End to end over HTTP: input a careful public API must survive (contract §1, §2). Query, header and
 * path names that are also Object property names, bodies nested thousands of levels deep, bodies of
 * invalid UTF-8 and bodies over the size limit, on every route that takes a body. Every answer is a 4xx
 * or 2xx in the contract's shape; none is a 5xx. The transport's side: hostile-transport.test.ts.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { handler as financialsHandler } from '../../functions/get-company-financials';
import { handler as healthHandler } from '../../functions/get-health';
import { routes } from '../../lib/routes';
import { lambdaContext, proxyEvent } from '../support/events';
import {
  KiB,
  MiB,
  BULK,
  UNKNOWN_BE,
  UNKNOWN_COMPANY,
  OBJECT_PROPERTY_NAMES,
  send,
  post,
  sendRaw,
  expectError,
  expectHealthy,
  nested,
  bulkWithNumber,
  useRawGateway,
  TOKEN,
} from './raw-gateway';

useRawGateway();

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
