/**
 * Generated requests for every route, from the published document alone: valid requests built from its
 * parameter and body schemas (values.ts), and hostile mutations of them (hostile.ts) — wrong types at
 * every depth, deep nesting, huge and unicode strings, `__proto__`/`constructor`/`prototype` keys,
 * boundary numbers, bad media types, bad or missing tokens, mangled path and query parameters.
 *
 * Used by the fuzz tests in `npm test` (test/e2e/fuzz.test.ts) and by `npm run fuzz` (test/fuzz/fuzz.ts).
 */
import fc from 'fast-check';
import { addKeyAt, hostileValue, huge, places, PROTO_KEYS, replaceAt, unicode } from './hostile';
import type { FuzzContext, Operation } from './operations';
import { valueOf } from './values';

export interface FuzzRequest {
  method: string;
  /** Path and query, ready to send. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** What was done to it (for the report of a failing case). */
  mutation: string;
}

type Parts = {
  path: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
};

function validParts(operation: Operation, context: FuzzContext): fc.Arbitrary<Parts> {
  const asText = (a: fc.Arbitrary<unknown>) => a.map((value) => String(value));
  const params = (list: Operation['pathParameters'], optional: boolean) =>
    fc.record(Object.fromEntries(list.map((p) => [p.name, asText(valueOf(p.schema, context, p.name))])), {
      requiredKeys: optional ? [] : list.map((p) => p.name),
    }) as fc.Arbitrary<Record<string, string>>;
  return fc.record({
    path: params(operation.pathParameters, false),
    query: params(operation.queryParameters, true),
    body: operation.body ? valueOf(operation.body, context) : fc.constant(undefined),
  });
}

type Mutation = (parts: Parts, request: FuzzRequest) => fc.Arbitrary<[Parts, FuzzRequest]>;

const keep =
  (label: string, change: (parts: Parts, request: FuzzRequest) => void): Mutation =>
  (parts, request) => {
    const p = structuredCloneParts(parts);
    const r = { ...request, headers: { ...request.headers }, mutation: label };
    change(p, r);
    return fc.constant([p, r]);
  };

function structuredCloneParts(parts: Parts): Parts {
  return { path: { ...parts.path }, query: { ...parts.query }, body: parts.body };
}

const NONE: Mutation = keep('none', () => undefined);

function mutations(operation: Operation, context: FuzzContext): Array<[number, Mutation]> {
  const bodyPlace = (parts: Parts) => fc.constantFrom(...places(parts.body));
  const objectPlaces = (parts: Parts) => {
    const found = places(parts.body).filter((at) => {
      const node = at.reduce<unknown>((n, s) => (n as Record<string, unknown>)[s], parts.body);
      return node !== null && typeof node === 'object' && !Array.isArray(node);
    });
    return found.length > 0 ? fc.constantFrom(...found) : fc.constant<Array<string | number>>([]);
  };
  const list: Array<[number, Mutation]> = [
    [3, NONE],
    [
      6,
      (parts, request) =>
        fc.tuple(bodyPlace(parts), hostileValue).map(([at, value]) => [
          { ...parts, body: replaceAt(parts.body, at, value) },
          { ...request, mutation: `body${at.map((s) => `[${JSON.stringify(s)}]`).join('')} = hostile value` },
        ]),
    ],
    [
      2,
      (parts, request) =>
        fc
          .tuple(objectPlaces(parts), fc.constantFrom(...PROTO_KEYS), hostileValue)
          .map(([at, key, value]) => [
            { ...parts, body: addKeyAt(parts.body, at, key, value) },
            { ...request, mutation: `body key ${key} added` },
          ]),
    ],
    [
      2,
      (parts, request) =>
        fc
          .tuple(
            fc.constantFrom(...operation.queryParameters.map((p) => p.name), ...PROTO_KEYS, 'unknown'),
            fc.oneof(
              hostileValue.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
              unicode,
            ),
          )
          .map(([name, value]) => [
            // Kept under the gateway's 16 KB URL limit: a longer URL is refused as HTTP (400, headers), before any route.
            { ...parts, query: { ...parts.query, [name]: value.slice(0, 1000) } },
            { ...request, mutation: `query ${name} = hostile value` },
          ]),
    ],
    [
      2,
      (parts, request) =>
        fc
          .constantFrom(
            '',
            'text/plain',
            'application/xml',
            'application/x-www-form-urlencoded',
            'application/json-patch+json',
            'multipart/form-data; boundary=x',
            'application/jsonx',
            'APPLICATION/JSON; charset=utf-8',
          )
          .map((type) => [
            parts,
            {
              ...request,
              headers: { ...request.headers, 'Content-Type': type },
              mutation: `Content-Type: ${type}`,
            },
          ]),
    ],
    [
      2,
      (parts, request) =>
        fc
          .oneof(
            fc.constant(null),
            fc.constantFrom(...context.otherTokens).map((t) => `Bearer ${t}`),
            fc.constantFrom(
              'Bearer',
              'Bearer ',
              'Basic YWxpY2U6cw==',
              'bearer x',
              `Bearer ${context.token}x`,
              'Bearer demo_acme_alice_all_scopes_000',
            ),
            unicode.map((t) => `Bearer ${t}`),
            fc.string({ minLength: 3000, maxLength: 5000 }).map((t) => `Bearer ${t}`),
          )
          .map((authorization) => {
            const headers = { ...request.headers };
            if (authorization === null) delete headers['Authorization'];
            else headers['Authorization'] = authorization.replace(/[\r\n\0]/g, '');
            return [
              parts,
              { ...request, headers, mutation: `Authorization: ${authorization?.slice(0, 40) ?? 'none'}` },
            ];
          }),
    ],
  ];
  if (operation.pathParameters.length > 0) {
    list.push([
      2,
      (parts, request) =>
        fc
          .tuple(
            fc.constantFrom(...operation.pathParameters.map((p) => p.name)),
            fc.oneof(
              unicode,
              huge.map((s) => s.slice(0, 300)),
              fc.constantFrom('%', '%00', '..', '.', '-1', '1e3', '__proto__'),
            ),
          )
          .map(([name, value]) => [
            { ...parts, path: { ...parts.path, [name]: value } },
            { ...request, mutation: `path ${name} = hostile value` },
          ]),
    ]);
  }
  if (operation.body) {
    list.push([
      1,
      (parts, request) =>
        fc
          .constantFrom('{', '[1,', 'nul', '"x"', '1', 'null', '[]', '\uFEFF{}', '{"a":1}{"b":2}', '')
          .map((text) => [parts, { ...request, body: text, mutation: `body text ${JSON.stringify(text)}` }]),
    ]);
  }
  return list;
}

function toRequest(operation: Operation, parts: Parts, request: FuzzRequest): FuzzRequest {
  const path = operation.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    encodeURIComponent(parts.path[name] ?? ''),
  );
  const query = new URLSearchParams(Object.entries(parts.query)).toString();
  const url = `${path}${query ? `?${query}` : ''}`;
  const body =
    request.body !== undefined
      ? request.body
      : parts.body === undefined
        ? undefined
        : JSON.stringify(parts.body);
  return { ...request, url, ...(body !== undefined ? { body } : {}) };
}

/**
 * Requests for one operation: a valid one, then (most of the time) one hostile mutation of it; always
 * mutated when `hostileOnly` (batches meant to be rejected whole, so a write's table can be compared).
 */
export function requestsFor(
  operation: Operation,
  context: FuzzContext,
  hostileOnly = false,
): fc.Arbitrary<FuzzRequest> {
  const base: FuzzRequest = {
    method: operation.method,
    url: '',
    headers: {
      Authorization: `Bearer ${context.token}`,
      ...(operation.body ? { 'Content-Type': 'application/json' } : {}),
    },
    mutation: 'none',
  };
  const weighted = mutations(operation, context).filter(([, mutate]) => !hostileOnly || mutate !== NONE);
  return validParts(operation, context).chain((parts) =>
    fc
      .oneof(...weighted.map(([weight, mutate]) => ({ weight, arbitrary: fc.constant(mutate) })))
      .chain((mutate) => mutate(parts, base))
      .map(([mutatedParts, request]) => toRequest(operation, mutatedParts, request)),
  );
}

/** What must never be in an answer: traces, internal names, AWS error text. */
export function internalsIn(raw: string, tableName?: string): string[] {
  const found: string[] = [];
  if (/\n\s+at .+:\d+:\d+/.test(raw)) found.push('a stack trace');
  if (/node_modules|\/work\/|\/var\/task/.test(raw)) found.push('a file path');
  if (/Exception|ConditionalCheckFailed|ProvisionedThroughput|DynamoDB|AccessDenied/i.test(raw)) {
    found.push('AWS error text');
  }
  if (tableName && raw.includes(tableName)) found.push('the table name');
  return found;
}
