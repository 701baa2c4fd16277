/**
 * What endpoint() makes of a request's parts (contract §1, §2.1): one 400 names every offending field of
 * the path, the query and the body together; a POST that sends a body meets the rules for bodies (JSON
 * media type, valid JSON, 1 MiB) also where its route reads none, and such a route never sees it.
 * Test routes, real REST proxy events; no storage.
 */
import * as v from 'valibot';
import { endpoint } from '../../lib/http/endpoint';
import type { Route } from '../../lib/http/route';
import { jsonObject } from '../../lib/http/schemas';
import { call } from '../support/events';

const limit = v.optional(
  v.pipe(v.unknown(), v.transform(Number), v.integer(), v.minValue(1), v.maxValue(500)),
);

const filed = {
  method: 'PATCH',
  path: '/v1/things/{id}',
  summary: 'test',
  scope: 'lists:write',
  storage: {},
  request: {
    params: v.object({ id: v.pipe(v.string(), v.regex(/^\d+$/, 'must be a number')) }),
    query: v.object({ limit }),
    body: jsonObject({ name: v.string('must be a string') }),
  },
  response: v.object({ id: v.string() }),
} as const satisfies Route;
const patchThing = endpoint(filed, async ({ params }) => ({ id: params.id }));

let seen: unknown[] = [];
const bodiless = {
  method: 'POST',
  path: '/v1/things/{id}/poke',
  summary: 'test',
  scope: 'lists:write',
  storage: {},
  request: {},
  response: v.object({ poked: v.boolean() }),
} as const satisfies Route;
const poke = endpoint(bodiless, async (request) => {
  seen.push(request.body);
  return { poked: true };
});
beforeEach(() => (seen = []));

describe('a request with several offending parts', () => {
  it('answers one 400 with a detail for each offending field of the path, the query and the body, in that order', async () => {
    const response = await call(patchThing, {
      method: 'PATCH',
      pathParameters: { id: 'abc' },
      query: { limit: '0' },
      body: { name: 7 },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'id must be a number (and 2 more)',
      details: [
        { path: 'id', message: 'must be a number' },
        { path: 'limit', message: expect.any(String) },
        { path: 'name', message: 'must be a string' },
      ],
    });
  });

  it('names only the parts that offend', async () => {
    const response = await call(patchThing, {
      method: 'PATCH',
      pathParameters: { id: '12' },
      query: { limit: '501' },
      body: { name: 'ok' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      message: 'limit must be an integer between 1 and 500',
      details: [{ path: 'limit' }],
    });
  });

  it('answers a request whose parts are all valid', async () => {
    const response = await call(patchThing, {
      method: 'PATCH',
      pathParameters: { id: '12' },
      query: { limit: '5' },
      body: { name: 'ok' },
    });
    expect(response).toMatchObject({ status: 200, body: { id: '12' } });
  });
});

describe('a body sent to a POST whose route reads none', () => {
  const pokeWith = (body: string | undefined, headers: Record<string, string> = {}) =>
    call(poke, { method: 'POST', pathParameters: { id: '1' }, body, headers });

  it.each([
    ['text/plain', 'hi'],
    ['application/x-www-form-urlencoded', 'a=1'],
    ['application/merge-patch+json', '{}'],
  ])('answers 415 to a %s body and runs nothing', async (contentType, body) => {
    const response = await pokeWith(body, { 'Content-Type': contentType });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(seen).toEqual([]);
  });

  it('answers 400 INVALID_JSON to a JSON body that is not JSON', async () => {
    const response = await pokeWith('{"a":', { 'Content-Type': 'application/json' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'INVALID_JSON' });
    expect(seen).toEqual([]);
  });

  it('answers 413 to a body over 1 MiB', async () => {
    const response = await pokeWith(JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }));
    expect(response.status).toBe(413);
    expect(seen).toEqual([]);
  });

  it('takes a JSON body, or none, and hands the route nothing', async () => {
    expect((await pokeWith('{"unknown": true}')).status).toBe(200);
    expect((await pokeWith(undefined)).status).toBe(200);
    expect((await pokeWith('', { 'Content-Type': 'text/plain' })).status).toBe(200);
    expect(seen).toEqual([undefined, undefined, undefined]);
  });
});
