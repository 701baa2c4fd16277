/**
 * The local gateway's answers as the deployed stage sends them: any failure in the contract's error shape,
 * large answers compressed as the stage compresses them, header values flattened to strings.
 */
import type http from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import Negotiator from 'negotiator';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { json, MIN_COMPRESSION_BYTES } from '../../lib/http/endpoint';
import { ApiError, asApiError, toErrorBody } from '../../lib/http/errors';

/** Any failure as a contract error answer: ApiErrors as they are, storage trouble 503, anything else 500. */
export function errorResult(error: unknown, requestId: string): APIGatewayProxyResult {
  if (!(error instanceof ApiError)) {
    // Name and message only: no stack trace in a log line, even locally.
    const { name, message } = error instanceof Error ? error : { name: 'Unknown', message: String(error) };
    console.error(
      JSON.stringify({ level: 'ERROR', message: 'local gateway failure', error: { name, message } }),
    );
  }
  const apiError = asApiError(error);
  return json(apiError.status, toErrorBody(apiError, requestId), requestId, apiError.headers);
}

/**
 * The reference page and the OpenAPI document are large and the same text on every call, and gzip of
 * the page is slow next to serving it: large answers keep their compressed bytes, the last few of them.
 */
const CACHED_FROM_BYTES = 64 * 1024;
const CACHED_ANSWERS = 4;
const compressedCache = { gzip: new Map<string, Buffer>(), deflate: new Map<string, Buffer>() };

/**
 * As the stage compresses (infra/stack.ts `minCompressionSize`): an answer of MIN_COMPRESSION_BYTES or
 * more, in gzip or deflate when the request's Accept-Encoding takes one (q-values honoured, gzip first).
 */
export function compressed(
  req: http.IncomingMessage,
  response: APIGatewayProxyResult,
): { body: string | Buffer; encoding?: 'gzip' | 'deflate' } {
  const text = response.body ?? '';
  const raw = () => (response.isBase64Encoded ? Buffer.from(text, 'base64') : text);
  const encoding = new Negotiator(req).encoding(['gzip', 'deflate', 'identity']);
  if (encoding !== 'gzip' && encoding !== 'deflate') return { body: raw() };
  // Keyed by the answer's text itself: the same string on every call, hashed once by the engine.
  const cached = compressedCache[encoding].get(text);
  if (cached) return { body: cached, encoding };
  const bytes = Buffer.from(text, response.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length < MIN_COMPRESSION_BYTES) return { body: bytes };
  const body = encoding === 'gzip' ? gzipSync(bytes) : deflateSync(bytes);
  if (bytes.length >= CACHED_FROM_BYTES) {
    const cache = compressedCache[encoding];
    if (cache.size >= CACHED_ANSWERS) cache.delete(cache.keys().next().value!);
    cache.set(text, body);
  }
  return { body, encoding };
}

export function flatHeaders(response: APIGatewayProxyResult): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(response.headers ?? {})) headers[key] = String(value);
  return headers;
}
