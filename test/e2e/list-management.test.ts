/** Managing lists (contract §7.6) over HTTP through the local gateway: every endpoint, scopes, visibility, bad input. */
import { loadDemoLists } from '../../infra/local/demo-lists';
import { LIST_KEYS } from '../support/contract';
import { expectError, TOKENS, useApi, type Api } from './http';

const api: Api = useApi();

beforeAll(async () => {
  expect(await loadDemoLists(api.records)).toEqual([1, 2, 3, 4, 5, 6, 7]);
});

const json = (method: string, path: string, body: unknown, token: string = TOKENS.alice) =>
  api.send(method, path, {
    token,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('GET /v1/lists/{id}', () => {
  it('answers a visible list in the shape of the overview', async () => {
    const response = await api.get('/v1/lists/4');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual([...LIST_KEYS]);
    const overview = (await api.get('/v1/lists?type=SMART')).body.data[0];
    expect(response.body).toEqual(overview);
  });

  it('answers 404 for lists of other users and accounts, 400 for a bad id, 403 without lists:read', async () => {
    await expectError(await api.get('/v1/lists/3'), 404, 'NOT_FOUND', 'List not found');
    await expectError(await api.get('/v1/lists/5'), 404, 'NOT_FOUND', 'List not found');
    await expectError(
      await api.get('/v1/lists/6', { token: TOKENS.carol }),
      404,
      'NOT_FOUND',
      'List not found',
    );
    expect((await api.get('/v1/lists/abc')).status).toBe(400);
    expect((await api.get('/v1/lists/1', { token: TOKENS.bob })).status).toBe(403);
    expect((await api.get('/v1/lists/6', { token: TOKENS.dave })).status).toBe(200);
  });
});

describe('POST, PATCH and DELETE /v1/lists/{id}', () => {
  it('creates a smart list with its NEW companies, changes it, and deletes it', async () => {
    const created = await json('POST', '/v1/lists', {
      name: 'Construction in BE',
      type: 'SMART',
      shared: true,
      filters: { countries: ['BE'], activities: ['41', '43'] },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect(created.headers.get('location')).toBe(`/v1/lists/${id}`);
    // Stopped companies never enter a smart list as NEW (§11.5.8).
    const expected = api.records.filter(
      (r) =>
        r.country === 'BE' &&
        r.stoppedOn === null &&
        r.activities.some((a) => a.startsWith('41') || a.startsWith('43')),
    ).length;
    expect(expected).toBeGreaterThan(0);
    expect(created.body).toMatchObject({ amountOfCompanies: expected, newResults: expected });
    const fresh = await api.get(`/v1/lists/${id}/companies?type=NEW&limit=500`);
    expect(fresh.body.pagination.total).toBe(expected);

    const again = await json('POST', '/v1/lists', { name: 'construction in be ', type: 'STATIC' });
    await expectError(again, 409, 'LIST_NAME_TAKEN');

    const first = fresh.body.data[0].identifier;
    const moved = await json('PATCH', `/v1/lists/${id}/companies`, {
      companies: [
        { country: first.country, companyNumber: first.companyNumber, state: 'ARCHIVED' },
        { country: 'NL', companyNumber: '12345678', state: 'SAVED' },
      ],
    });
    expect(moved.status).toBe(200);
    expect(moved.raw).toBe(
      '{"updated":1,"failed":[{"parameters":{"country":"NL","companyNumber":"12345678","state":"SAVED"},"message":"Company not in list"}]}',
    );

    const renamed = await json('PATCH', `/v1/lists/${id}`, { name: 'Building in BE', columns: ['place'] });
    expect(renamed.body).toMatchObject({
      name: 'Building in BE',
      columns: ['place'],
      amountOfCompanies: expected - 1,
      newResults: expected - 1,
    });

    // Dave (lists only, other account) cannot see it; bob (no lists scope) is refused first.
    expect((await json('PATCH', `/v1/lists/${id}`, { name: 'x' }, TOKENS.carol)).status).toBe(404);
    expect((await api.send('DELETE', `/v1/lists/${id}`, { token: TOKENS.bob })).status).toBe(403);

    const deleted = await api.send('DELETE', `/v1/lists/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.raw).toBe('');
    await expectError(await api.get(`/v1/lists/${id}`), 404, 'NOT_FOUND', 'List not found');
    await expectError(await api.send('DELETE', `/v1/lists/${id}`), 404, 'NOT_FOUND', 'List not found');
  });

  it("refuses another user's change of sharing and deletion with 403, the creator's list being visible", async () => {
    // List 1 is alice's and shared; bob cannot write lists at all, so use carol's shared list 5 and dave.
    await expectError(
      await json('PATCH', '/v1/lists/5', { shared: false }, TOKENS.dave),
      403,
      'FORBIDDEN',
      "Only the list's creator may do this",
    );
    await expectError(await api.send('DELETE', '/v1/lists/5', { token: TOKENS.dave }), 403, 'FORBIDDEN');
    expect((await json('PATCH', '/v1/lists/5', { shared: true }, TOKENS.dave)).status).toBe(200);
  });

  it('answers bad input with 400 and details, a body without a JSON type with 415', async () => {
    const bad = await json('POST', '/v1/lists', {
      name: 'x',
      type: 'SMART',
      filters: { employees: { min: 10, max: 5 }, activities: ['1'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'filters.activities[0]',
      'filters.employees',
    ]);
    expect((await json('PATCH', '/v1/lists/4', { notifications: { enabled: true } })).status).toBe(400);
    expect((await json('PATCH', '/v1/lists/1', { filters: { countries: ['BE'] } })).status).toBe(400);
    expect((await json('PATCH', '/v1/lists/1.5', { name: 'x' })).status).toBe(400);
    const moveBad = await json('PATCH', '/v1/lists/4/companies', { companies: [{ state: 'NEW' }] });
    expect(moveBad.body.details).toEqual([
      { path: 'companies[0].state', message: 'must be SAVED or ARCHIVED' },
    ]);
    const noType = await api.send('POST', '/v1/lists', { body: '{"name":"x","type":"STATIC"}' });
    expect(noType.status).toBe(415);
  });
});
