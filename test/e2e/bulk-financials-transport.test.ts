/**
 * End to end over HTTP: what POST /v1/companies/financials takes as a body (media types, contract §2;
 * the 1 MiB limit) and how its answer is compressed, as the stage does it (API Gateway's
 * minCompressionSize).
 */
import http from 'node:http';
import { gunzipSync, inflateSync } from 'node:zlib';
import { PATH, demoOf, entry, foundItem } from './bulk-financials-items';
import { expectError, expectOk, TOKENS, useApi } from './http';

const api = useApi();
const MiB = 1024 * 1024;
const byCountry = (country: string, index = 0) => demoOf(api.records, country, index);

describe('POST financials in bulk: media type and size', () => {
  test.each([
    ['text/plain', 'Content-Type text/plain'],
    ['application/vnd.api+json', 'another JSON-like media type (application/vnd.api+json)'],
  ])('rejects %s with 415 (%s)', async (contentType) => {
    const body = JSON.stringify({ companies: [entry(byCountry('BE'))] });

    const response = await api.send('POST', PATH, { headers: { 'Content-Type': contentType }, body });

    expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('rejects a body without Content-Type with 415', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ companies: [entry(byCountry('BE'))] }));

    const response = await api.send('POST', PATH, { body: body as unknown as string });

    expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test.each([
    ['FR', 'application/json; charset=utf-8', 'with a charset parameter'],
    ['NL', 'Application/JSON', 'in any letter case'],
  ])('accepts a %s company sent as %s (the media type %s)', async (country, contentType) => {
    const a = byCountry(country);

    const response = await api.post(
      PATH,
      { companies: [entry(a)] },
      { headers: { 'Content-Type': contentType } },
    );

    expectOk(response);
    expect(response.body).toEqual([foundItem(a)]);
  });

  test('accepts a body of exactly 1 MiB', async () => {
    const a = byCountry('BE');
    const body = paddedBody({ companies: [entry(a)] }, MiB);

    const response = await api.post(PATH, body);

    expectOk(response);
    expect(response.body).toEqual([foundItem(a)]);
  });

  test('rejects a body over 1 MiB with 413', async () => {
    const body = paddedBody({ companies: [entry(byCountry('BE'))] }, MiB + 1);

    const response = await api.post(PATH, body);

    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
  });
});

/** `value` as JSON with an ignored padding field, exactly `bytes` long. */
function paddedBody(value: object, bytes: number): string {
  const empty = JSON.stringify({ ...value, padding: '' });
  const body = JSON.stringify({ ...value, padding: 'x'.repeat(bytes - Buffer.byteLength(empty)) });
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

describe('compression (as the stage: minCompressionSize 1 KB)', () => {
  /** The answer's bytes as sent, and its Content-Encoding. */
  const wire = (acceptEncoding: string | null, body: unknown) =>
    new Promise<{ encoding: string | undefined; bytes: Buffer; status: number }>((resolve, reject) => {
      const url = new URL(api.baseUrl());
      const request = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: PATH,
          method: 'POST',
          headers: {
            Authorization: `Bearer ${TOKENS.alice}`,
            'Content-Type': 'application/json',
            ...(acceptEncoding === null ? {} : { 'Accept-Encoding': acceptEncoding }),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              encoding: response.headers['content-encoding'],
              bytes: Buffer.concat(chunks),
              status: response.statusCode!,
            }),
          );
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify(body));
    });
  const companies = () => api.records.slice(0, 100).map(entry);

  it('sends a large answer gzipped to a caller that accepts gzip, the same JSON once inflated', async () => {
    const plain = await wire(null, { companies: companies() });
    const zipped = await wire('gzip, deflate, br', { companies: companies() });

    expect(plain.encoding).toBeUndefined();
    expect(zipped.encoding).toBe('gzip');
    expect(zipped.status).toBe(200);
    expect(gunzipSync(zipped.bytes).equals(plain.bytes)).toBe(true);
    expect(zipped.bytes.length).toBeLessThan(plain.bytes.length / 4);
  });

  it('honours q-values, deflate, and leaves a small answer as it is', async () => {
    const body = { companies: companies() };
    expect((await wire('gzip;q=0, identity', body)).encoding).toBeUndefined();
    const deflated = await wire('deflate', body);
    expect(deflated.encoding).toBe('deflate');
    expect(JSON.parse(inflateSync(deflated.bytes).toString('utf8'))).toHaveLength(body.companies.length);
    const small = await wire('gzip', { companies: [] });
    expect(small.status).toBe(400);
    expect(small.bytes.length).toBeLessThan(1024);
    expect(small.encoding).toBeUndefined();
  });
});
