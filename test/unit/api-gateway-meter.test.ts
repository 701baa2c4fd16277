/**
 * `GET /v1/usage` on a deployed stage reads today's count from API Gateway's usage plan: one GetUsage
 * call of the SDK's API Gateway client, signed with SigV4 for the `apigateway` service (checked again
 * with the SDK's signer), for the account's key and plan and today's UTC day only, answered with the
 * key's used count. Checked against a local server standing in for the service
 * (AWS_ENDPOINT_URL_API_GATEWAY, as the SDK names another endpoint).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiGatewayMeter } from '../../lib/usage/api-gateway-meter';
import { verifySigV4 } from '../support/aws-stand-in';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
const seen: Array<{ request: http.IncomingMessage; unsigned: string | null }> = [];
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => void answer(req, Buffer.concat(chunks).toString('utf8'), res));
});

async function answer(req: http.IncomingMessage, body: string, res: http.ServerResponse): Promise<void> {
  const unsigned = await verifySigV4(req, body, CREDENTIALS);
  seen.push({ request: req, unsigned });
  if (unsigned) {
    res.writeHead(403, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: unsigned }));
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  // As API Gateway sends a Usage: the counts under `values` (the SDK's `items`).
  res.end(
    JSON.stringify({
      usagePlanId: 'plan1',
      startDate: '2026-11-25',
      endDate: '2026-11-25',
      values: { key9: [[1234, 98766]] },
    }),
  );
}

const saved = { ...process.env };

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env['AWS_ENDPOINT_URL_API_GATEWAY'] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env['AWS_ACCESS_KEY_ID'] = CREDENTIALS.accessKeyId;
  process.env['AWS_SECRET_ACCESS_KEY'] = CREDENTIALS.secretAccessKey;
  process.env['AWS_REGION'] = 'eu-west-1';
});
afterAll(async () => {
  process.env = saved;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const plan = { tier: 'standard' as const, apiKeyId: 'key9', usagePlanId: 'plan1', changedAt: null };

it("asks for today's usage of the account's key, signed, and answers its used count", async () => {
  expect(await apiGatewayMeter.requestsToday('acme', plan, new Date('2026-11-25T13:00:00.000Z'))).toBe(1234);
  const [{ request, unsigned }] = seen as [(typeof seen)[0]];
  expect(unsigned).toBeNull();
  const url = new URL(request.url!, 'http://x');
  expect(url.pathname).toBe('/usageplans/plan1/usage');
  expect(Object.fromEntries(url.searchParams)).toEqual({
    keyId: 'key9',
    startDate: '2026-11-25',
    endDate: '2026-11-25',
  });
  // Signed when sent, so its credential names the day it ran (not the usage day asked for).
  const signedOn = new Date().toISOString().slice(0, 10).replaceAll('-', '');
  expect(request.headers['authorization']).toMatch(
    new RegExp(
      `^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/${signedOn}/eu-west-1/apigateway/aws4_request, SignedHeaders=.*host.*, Signature=[0-9a-f]{64}$`,
    ),
  );
});

it('counts nothing, and asks nothing, for an account whose key is not filed yet', async () => {
  const before = seen.length;
  expect(
    await apiGatewayMeter.requestsToday('new', { ...plan, apiKeyId: null, usagePlanId: null }, new Date()),
  ).toBe(0);
  expect(seen).toHaveLength(before);
});
