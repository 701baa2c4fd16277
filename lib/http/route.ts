/**
 * What a route is. Each domain declares its routes beside its use cases (`lib/<domain>/routes.ts`);
 * `lib/routes.ts` composes them into the one route table that the CDK stack, the local gateway, the
 * benchmark and the tests read. Pure data: importing a route pulls in its schemas and nothing else.
 */
import type { GenericSchema } from 'valibot';
import type { StorageAccess } from '../storage/access';
import type { ConflictCode } from './errors';
import type { RouteScope } from '../tokens/scopes';

/** Schemas of the request parts, each an object schema. */
export interface RequestSchemas {
  params?: GenericSchema;
  query?: GenericSchema;
  body?: GenericSchema;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Methods whose body has no defined meaning (RFC 9110 §9.3): a body sent with one is ignored whatever
 * its type, size or content. A body sent with any other method meets the contract's rules for bodies
 * (§1: size, JSON media type, valid JSON), whether or not the route reads one.
 */
export const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/** Whether a body sent to the route is checked (413, 415, 400 INVALID_JSON): any but a bodyless method. */
export const checksBody = (route: Pick<Route, 'method'>): boolean => !BODYLESS_METHODS.has(route.method);

export interface Route {
  method: HttpMethod;
  /** API Gateway path template, `{name}` for a path parameter. */
  path: string;
  summary: string;
  /** The scope the caller's token needs; `any` = any valid token; `null` = public (no token). */
  scope: RouteScope | null;
  /**
   * Least privilege by key: the DynamoDB actions the route's function makes and, for each, the
   * partitions it touches, named from lib/storage/partitions.ts (built from the key module):
   * `storage: { GetItem: [partitions.company], BatchGetItem: [partitions.company] }`; `{}` for none.
   * A TransactWriteItems counts as its items' PutItem / UpdateItem / DeleteItem / ConditionCheckItem;
   * a Query on an index names the index's partition (`partitions.listMemberships`). Scan cannot be
   * declared. The stack makes the function's IAM policy from it (`dynamodb:LeadingKeys`), and every
   * storage call a request makes is checked against it (lib/storage/access.ts): an undeclared call
   * fails in the tests as it would be denied on AWS.
   */
  storage: StorageAccess;
  request: RequestSchemas;
  /** The success status: 200 unless the route says otherwise (201 created, 202 accepted, 204 no content). */
  status?: 200 | 201 | 202 | 204;
  /** The success body; absent for 204. */
  response?: GenericSchema;
  /**
   * The success body's media type when it is not JSON (the reference page's HTML): the handler answers
   * the text itself and it is sent as is. The OpenAPI document lists it under this type.
   */
  mediaType?: 'text/html; charset=utf-8';
  /** The answer holds text in the caller's language (contract §4): it carries `Content-Language`. */
  translated?: boolean;
  /** Honours the `Idempotency-Key` header (contract §7.5): a repeat with the same body gets the first answer. */
  idempotent?: boolean;
  /**
   * The 409 codes the route can answer (a conflict with stored data); `idempotent` adds
   * `IDEMPOTENCY_KEY_REUSED`. The OpenAPI document lists 409 only for these routes, with these codes.
   */
  conflicts?: readonly ConflictCode[];
  /** Takes a cursor that can expire (contract §12, the events feed): it may answer 410 `CURSOR_EXPIRED`. */
  cursorExpires?: true;
}

/**
 * The handler file of a route, relative to the project root: its id in kebab case
 * (`getCompanyFinancials` → `functions/get-company-financials.ts`). One spelling per endpoint.
 */
export function handlerEntry(routeId: string): string {
  return `functions/${routeId.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.ts`;
}
