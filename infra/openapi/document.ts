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
import { checksBody, type Route } from '../../lib/http/route';
import { eventSchema } from '../../lib/events/schemas';
import { ANY_SCOPE, SCOPES } from '../../lib/tokens/scopes';
import { conflictResponse, ERRORS, errorStatusesOf, type ErrorStatus } from './error-statuses';
import { parameterValues, type Example } from './examples';
import { jsonSchemaOf } from './schema';

const ROOT = path.join(__dirname, '..', '..');

/** What the document is built from: the route table by domain (each domain is a tag). */
export type RoutesByDomain = Record<string, Record<string, Route>>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenApiDocument = Record<string, any>;

export function openApiDocument(
  routesByDomain: RoutesByDomain,
  /** Each route's example request and the local stage's answer to it, by route id (docs/examples.json). */
  examples: Record<string, Example> = {},
): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [domain, domainRoutes] of Object.entries(routesByDomain)) {
    for (const [routeId, route] of Object.entries(domainRoutes)) {
      const methods = (paths[route.path] ??= {});
      methods[route.method.toLowerCase()] = operation(routeId, route, domain, examples[routeId]);
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
      license: {
        name: 'Proprietary: used under the customer contract',
        identifier: 'LicenseRef-Proprietary',
      },
    },
    // Relative to where the document is served (`<stage>/v1/openapi.json`): the stage that serves it,
    // whichever it is (`npm start` on any PORT, a deployed stage under its stage name).
    servers: [{ url: '..', description: 'The stage that serves this document' }],
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
  example: Example | undefined,
): Record<string, unknown> {
  const { params, query, body } = route.request;
  const takesBody = body !== undefined && checksBody(route);
  const values = example ? parameterValues(route, example.request) : {};
  const header = (name: string) => example?.request.headers?.[name];
  const parameters = [
    ...parametersOf(params, 'path', values),
    ...parametersOf(query, 'query', values),
    ...(route.translated
      ? [
          {
            name: 'Accept-Language',
            in: 'header',
            required: false,
            description:
              '`EN`, `NL` or `FR` (any case), or standard syntax (`nl-BE`, `fr;q=0.9,en;q=0.8`); missing or unsupported is `EN`. Never an error.',
            schema: { type: 'string' },
            ...withExample(header('Accept-Language')),
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
            ...withExample(header('Idempotency-Key')),
          },
        ]
      : []),
  ];
  const description = [
    route.scope === null
      ? 'No token needed.'
      : route.scope === ANY_SCOPE
        ? 'Needs a valid token, whatever its scopes.'
        : `Needs a token with the scope \`${route.scope}\`.`,
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
            content: {
              'application/json': {
                schema: jsonSchemaOf(body, 'request'),
                ...withExample(example?.request.body),
              },
            },
          },
        }
      : {}),
    responses: {
      [String(route.status ?? 200)]: successResponse(route, example?.response),
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

function parametersOf(
  schema: v.GenericSchema | undefined,
  where: 'path' | 'query',
  values: Record<string, string>,
) {
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
      // A query's text as the value its schema documents (`limit=2` is the integer 2).
      ...withExample(
        values[name] !== undefined && ['integer', 'number'].includes(propertySchema.type as string)
          ? Number(values[name])
          : values[name],
      ),
    };
  });
}

/** `example`, where the recorded exchange has one. */
const withExample = (value: unknown) => (value === undefined ? {} : { example: value });

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
