/**
 * Generated requests for every route, from the published document alone (so a route merged tomorrow is
 * fuzzed with no change here): valid requests built from its parameter and body schemas, with demo
 * values where a name says what it is, and hostile mutations of them — wrong types at every depth,
 * deep nesting, huge and unicode strings, `__proto__`/`constructor`/`prototype` keys, boundary numbers,
 * bad media types, bad or missing tokens, mangled path and query parameters.
 *
 * Used by the fuzz tests in `npm test` (test/e2e/fuzz.test.ts) and by `npm run fuzz` (test/fuzz/fuzz.ts).
 */
import type { Country } from '../../lib/companies/identifiers';
import {
  FULL_ID_SPACE,
  legalEntityIdCandidate,
  LOCAL_LEGAL_ENTITY_SECRET,
} from '../../lib/legal-entities/ids';
import fc from 'fast-check';
import type { OpenApiDocument } from '../../infra/openapi/document';

type Schema = Record<string, unknown>;

export interface Operation {
  routeId: string;
  method: string;
  /** The path template, `{name}` per parameter. */
  path: string;
  pathParameters: Array<{ name: string; schema: Schema }>;
  queryParameters: Array<{ name: string; schema: Schema }>;
  body: Schema | null;
  public: boolean;
}

export interface FuzzRequest {
  method: string;
  /** Path and query, ready to send. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** What was done to it (for the report of a failing case). */
  mutation: string;
}

/** A company of the stage; what else is known of it makes realistic searches and match entries. */
export interface FuzzCompany {
  country: string;
  companyNumber: string;
  name?: string;
  vatNumber?: string | null;
  website?: string | null;
  place?: string | null;
}

/** What the fuzzer takes of a company record (a demo record has all of it). */
export const fuzzCompany = (r: FuzzCompany): FuzzCompany => ({
  country: r.country,
  companyNumber: r.companyNumber,
  name: r.name,
  vatNumber: r.vatNumber,
  website: r.website,
  place: r.place,
});

/** What the generator may use of the stage it fuzzes: known companies, lists, tokens. */
export interface FuzzContext {
  companies: FuzzCompany[];
  listIds: string[];
  /** Webhook endpoints of the token's account (the path `id` of /v1/webhooks/{id} is drawn from both). */
  webhookIds?: string[];
  /** The legal entity ids of `companies` (their own entities). */
  legalEntityIds: string[];
  /** A token with every scope; the others are tokens with fewer scopes (403s). */
  token: string;
  otherTokens: string[];
}

/**
 * The own legal entity ids of companies on the local stage (the first candidate of the local stage's
 * key: among a few dozen companies no two collide).
 */
export function legalEntityIdsOf(companies: Array<{ country: string; companyNumber: string }>): string[] {
  const scheme = { secret: LOCAL_LEGAL_ENTITY_SECRET, space: FULL_ID_SPACE };
  return companies.map((c) =>
    legalEntityIdCandidate({ country: c.country as Country, companyNumber: c.companyNumber }, 0, scheme),
  );
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = (operation.parameters ?? []) as Array<{ name: string; in: string; schema: Schema }>;
      const content = (operation.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)
        ?.content;
      operations.push({
        routeId: operation.operationId as string,
        method: method.toUpperCase(),
        path,
        pathParameters: parameters.filter((p) => p.in === 'path'),
        queryParameters: parameters.filter((p) => p.in === 'query'),
        body: content?.['application/json']?.schema ?? null,
        public: Array.isArray(operation.security) && operation.security.length === 0,
      });
    }
  }
  return operations;
}

// ---- Valid values, from the schemas ----------------------------------------------------------------

/** Values that name something real on the stage, by parameter or field name. */
function hints(context: FuzzContext): Record<string, fc.Arbitrary<unknown>> {
  const company = fc.constantFrom(...context.companies);
  const present = (values: Array<string | null | undefined>) =>
    values.filter((value): value is string => typeof value === 'string' && value.length > 0);
  const names = present(context.companies.map((c) => c.name));
  const vatNumbers = present(context.companies.map((c) => c.vatNumber));
  const websites = present(context.companies.map((c) => c.website));
  const places = present(context.companies.map((c) => c.place));
  return {
    countryCode: fc.oneof(
      { weight: 4, arbitrary: company.map((c) => c.country) },
      { weight: 1, arbitrary: fc.constantFrom('be', 'Nl', 'DE', 'XX', '') },
    ),
    country: company.map((c) => c.country),
    companyNumber: fc.oneof(
      { weight: 4, arbitrary: company.map((c) => c.companyNumber) },
      { weight: 1, arbitrary: fc.constantFrom('0403.170.701', 'BE0403170701', '403170701', '123', '') },
    ),
    id: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...context.listIds, ...(context.webhookIds ?? [])) },
      fc.constantFrom('999999', '0'),
    ),
    legalEntityId: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...context.legalEntityIds) },
      { weight: 1, arbitrary: fc.stringMatching(/^\d{10,12}$/) },
    ),
    // A webhook URL: the local stage's own machine (accepted), or one the rules refuse without resolving a
    // name (no fuzzed request makes a DNS lookup or a connection).
    url: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('http://127.0.0.1:9/hook', 'http://localhost:9/in') },
      fc.constantFrom('https://10.0.0.1/x', 'https://169.254.169.254/', 'ftp://localhost/', 'http://[::1]/'),
    ),
    // A state move (PATCH /v1/lists/{id}/companies), checked by hand: its fields come from here.
    state: fc.constantFrom('SAVED', 'ARCHIVED', 'NEW'),
    // A search (§6.5): a name whole or by word prefixes, a number or VAT number in an input form, and
    // now and then one the rules refuse (under 2 or over 100 characters once trimmed).
    q: fc.oneof(
      { weight: 3, arbitrary: known(names).chain(wordPrefixes) },
      { weight: 2, arbitrary: known(names) },
      { weight: 2, arbitrary: company.map((c) => c.companyNumber) },
      { weight: 1, arbitrary: known(vatNumbers).map(withSpaces) },
      fc.constantFrom(' a ', 'x', '  ', 'é'.repeat(101), `  ${'bakkerij '.repeat(11).trim()}  `),
    ),
    // Match entries (§6.5) and list entries (§7.5): what a customer's CRM holds of a company.
    name: fc.oneof(
      { weight: 4, arbitrary: known(names) },
      {
        weight: 2,
        arbitrary: known(names).map((n) => n.toUpperCase().replace(/\s+(NV|BV|SRL|SAS|SA)$/, '')),
      },
      fc.constantFrom('Zyxqua Qwortel', 'x'.repeat(201), ''),
    ),
    VAT: fc.oneof(
      { weight: 4, arbitrary: known(vatNumbers).chain((vat) => fc.constantFrom(vat, withSpaces(vat))) },
      fc.constantFrom('BE0403170702', 'NL000000000B01', 'FR00000000000', ''),
    ),
    website: fc.oneof(
      { weight: 4, arbitrary: known(websites) },
      { weight: 1, arbitrary: known(websites).map((w) => w.replace(/^https?:\/\/(www\.)?/, '')) },
      fc.constantFrom('not a url', 'https://example.com/contact', ''),
    ),
    place: fc.oneof(
      { weight: 4, arbitrary: known(places) },
      fc.constantFrom('Gent', 'Amsterdam', 'Lyon', 'x'.repeat(201)),
    ),
  };
}

/** One of the values the stage's companies have, or text when none is known. */
function known(values: string[]): fc.Arbitrary<string> {
  return values.length > 0 ? fc.constantFrom(...values) : fc.string({ minLength: 2, maxLength: 20 });
}

/** A name's words, each cut to a prefix of 2 or more letters (a prefix of each word is enough, §6.5). */
const wordPrefixes = (name: string): fc.Arbitrary<string> =>
  fc
    .tuple(
      ...name.split(/\s+/).map((word) => fc.integer({ min: Math.min(2, word.length), max: word.length })),
    )
    .map((lengths) =>
      name
        .split(/\s+/)
        .map((word, i) => word.slice(0, lengths[i]))
        .join(' '),
    );

/** `BE0403170701` as people write it: `BE 0403.170.701`. */
const withSpaces = (vat: string) => vat.replace(/^([A-Z]{2})(\d{4})(\d{3})(\d{3})$/, '$1 $2.$3.$4');

export function valueOf(schema: Schema, context: FuzzContext, name?: string): fc.Arbitrary<unknown> {
  const hint = name !== undefined ? hints(context)[name] : undefined;
  if (hint) return hint;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.anyOf))
    return fc.oneof(...(schema.anyOf as Schema[]).map((s) => valueOf(s, context)));
  switch (schema.type) {
    case 'integer': {
      const min = (schema.minimum as number | undefined) ?? -1000;
      const max = (schema.maximum as number | undefined) ?? 1000;
      return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max: Math.min(max, min + 20) }));
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string':
      if (schema.format === 'date') return fc.constantFrom('2024-01-31', '2023-12-31');
      if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
      return fc.string({ maxLength: 20 });
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const minLength = (schema.minItems as number | undefined) ?? 0;
      const maxLength = Math.max(minLength, Math.min((schema.maxItems as number | undefined) ?? 4, 4));
      return fc.array(valueOf(items, context), { minLength, maxLength });
    }
    case 'object': {
      // An object the schema checks by hand (no properties named): made of the fields the hints know.
      if (!schema.properties) {
        const known = hints(context);
        return fc.record(known, { requiredKeys: [] });
      }
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required as string[] | undefined) ?? [];
      return fc.record(
        Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, valueOf(s, context, key)])),
        { requiredKeys: required.filter((key) => key in properties) },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

// ---- Hostile values ---------------------------------------------------------------------------------

const BOUNDARY_NUMBERS = [
  0,
  -0,
  -1,
  1,
  0.5,
  1.5,
  99.999,
  2 ** 31,
  -(2 ** 31),
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e21,
  1e308,
  -1e308,
  5e-324,
];

const unicode = fc.string({ unit: 'binary', maxLength: 40 });
const huge = fc
  .integer({ min: 1_000, max: 200_000 })
  .chain((n) => fc.constantFrom('a', '€', '😀', '\u0000', '\uFFFD', 'e\u0301').map((unit) => unit.repeat(n)));

/** A value of any JSON type, chosen to break an assumption: the wrong type wherever it lands. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(...BOUNDARY_NUMBERS),
  fc.constantFrom('', ' ', '0', '-1', 'null', 'true', '[]', '{}', 'NaN', 'Infinity', '1e3', '0x10', '00'),
  unicode,
  huge,
  fc.constant([]),
  fc.constant({}),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 20, max: 60 }).map(nested),
);

/** Arrays and objects nested `depth` levels deep (the API refuses more than 32). */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

/** Every place in a value: the root, each object key and each array index, at every depth. */
function places(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const found = [at];
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...places(item, [...at, i])));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) found.push(...places(item, [...at, key]));
  }
  return found;
}

function replaceAt(value: unknown, at: Array<string | number>, replacement: unknown): unknown {
  if (at.length === 0) return replacement;
  const [head, ...rest] = at;
  if (Array.isArray(value))
    return value.map((item, i) => (i === head ? replaceAt(item, rest, replacement) : item));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as object)) {
    // An own `__proto__` key survives the copy (and JSON.stringify) only when defined as a property.
    Object.defineProperty(copy, key, {
      value: key === head ? replaceAt(item, rest, replacement) : item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

function addKeyAt(value: unknown, at: Array<string | number>, key: string, added: unknown): unknown {
  const target = at.reduce<unknown>((node, step) => (node as Record<string, unknown>)[step], value);
  if (target === null || typeof target !== 'object' || Array.isArray(target)) return value;
  const extended: Record<string, unknown> = {};
  Object.defineProperty(extended, key, {
    value: added,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  for (const [k, item] of Object.entries(target)) {
    Object.defineProperty(extended, k, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return replaceAt(value, at, extended);
}

// ---- Requests -----------------------------------------------------------------------------------------

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
