/**
 * End-to-end helpers: the local gateway on a free port over a fresh, demo-loaded table, and a thin
 * `fetch` wrapper that keeps status, headers, raw text and parsed body of every exchange. Every answer
 * that comes through here is checked against the published OpenAPI document (test/support/openapi.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway, type GatewayOptions } from '../../infra/local/gateway';
import { DEMO_TOKENS, loadDemo } from '../../infra/local/demo';
import { generateDemoData } from '../fixtures/demo-data/companies';
import type { DemoRecord } from '../fixtures/demo-data/records';
import type { FinancialPeriod } from '../../lib/companies/schemas';
import { PERIOD_KEYS as CONTRACT_PERIOD_KEYS } from '../support/contract';
import { expectContractAnswer, jsonOrUndefined, readAnswer } from '../support/openapi';
import { useFreshTable } from '../support/table';

export const DEMO_COMPANY_COUNT = 90;

/** Demo tokens by user: alice (every scope), bob (companies:read), carol (every scope, other account), dave (lists only). */
export const TOKENS = {
  alice: DEMO_TOKENS[0].token,
  bob: DEMO_TOKENS[1].token,
  carol: DEMO_TOKENS[2].token,
  dave: DEMO_TOKENS[3].token,
} as const;

export interface Exchange {
  status: number;
  headers: Headers;
  raw: string;
  /** Parsed JSON (undefined when the body is not JSON). Loosely typed: tests assert its exact shape. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface Api {
  /** The generated records that were loaded into the table (same order as generated). */
  records: DemoRecord[];
  get(path: string, options?: RequestOptions): Promise<Exchange>;
  post(path: string, body: unknown, options?: RequestOptions): Promise<Exchange>;
  send(method: string, path: string, options?: RequestOptions & { body?: string }): Promise<Exchange>;
  /** Every exchange of this file so far, for checks that span all answers. */
  exchanges: Exchange[];
  tableName(): string;
  /** `http://127.0.0.1:<port>`, for requests that need more control than `fetch` gives. */
  baseUrl(): string;
}

export interface RequestOptions {
  /** A demo or created token; `null` sends no Authorization header. Default: alice's token. */
  token?: string | null;
  /** Overrides the Authorization header verbatim. */
  authorization?: string;
  headers?: Record<string, string>;
}

/**
 * Call at the top level of a test file: a fresh table loaded with the demo companies and tokens in
 * beforeAll, the gateway listening on 127.0.0.1 on a free port, closed in afterAll.
 */
export function useApi(gateway: GatewayOptions = {}): Api {
  const table = useFreshTable();
  const records = generateDemoData({ companies: DEMO_COMPANY_COUNT });
  const exchanges: Exchange[] = [];
  let server: http.Server | undefined;
  let baseUrl = '';

  beforeAll(async () => {
    await loadDemo(records);
    // Plans are counted but not enforced unless a file asks for it: files that test other things send
    // side by side what no plan of 25 a second would let through (test/e2e/fair-use.test.ts turns it on).
    server = createGateway({ fairUse: false, ...gateway });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
  });

  async function send(
    method: string,
    path: string,
    options: RequestOptions & { body?: string } = {},
  ): Promise<Exchange> {
    const headers: Record<string, string> = {};
    const token = options.token === undefined ? TOKENS.alice : options.token;
    if (options.authorization !== undefined) headers['Authorization'] = options.authorization;
    else if (token !== null) headers['Authorization'] = `Bearer ${token}`;
    Object.assign(headers, options.headers);
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    const exchange: Exchange = await readAnswer(response);
    exchanges.push(exchange);
    // Every answer, success or error, against the published contract (status, schema, key order).
    expectContractAnswer(method, path, exchange);
    return exchange;
  }

  return {
    records,
    exchanges,
    send,
    get: (path, options) => send('GET', path, options),
    post: (path, body, options = {}) =>
      send('POST', path, {
        ...options,
        headers: { 'Content-Type': 'application/json', ...options.headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    tableName: () => table.name,
    baseUrl: () => baseUrl,
  };
}

/**
 * A request through `node:http`, which sends header names exactly as given (`fetch` lowercases them).
 * Returns the same shape as the `fetch` wrapper.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Exchange> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, path, method, headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined)
              responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          const exchange = {
            status: response.statusCode!,
            headers: responseHeaders,
            raw,
            body: jsonOrUndefined(raw),
          };
          try {
            expectContractAnswer(method, path, exchange);
          } catch (error) {
            reject(error);
            return;
          }
          resolve(exchange);
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** What an error assertion reads of an answer, whichever HTTP client received it. */
export interface ErrorAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  requestIdHeader: string | null | undefined;
  contentType: string | null | undefined;
}

/** Asserts a contract error body (§2.1): status, exact keys in order, code, message, requestId = x-request-id. */
export function expectErrorAnswer(answer: ErrorAnswer, status: number, code: string, message?: string): void {
  expect({ status: answer.status, code: answer.body?.code }).toEqual({ status, code });
  const keys =
    code === 'VALIDATION_ERROR'
      ? ['message', 'code', 'requestId', 'details']
      : ['message', 'code', 'requestId'];
  expect(Object.keys(answer.body)).toEqual(keys);
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.message.length).toBeGreaterThan(0);
  if (message !== undefined) expect(answer.body.message).toBe(message);
  expect(answer.requestIdHeader).toBeTruthy();
  expect(answer.body.requestId).toBe(answer.requestIdHeader);
  expect(answer.contentType).toMatch(/^application\/json/);
}

export function expectError(response: Exchange, status: number, code: string, message?: string): void {
  const { headers } = response;
  const answer = {
    ...response,
    requestIdHeader: headers.get('x-request-id'),
    contentType: headers.get('content-type'),
  };
  expectErrorAnswer(answer, status, code, message);
}

/** Asserts a 400 VALIDATION_ERROR whose details name exactly the given paths, each with a message. */
export function expectValidationError(response: Exchange, paths: string[], message?: string): void {
  expectError(response, 400, 'VALIDATION_ERROR', message);
  expect(response.body.details.map((d: { path: string }) => d.path)).toEqual(paths);
  for (const detail of response.body.details) {
    expect(Object.keys(detail)).toEqual(['path', 'message']);
    expect(typeof detail.message).toBe('string');
    expect(detail.message.length).toBeGreaterThan(0);
  }
}

/** Asserts a 200 JSON answer carrying a request id. */
export function expectOk(response: Exchange): void {
  expect({ status: response.status, body: response.status === 200 ? 'ok' : response.body }).toEqual({
    status: 200,
    body: 'ok',
  });
  expect(response.headers.get('x-request-id')).toBeTruthy();
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
}

export const IDENTIFIER_KEYS = ['country', 'companyNumber', 'name', 'place'];
export const PERIOD_KEYS: string[] = [...CONTRACT_PERIOD_KEYS.period];
export const BULK_ITEM_KEYS = ['identifier', 'data', 'pagination', 'message'];

/** The identifier the API must answer for a record, in the contract's key order. */
export function identifierOf(record: DemoRecord) {
  return {
    country: record.country,
    companyNumber: record.companyNumber,
    name: record.name,
    place: record.place,
  };
}

/** A record's periods as the API must order them: endDate descending. */
export function newestFirst({ financials }: DemoRecord): FinancialPeriod[] {
  return [...financials].sort((a, b) => b.endDate.localeCompare(a.endDate));
}

/** Paths of every `undefined` or absent-looking value (JSON never carries undefined; keep the check honest). */
export function undefinedPaths(value: unknown, path = ''): string[] {
  if (value === undefined) return [path];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => undefinedPaths(v, `${path}.${key}`));
}

/** Belgian check digits computed here, independently of the code under test: 97 − (first eight mod 97). */
export function belgianNumber(firstEight: string): string {
  return firstEight + String(97 - (Number(firstEight) % 97)).padStart(2, '0');
}

/** `0403170701` → `0403.170.701`. */
export function dotted(number: string): string {
  return `${number.slice(0, 4)}.${number.slice(4, 7)}.${number.slice(7)}`;
}

export function financialsPath(country: string, number: string, query = ''): string {
  return `/v1/companies/${country}/${encodeURIComponent(number)}/financials${query}`;
}
