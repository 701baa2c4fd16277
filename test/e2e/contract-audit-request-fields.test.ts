/**
 * Contract audit of request fields, each through the local gateway:
 * - text limits (§6.5 search and match, §7.5 PUT entries, §7.6 list names, §12 webhook descriptions):
 *   "at most N characters" counts characters — Unicode code points, as JSON (RFC 8259) and the OpenAPI
 *   document's `maxLength` count them — not UTF-16 units: an emoji is one character;
 * - a field sent as null where the contract allows null is kept as null (§12 webhook `description`).
 */
import { expectValidationError, useApi } from './http';

const api = useApi();

/** A character outside the Basic Multilingual Plane: two UTF-16 units, one character. */
const ROCKET = '🚀';
const chars = (n: number) => ROCKET.repeat(n);

async function send(method: string, path: string, body: unknown) {
  return api.send(method, path, {
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('text limits count characters, not UTF-16 units', () => {
  it('takes a list name of 200 characters and refuses 201 (§7.6: 1..200 characters after trimming)', async () => {
    const created = await send('POST', '/v1/lists', { name: chars(200), type: 'STATIC' });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe(chars(200));
    expectValidationError(await send('POST', '/v1/lists', { name: chars(201), type: 'STATIC' }), ['name']);
  });

  it('takes a PUT entry property of 200 characters and refuses 201 (§7.5)', async () => {
    const list = await send('POST', '/v1/lists', { name: 'Length audit', type: 'STATIC' });
    const path = `/v1/lists/${list.body.id}/companies`;
    const taken = await send('PUT', path, { companies: [{ name: chars(200) }] });
    expect(taken.status).toBe(200);
    expect(taken.body.failed).toEqual([{ parameters: { name: chars(200) }, message: 'Company not found' }]);
    expectValidationError(
      await send('PUT', path, { companies: [{ name: chars(201) }] }),
      ['companies[0].name'],
      'companies[0].name must be at most 200 characters',
    );
  });

  it('takes a match entry property of 200 characters and refuses 201 (§6.5)', async () => {
    const taken = await send('POST', '/v1/companies/match', { companies: [{ name: chars(200) }] });
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual([{ parameters: { name: chars(200) }, data: [], message: null }]);
    expectValidationError(await send('POST', '/v1/companies/match', { companies: [{ name: chars(201) }] }), [
      'companies[0].name',
    ]);
  });

  it('takes a search q of 100 characters and refuses 101 (§6.5: 2..100 characters after trimming)', async () => {
    const taken = await api.get(`/v1/companies?q=${encodeURIComponent(` ${chars(100)} `)}`);
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual([]);
    expectValidationError(await api.get(`/v1/companies?q=${encodeURIComponent(chars(101))}`), ['q']);
    expectValidationError(await api.get(`/v1/companies?q=${encodeURIComponent(ROCKET)}`), ['q']);
  });

  it('takes a webhook description of 500 characters and refuses 501 (§12)', async () => {
    const url = 'http://127.0.0.1:4999/hook';
    const created = await send('POST', '/v1/webhooks', { url, description: chars(500) });
    expect(created.status).toBe(201);
    expect(created.body.description).toBe(chars(500));
    expectValidationError(await send('POST', '/v1/webhooks', { url, description: chars(501) }), [
      'description',
    ]);
  });
});

describe('webhook endpoint description (§12: `"description"?`, answered as a string or null)', () => {
  it('keeps a description sent as null as null, at creation and on a change', async () => {
    const created = await send('POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:4999/hook',
      description: null,
    });
    expect(created.status).toBe(201);
    expect(created.body.description).toBeNull();

    const id = created.body.id as string;
    expect((await send('PATCH', `/v1/webhooks/${id}`, { description: 'CRM sync' })).body.description).toBe(
      'CRM sync',
    );
    const cleared = await send('PATCH', `/v1/webhooks/${id}`, { description: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.description).toBeNull();
    expect((await api.get(`/v1/webhooks/${id}`)).body.description).toBeNull();
    expect((await api.send('DELETE', `/v1/webhooks/${id}`)).status).toBe(204);
  });

  it('answers a description that is neither a string nor null with 400 on `description`', async () => {
    const refused = await send('POST', '/v1/webhooks', { url: 'http://127.0.0.1:4999/hook', description: 5 });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([{ path: 'description', message: 'must be a string or null' }]);
  });
});
