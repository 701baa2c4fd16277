/**
 * Requests sent as raw as a test can make them to the local gateway (contract §1, §2): `node:http` with
 * header and path names exactly as given, or bytes written straight to a socket. Shared by the hostile
 * input suites.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createGateway } from '../../infra/local/gateway';
import { SCOPES } from '../../lib/tokens/scopes';
import { createToken } from '../../lib/tokens/tokens';
import { useFreshTable } from '../support/table';
import { expectErrorAnswer } from './http';

/** The token every request of these files sends unless told otherwise. */
export const TOKEN = 'hostile_input_every_scope_0001';
export const KiB = 1024;
export const MiB = 1024 * KiB;
export const BULK = '/v1/companies/financials';
/** A Belgian number with valid check digits that the (empty) table does not hold. */
export const UNKNOWN_BE = '0403170701';
export const UNKNOWN_COMPANY = `/v1/companies/BE/${UNKNOWN_BE}/financials`;
export const OBJECT_PROPERTY_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];

let server: http.Server;
let port = 0;
let connections = 0;

/** How many TCP connections the gateway has accepted so far (after `useRawGateway`'s `beforeAll`). */
export const connectionsAccepted = (): number => connections;

/**
 * A fresh table with one token of every scope, and the local gateway listening on a free loopback port
 * for the file's tests (plans counted, not enforced: these files send hundreds of requests at once;
 * fair-use.test.ts tests plans). No demo companies: the requests never need a company to exist.
 */
export function useRawGateway(): void {
  useFreshTable();
  beforeAll(async () => {
    await createToken(
      { accountId: 'acme', userEmail: 'mallory@acme.example', scopes: [...SCOPES], expiresAt: null },
      TOKEN,
    );
    server = createGateway({ fairUse: false });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface Send {
  headers?: http.OutgoingHttpHeaders;
  body?: string | Buffer;
  /** Written one after the other with no Content-Length, so Node's client sends them chunked. */
  bodyChunks?: Buffer[];
  /** Default: a Bearer header with the test token. `null` sends none. */
  token?: string | null;
  agent?: http.Agent;
}

/** One exchange through `node:http`, which sends the path and header names exactly as given. */
export function send(method: string, path: string, options: Send = {}): Promise<Reply> {
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
    for (const chunk of options.bodyChunks ?? []) request.write(chunk);
    request.end(options.body);
  });
}

export const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  send('POST', path, { body, headers: { 'Content-Type': 'application/json', ...headers } });

/** Bytes written straight to a socket (for what an HTTP client library refuses to send), read until the server closes. */
export function sendRaw(data: string | Buffer): Promise<Reply> {
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

export function reply(status: number, headers: http.IncomingHttpHeaders, raw: string): Reply {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = undefined;
  }
  return { status, headers, raw, body };
}

/** A contract error body (§2.1), read off a raw `node:http` answer. */
export function expectError(response: Reply, status: number, code: string, message?: string): void {
  const requestIdHeader = response.headers['x-request-id'] as string | undefined;
  expectErrorAnswer(
    { ...response, requestIdHeader, contentType: response.headers['content-type'] },
    status,
    code,
    message,
  );
}

export function expectHealthy(response: Reply): void {
  expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { status: 'ok' } });
  expect(response.headers['x-request-id']).toBeTruthy();
}

export const nested = (depth: number, leaf = '"0403170701"') => '['.repeat(depth) + leaf + ']'.repeat(depth);
export const bulkWithNumber = (numberJson: string) =>
  `{"companies":[{"countryCode":"BE","companyNumber":${numberJson}}]}`;
