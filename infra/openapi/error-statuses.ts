/**
 * The error answers of the OpenAPI document: each a shared component (contract §2.1), and the ones a
 * route can give derived from what its row declares:
 *
 *   | the row declares                      | the route may answer                                   |
 *   |---------------------------------------|--------------------------------------------------------|
 *   | `scope` (not null)                    | 401 UNAUTHORIZED, 403 FORBIDDEN                        |
 *   | a params, query or body schema        | 400 VALIDATION_ERROR                                   |
 *   | POST, PUT or PATCH (`checksBody`)     | 400 INVALID_JSON, 413 PAYLOAD_TOO_LARGE, 415           |
 *   | a path parameter                      | 404 NOT_FOUND (the named resource, or not the caller's)|
 *   | `conflicts`, or `idempotent`          | 409 with exactly those codes (IDEMPOTENCY_KEY_REUSED)  |
 *   | `cursorExpires`                       | 410 CURSOR_EXPIRED                                     |
 *   | `storage` touching the table          | 503 UNAVAILABLE                                        |
 *   | every route                           | 429 THROTTLED (the gateway), 500 INTERNAL              |
 */
import type { ConflictCode } from '../../lib/http/errors';
import { checksBody, type Route } from '../../lib/http/route';
import { touchesTable } from '../../lib/storage/access';

export interface ErrorStatus {
  status: string;
  name: string;
  description: string;
  retryAfter?: boolean;
}

/** The error answers, each a shared component: status, name and when (contract §2.1). */
export const ERRORS = {
  badRequest: {
    status: '400',
    name: 'BadRequest',
    description:
      '`VALIDATION_ERROR`: a parameter or body field is missing, of the wrong type or out of range ' +
      '(`details` has one entry per field); `INVALID_JSON`: the body is not JSON (routes with a body).',
  },
  unauthorized: {
    status: '401',
    name: 'Unauthorized',
    description: '`UNAUTHORIZED`: no token, a malformed header, or an unknown, revoked or expired token.',
  },
  forbidden: {
    status: '403',
    name: 'Forbidden',
    description:
      '`FORBIDDEN`: the token lacks the scope this operation needs (or the action is the creator’s).',
  },
  notFound: {
    status: '404',
    name: 'NotFound',
    description:
      '`NOT_FOUND`: what the path names does not exist, or the caller may not see it (never 403, so ids ' +
      'cannot be probed).',
  },
  conflict: {
    status: '409',
    name: 'Conflict',
    // Written per route, with the route's own codes (`conflictResponse`).
    description: 'The request conflicts with stored data.',
  },
  cursorExpired: {
    status: '410',
    name: 'CursorExpired',
    description: '`CURSOR_EXPIRED`: the cursor is older than the 30 days events are kept.',
  },
  payloadTooLarge: {
    status: '413',
    name: 'PayloadTooLarge',
    description: '`PAYLOAD_TOO_LARGE`: the body is over 1 MiB.',
  },
  unsupportedMediaType: {
    status: '415',
    name: 'UnsupportedMediaType',
    description: '`UNSUPPORTED_MEDIA_TYPE`: a body sent without `Content-Type: application/json`.',
  },
  throttled: {
    status: '429',
    name: 'Throttled',
    description: '`THROTTLED`: rate or quota exceeded; retry after `Retry-After` seconds.',
    retryAfter: true,
  },
  internal: {
    status: '500',
    name: 'Internal',
    description: '`INTERNAL`: an unexpected failure; the message is `Internal server error`.',
  },
  unavailable: {
    status: '503',
    name: 'Unavailable',
    description:
      '`UNAVAILABLE`: storage throttled or unreachable after retries; retry after `Retry-After` seconds.',
    retryAfter: true,
  },
} as const satisfies Record<string, ErrorStatus>;

/** The error statuses a route can give, derived from its row (the table at the top of this file). */
export function errorStatusesOf(route: Route): ErrorStatus[] {
  const { params, query } = route.request;
  const bodyChecked = checksBody(route);
  const statuses: ErrorStatus[] = [];
  if (params || query || bodyChecked) statuses.push(ERRORS.badRequest);
  if (route.scope !== null) statuses.push(ERRORS.unauthorized, ERRORS.forbidden);
  if (pathParameters(route.path).length > 0) statuses.push(ERRORS.notFound);
  if (conflictCodesOf(route).length > 0) statuses.push(ERRORS.conflict);
  if (route.cursorExpires) statuses.push(ERRORS.cursorExpired);
  if (bodyChecked) statuses.push(ERRORS.payloadTooLarge, ERRORS.unsupportedMediaType);
  statuses.push(ERRORS.throttled, ERRORS.internal);
  if (touchesTable(route.storage)) statuses.push(ERRORS.unavailable);
  return statuses;
}

/** The 409 codes a route can answer: its row's, and IDEMPOTENCY_KEY_REUSED when it is idempotent. */
export function conflictCodesOf(route: Route): ConflictCode[] {
  return [...(route.conflicts ?? []), ...(route.idempotent ? (['IDEMPOTENCY_KEY_REUSED'] as const) : [])];
}

const CONFLICTS: Record<ConflictCode, string> = {
  LIST_NOT_STATIC: 'companies added to a SMART list',
  LIST_NAME_TAKEN: 'a list name the account already uses',
  IDEMPOTENCY_KEY_REUSED:
    'the same `Idempotency-Key` with another body, or while the first request still runs',
  LIMIT_REACHED:
    'the account already has as many as its limit allows (200 lists, 5 webhook endpoints, 1,000,000 companies in its smart lists together)',
};

/** A route's 409: the contract error body, its `code` one of the route's conflict codes. */
export function conflictResponse(route: Route): Record<string, unknown> {
  const codes = conflictCodesOf(route);
  return {
    description: `The request conflicts with stored data: ${codes.map((c) => `\`${c}\` (${CONFLICTS[c]})`).join('; ')}.`,
    headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Error' },
            { type: 'object', properties: { code: { enum: codes } } },
          ],
        },
      },
    },
  };
}

/** Every status the document lists for a route: its success status, then its error statuses. */
export function statusesOf(route: Route): number[] {
  return [route.status ?? 200, ...errorStatusesOf(route).map((e) => Number(e.status))];
}

export function pathParameters(routePath: string): string[] {
  return [...routePath.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}
