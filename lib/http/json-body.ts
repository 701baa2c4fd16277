/**
 * A request body as JSON (contract §1, §2.1): `@middy/http-json-body-parser` parses it, between the
 * guards it does not have. In this order:
 *   1. size: over 1 MiB → 413 PAYLOAD_TOO_LARGE (counted as received, before any work on it);
 *   2. media type: not `application/json` → 415 UNSUPPORTED_MEDIA_TYPE. The contract's rule, not the
 *      parser's: the parser takes `+json` types and refuses `Application/JSON` (media types are
 *      case-insensitive, RFC 9110), so the type is checked here and given to it in lower case;
 *   3. UTF-8: a body that is not valid UTF-8 → 400 INVALID_JSON (the parser would decode it lossily,
 *      turning bad bytes into U+FFFD and accepting them);
 *   4. the parser: content type, base64, JSON.parse; its errors (both 415) become the contract's 415 and
 *      400 INVALID_JSON;
 *   5. depth: arrays and objects nested more than MAX_BODY_DEPTH levels → 400 VALIDATION_ERROR.
 * An absent or empty body is left undefined for the route's schema to judge ("body is required").
 */
import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { InvalidJsonError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from './errors';

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Arrays and objects nested deeper than this make the body a 400 VALIDATION_ERROR. No request body
 * of the contract nests more than a few levels; the bound keeps every later step (validation,
 * echoing a value as sent, serialising) far from the stack limit.
 */
export const MAX_BODY_DEPTH = 32;
/** Contract §1: `application/json`, parameters allowed; anything else (even `+json` types) is 415. */
const JSON_MEDIA_TYPE = /^application\/json\s*(?:;.*)?$/i;

const utf8 = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

type Middleware = middy.MiddlewareObj<APIGatewayProxyEvent>;

/** The middlewares, in the order they run: guards, the parser, the depth bound. */
export function jsonBody(): Middleware[] {
  return [bodyGuards(), parser(), depthBound()];
}

/** Steps 1 to 3. Headers are already lower-cased (lib/http/endpoint.ts). */
function bodyGuards(): Middleware {
  return {
    before: ({ event }) => {
      const { body, isBase64Encoded, headers } = event;
      if (body === null || body === undefined || body === '') {
        (event as { body: unknown }).body = undefined;
        return;
      }
      // A base64 body (the local gateway sends invalid UTF-8 that way, so no byte is re-encoded)
      // counts its decoded bytes, a text body its UTF-8 bytes.
      const bytes = isBase64Encoded ? Buffer.from(body, 'base64') : null;
      if ((bytes ? bytes.length : Buffer.byteLength(body, 'utf8')) > MAX_BODY_BYTES) {
        throw new PayloadTooLargeError();
      }
      const contentType = headers['content-type'] ?? '';
      if (!JSON_MEDIA_TYPE.test(contentType)) throw new UnsupportedMediaTypeError();
      // The parser's own check is case-sensitive and wants `;` right after the type: give it the
      // type as the contract reads it.
      const parameters = contentType.slice('application/json'.length).trim();
      headers['content-type'] = parameters.length > 1 ? `application/json${parameters}` : 'application/json';
      if (bytes) {
        let text: string;
        try {
          text = utf8.decode(bytes);
        } catch {
          throw new InvalidJsonError();
        }
        // Decoded once, here, strictly: the parser then reads the text as it is.
        event.body = text;
        event.isBase64Encoded = false;
      }
    },
  };
}

/** Step 4: the card's parser, on a body that is there, its answers in the contract's words. */
function parser(): Middleware {
  const { before } = httpJsonBodyParser() as Required<Middleware>;
  return {
    before: async (request) => {
      if (request.event.body === undefined) return;
      try {
        await before(request);
      } catch (error) {
        throw contractError(error);
      }
    },
  };
}

/**
 * The parser answers 415 both for a content type it refuses ("Unsupported Media Type") and for a body
 * that is not JSON ("Invalid or malformed JSON was provided"); the contract says 415 for the first and
 * 400 INVALID_JSON for the second. Anything else it might throw is not a caller's mistake: passed on.
 */
function contractError(error: unknown): unknown {
  const cause = (error as { cause?: { package?: string } }).cause;
  if (cause?.package !== '@middy/http-json-body-parser') return error;
  return (error as Error).message === 'Unsupported Media Type'
    ? new UnsupportedMediaTypeError()
    : new InvalidJsonError();
}

/** Step 5. */
function depthBound(): Middleware {
  return {
    before: ({ event }) => {
      if (depthOf(event.body, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
        const detail = `must not nest arrays and objects more than ${MAX_BODY_DEPTH} levels deep`;
        throw ValidationError.field(`body ${detail}`, 'body', detail);
      }
    },
  };
}

/**
 * How deeply arrays and objects nest in a parsed JSON value (a scalar is 0, `[]` is 1), counted
 * without recursion (JSON.parse accepts any depth; a recursive walk would overflow the stack), and
 * only up to `limit + 1`.
 */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (depth > limit) return deepest;
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return deepest;
}
