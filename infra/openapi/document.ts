/**
 * The OpenAPI 3.1 document, generated from the route table alone: every route's parameters, body and
 * answer come from the valibot schemas that validate and type them (./schema.ts), and the error
 * statuses a route can give are derived from what its row declares (./error-statuses.ts).
 *
 * A new route row appears here with no change to this file: `npm run openapi` regenerates
 * docs/openapi.json, and test/unit/openapi.test.ts fails while the committed file is stale.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { JsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { errorSchema } from '../../lib/http/schemas';
import type { Route } from '../../lib/http/route';
import { eventSchema } from '../../lib/events/schemas';
import { SCOPES } from '../../lib/tokens/scopes';
import { BODYLESS, conflictResponse, ERRORS, errorStatusesOf, type ErrorStatus } from './error-statuses';
import { jsonSchemaOf } from './schema';

const ROOT = path.join(__dirname, '..', '..');

/** What the document is built from: the route table by domain (each domain is a tag). */
export type RoutesByDomain = Record<string, Record<string, Route>>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenApiDocument = Record<string, any>;

/** Example values for parameters and body fields, by name, taken from the demo data (test/fixtures/demo-data). */
export type Examples = Record<string, unknown>;

export function openApiDocument(
  routesByDomain: RoutesByDomain,
  examples: Examples = {},
  /** Each route's success answer on the demo data, by route id (docs/examples.json). */
  answers: Record<string, unknown> = {},
): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [domain, domainRoutes] of Object.entries(routesByDomain)) {
    for (const [routeId, route] of Object.entries(domainRoutes)) {
      const methods = (paths[route.path] ??= {});
      methods[route.method.toLowerCase()] = operation(routeId, route, domain, examples, answers[routeId]);
    }
  }
  const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Company Data and Lists API',
      version,
      summary:
        'Business data about companies registered in Belgium, the Netherlands and France, and lists of them.',
      description: infoDescription(),
    },
    servers: [{ url: 'http://localhost:3000', description: 'The local stage (npm start)' }],
    tags: Object.keys(routesByDomain).map((domain) => ({
      name: domain,
      description: `The ${domain} endpoints.`,
    })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b, 'en'))),
    webhooks: webhookDeliveries(),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            '`Authorization: Bearer <token>`. Each operation names the scope its token needs: ' +
            SCOPES.map((s) => `\`${s}\``).join(', ') +
            ' (contract §5).',
        },
      },
      schemas: {
        Error: { ...jsonSchemaOf(errorSchema, 'response'), description: 'The error body (contract §2.1).' },
      },
      headers: {
        RequestId: {
          description: 'The gateway request id; an error body repeats it as `requestId`.',
          schema: { type: 'string' },
        },
        RetryAfter: {
          description: 'Seconds to wait before retrying.',
          schema: { type: 'integer', minimum: 0 },
        },
      },
      // Every error answer but 409, whose codes differ per route (`conflictResponse`).
      responses: Object.fromEntries(
        Object.values(ERRORS)
          .filter((error: ErrorStatus) => error !== ERRORS.conflict)
          .map((error: ErrorStatus) => [
            error.name,
            {
              description: error.description,
              headers: {
                'x-request-id': { $ref: '#/components/headers/RequestId' },
                ...(error.retryAfter ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
              },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
            },
          ]),
      ),
    },
  };
}

function operation(
  routeId: string,
  route: Route,
  domain: string,
  examples: Examples,
  answer: unknown,
): Record<string, unknown> {
  const { params, query, body } = route.request;
  const takesBody = body !== undefined && !BODYLESS.has(route.method);
  const parameters = [
    ...parametersOf(params, 'path', examples),
    ...parametersOf(query, 'query', examples),
    ...(route.translated
      ? [
          {
            name: 'Accept-Language',
            in: 'header',
            required: false,
            description:
              '`EN`, `NL` or `FR` (any case), or standard syntax (`nl-BE`, `fr;q=0.9,en;q=0.8`); missing or unsupported is `EN`. Never an error.',
            schema: { type: 'string' },
            example: 'nl-BE',
          },
        ]
      : []),
    ...(route.idempotent
      ? [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'Repeated within 24 hours with the same body, the first answer is returned and nothing changes; with another body, 409 `IDEMPOTENCY_KEY_REUSED`. Scoped to the account and the user; a repeat for a list the caller may not see is 404, like a first request.',
            schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
            example: 'b7e9c1f2-add-companies-1',
          },
        ]
      : []),
  ];
  const description = [
    route.scope === null ? 'No token needed.' : `Needs a token with the scope \`${route.scope}\`.`,
    route.idempotent ? 'Honours `Idempotency-Key`.' : '',
    route.translated
      ? 'Translated text follows `Accept-Language`; the answer says which in `Content-Language`.'
      : '',
  ]
    .filter(Boolean)
    .join(' ');
  return {
    operationId: routeId,
    tags: [domain],
    summary: route.summary,
    description,
    security: route.scope === null ? [] : [{ bearerAuth: [route.scope] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(takesBody
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': withExample(jsonSchemaOf(body, 'request'), examples) },
          },
        }
      : {}),
    responses: {
      [String(route.status ?? 200)]: successResponse(route, answer),
      ...Object.fromEntries(
        errorStatusesOf(route).map((e) => [
          e.status,
          e === ERRORS.conflict ? conflictResponse(route) : { $ref: `#/components/responses/${e.name}` },
        ]),
      ),
    },
  };
}

function successResponse(route: Route, answer: unknown): Record<string, unknown> {
  const status = route.status ?? 200;
  const headers: Record<string, unknown> = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
  if (route.translated) {
    headers['Content-Language'] = {
      description: 'The language of the translated text: `en`, `nl` or `fr`.',
      schema: { type: 'string', enum: ['en', 'nl', 'fr'] },
    };
  }
  if (status === 201) {
    headers['Location'] = { description: 'The path of the created resource.', schema: { type: 'string' } };
  }
  const description = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' }[status];
  if (status === 204 || !route.response) return { description, headers };
  const mediaType = route.mediaType ?? 'application/json';
  return {
    description,
    headers,
    content: {
      [mediaType]: {
        schema: jsonSchemaOf(route.response, 'response'),
        ...(answer === undefined ? {} : { example: answer }),
      },
    },
  };
}

function parametersOf(schema: v.GenericSchema | undefined, where: 'path' | 'query', examples: Examples) {
  if (!schema) return [];
  const object = jsonSchemaOf(schema, 'request');
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const { description, ...propertySchema } = property as JsonSchema;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: propertySchema,
      ...(examples[name] !== undefined ? { example: String(examples[name]) } : {}),
    };
  });
}

/** A body's example, from the example values by field name, where every required field has one. */
function withExample(schema: JsonSchema, examples: Examples): Record<string, unknown> {
  const example = exampleOf(schema, examples);
  return example === undefined ? { schema } : { schema, example };
}

function exampleOf(schema: JsonSchema, examples: Examples, name?: string): unknown {
  if (name !== undefined && examples[name] !== undefined) return examples[name];
  if (schema.type === 'object' && schema.properties) {
    const entries: Array<[string, unknown]> = [];
    for (const [key, property] of Object.entries(schema.properties)) {
      const value = exampleOf(property as JsonSchema, examples, key);
      if (value === undefined && schema.required?.includes(key)) return undefined;
      if (value !== undefined) entries.push([key, value]);
    }
    return Object.fromEntries(entries);
  }
  if (schema.type === 'array' && schema.items && typeof schema.items === 'object') {
    const item = exampleOf(schema.items as JsonSchema, examples);
    return item === undefined ? undefined : [item];
  }
  if (schema.default !== undefined) return schema.default;
  return undefined;
}

/**
 * The document's introduction, and the API decisions page (docs/decisions.md) in full, its headings
 * one level down so they sit under the introduction.
 */
function infoDescription(): string {
  const decisions = readFileSync(path.join(ROOT, 'docs', 'decisions.md'), 'utf8')
    .trim()
    .replace(/^(#+) /gm, '#$1 ');
  return [
    'Every path starts with `/v1`. Bodies are JSON in UTF-8 (`Content-Type: application/json`, at most 1 MiB). ' +
      'Every answer carries `x-request-id`; an error answers `{"message", "code", "requestId", "details"?}` ' +
      '(`details` only for `VALIDATION_ERROR`). Pagination takes `limit` and `offset` and answers ' +
      '`{"limit", "offset", "total"}` with an exact `total`. Unknown body fields and query parameters are ignored.',
    decisions,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/**
 * What the API sends to a webhook endpoint (contract §12), as OpenAPI 3.1's `webhooks` describe it:
 * the event, signed per Standard Webhooks 1.0; a 2xx answer within 10 s delivers it.
 */
function webhookDeliveries(): Record<string, unknown> {
  const header = (description: string) => ({ required: true, schema: { type: 'string' }, description });
  return {
    event: {
      post: {
        operationId: 'receiveEvent',
        summary: 'An event of the account: an update of a watched company, or a test',
        // The receiver verifies the signature (the headers below); the API sends no token.
        security: [],
        description:
          'Sent to every enabled endpoint of the account, at least once: deduplicate on `webhook-id`. ' +
          'A failed attempt (another status than 2xx, a timeout of 10 s, a refused or reset connection, a ' +
          'redirect, never followed) is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h ' +
          '(± 20 %); after the eighth the delivery is `failed`. Verify the signature with any Standard ' +
          "Webhooks library and the endpoint's secret.",
        parameters: [
          { in: 'header', name: 'webhook-id', ...header('The event id, the same on every attempt.') },
          { in: 'header', name: 'webhook-timestamp', ...header('Unix seconds of this attempt.') },
          {
            in: 'header',
            name: 'webhook-signature',
            ...header(
              '`v1,<base64 of HMAC-SHA256 over "id.timestamp.body">`, space-separated, one per valid secret ' +
                '(two for 24 hours after a rotation).',
            ),
          },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: jsonSchemaOf(eventSchema, 'response') } },
        },
        responses: { '2XX': { description: 'Delivered.' } },
      },
    },
  };
}
