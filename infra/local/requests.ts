/**
 * The local gateway reading a request as API Gateway does: its target, its headers (as sent, in maps
 * without a prototype) and its body up to the gateway's limit; and what Node's HTTP parser refuses before
 * there is a request. A request it cannot make sense of is a 4xx in the contract's error shape.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { json } from '../../lib/http/endpoint';
import { PayloadTooLargeError, toErrorBody, ValidationError } from '../../lib/http/errors';
import { flatHeaders } from './answers';

/** API Gateway's own payload limit; the handlers enforce the contract's 1 MiB below it. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** After refusing a body, up to this much more of it is read and dropped; beyond that the connection is closed. */
const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
/** How long a connection whose request could not be parsed stays open for the client to read the answer. */
const LINGER_MS = 2000;

/**
 * A request the gateway cannot make sense of (a target that does not parse, headers over the limit, a
 * body cut off, a request not received in time): 400 VALIDATION_ERROR, a status from the contract's table
 * (§2.1), with the part of the request at fault as the detail.
 */
function badRequest(message: string, part: 'request' | 'headers' | 'body') {
  return new ValidationError(message, [{ path: part, message }]);
}

/**
 * The request target (RFC 9112 §3.2): a path (`//x` stays a path, it names no host) or an absolute
 * http(s) URL, which is routed by its path. Anything else, or a URL that does not parse, is a 400.
 */
export function requestTarget(target: string): URL {
  try {
    if (target.startsWith('/')) return new URL(`http://localhost${target}`);
    const url = new URL(target);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // Not a URL: answered below.
  }
  throw badRequest('Malformed request target', 'request');
}

/** A map keyed by names the caller chose: no prototype, so `__proto__` or `toString` is just a key. */
export const namedByCaller = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

export interface RequestHeaders {
  /** Name as sent → last value (API Gateway's `headers`). */
  single: Record<string, string>;
  /** Name as sent → every value (API Gateway's `multiValueHeaders`). */
  multi: Record<string, string[]>;
  /** Every value of a header, whatever the letter case of its name. */
  values(name: string): string[];
}

export function requestHeaders(req: http.IncomingMessage): RequestHeaders {
  const single = namedByCaller<string>();
  const multi = namedByCaller<string[]>();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    single[raw[i]!] = raw[i + 1]!;
    (multi[raw[i]!] ??= []).push(raw[i + 1]!);
  }
  const values = (name: string) =>
    raw.flatMap((value, i) => (i % 2 === 1 && raw[i - 1]!.toLowerCase() === name ? [value] : []));
  return { single, multi, values };
}

/**
 * The body bytes, or null when there are none. Over the gateway's limit (declared or counted) it is
 * a 413 at once; the rest of the body is still read and dropped, so that the connection can carry
 * the next request without waiting (up to DISCARD_MAX_BYTES more: then the connection is closed).
 */
export function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const refuse = () => {
      refused = true;
      chunks.length = 0;
      reject(new PayloadTooLargeError());
    };
    if (Number(req.headers['content-length']) > GATEWAY_MAX_BODY_BYTES) refuse();
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refused) {
        if (size > GATEWAY_MAX_BODY_BYTES + DISCARD_MAX_BYTES) req.socket.destroy();
      } else if (size > GATEWAY_MAX_BODY_BYTES) {
        refuse();
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', () => resolve(size === 0 ? null : Buffer.concat(chunks)));
    // The client went away mid-body: nobody is left to read the answer, but the request ends here.
    const incomplete = () => reject(badRequest('Request body incomplete', 'body'));
    req.on('error', incomplete);
    req.on('close', () => {
      if (!req.complete) incomplete();
    });
  });
}

/**
 * What Node's HTTP parser refuses before there is a request (a request line or headers over
 * 16 KiB, a malformed request line or header, a timeout) gets the contract's error shape too,
 * written straight to the socket, which is then closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A connection the client closed, or one with an answer under way, cannot take another answer.
  const busy = (socket as Duplex & { _httpMessage?: unknown })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || busy) {
    socket.destroy();
    return;
  }
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? badRequest(
          `Request line and headers must be at most ${http.maxHeaderSize / 1024} KiB in total`,
          'headers',
        )
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? badRequest('Request not received in time', 'request')
        : badRequest('Malformed HTTP request', 'request');
  const requestId = randomUUID();
  const response = json(apiError.status, toErrorBody(apiError, requestId), requestId, apiError.headers);
  const head = [
    `HTTP/1.1 ${apiError.status} ${http.STATUS_CODES[apiError.status] ?? 'Bad Request'}`,
    ...Object.entries(flatHeaders(response)).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(response.body)}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${response.body}`);
  // Closed for good once the client has had time to read the answer (or has closed its side).
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
