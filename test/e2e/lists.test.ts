/** The list endpoints (contract §7.1–§7.5) over HTTP through the local gateway, on the demo lists. */
import { demoLists, loadDemoLists } from '../../infra/local/demo-lists';
import { LIST_KEYS } from '../support/contract';
import { SCOPES } from '../../lib/tokens/scopes';
import { createToken } from '../../lib/tokens/tokens';
import { expectError, expectValidationError, TOKENS, useApi, type Api } from './http';

const api: Api = useApi();

beforeAll(async () => {
  expect(await loadDemoLists(api.records)).toEqual([1, 2, 3, 4, 5, 6, 7]);
});

const put = (
  path: string,
  body: unknown,
  token: string = TOKENS.alice,
  headers: Record<string, string> = {},
) =>
  api.send('PUT', path, {
    token,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('GET /v1/lists', () => {
  it("shows the caller's own lists and its account's shared ones, newest change first", async () => {
    const response = await api.get('/v1/lists?limit=10');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data', 'pagination']);
    expect(response.body.data.map((l: { id: number }) => l.id).sort()).toEqual([1, 2, 4]);
    expect(response.body.pagination).toEqual({ limit: 10, offset: 0, total: 3 });
    for (const list of response.body.data) expect(Object.keys(list)).toEqual([...LIST_KEYS]);
    const updated = response.body.data.map((l: { updatedAt: string }) => l.updatedAt);
    expect([...updated].sort().reverse()).toEqual(updated);
  });

  it('filters by type and states counters per the contract', async () => {
    const smart = (await api.get('/v1/lists?type=SMART')).body;
    expect(smart.data).toHaveLength(1);
    const demo = demoLists(api.records)[3]!;
    const count = (state: string) =>
      demo.groups.filter((g) => g.state === state).flatMap((g) => g.companies).length;
    expect(smart.data[0]).toMatchObject({
      id: 4,
      type: 'SMART',
      notifications: { enabled: false },
      amountOfCompanies: count('SAVED') + count('NEW'),
      newResults: count('NEW'),
    });
    const statics = (await api.get('/v1/lists?type=STATIC')).body;
    expect(statics.data.map((l: { newResults: null }) => l.newResults)).toEqual([null, null]);
  });

  it('shows another user of the same account only its own and shared lists', async () => {
    const dave = (await api.get('/v1/lists', { token: TOKENS.dave })).body;
    expect(dave.data.map((l: { id: number }) => l.id).sort()).toEqual([5, 6]);
    const carol = (await api.get('/v1/lists', { token: TOKENS.carol })).body;
    expect(carol.data.map((l: { id: number }) => l.id).sort()).toEqual([5, 7]);
  });

  it('needs lists:read and answers a bad type with 400', async () => {
    expectError(await api.get('/v1/lists', { token: TOKENS.bob }), 403, 'FORBIDDEN');
    expectValidationError(await api.get('/v1/lists?type=ALL'), ['type']);
    expectValidationError(await api.get('/v1/lists?limit=0'), ['limit']);
  });
});

describe('GET /v1/lists/{id}/companies', () => {
  it('pages the companies of every state, with exact totals per type', async () => {
    const all = (await api.get('/v1/lists/4/companies?limit=500')).body;
    const demo = demoLists(api.records)[3]!;
    expect(all.pagination.total).toBe(demo.groups.flatMap((g) => g.companies).length);
    for (const type of ['SAVED', 'ARCHIVED', 'NEW']) {
      const page = (await api.get(`/v1/lists/4/companies?type=${type}&limit=500`)).body;
      const expected = demo.groups.filter((g) => g.state === type).flatMap((g) => g.companies);
      expect(page.pagination.total).toBe(expected.length);
      expect(
        page.data.map((d: { identifier: { companyNumber: string } }) => d.identifier.companyNumber).sort(),
      ).toEqual(expected.map((r) => r.companyNumber).sort());
    }
    const since = all.data.map((d: { matchedSince: string }) => d.matchedSince);
    expect([...since].sort().reverse()).toEqual(since);
    expect(Object.keys(all.data[0])).toEqual(['identifier', 'matchedSince']);
    expect(Object.keys(all.data[0].identifier)).toEqual(['country', 'companyNumber', 'name', 'place']);
  });

  it('gives an empty page with the true total past the end, and an empty NEW on a static list', async () => {
    const total = demoLists(api.records)[0]!.groups.flatMap((g) => g.companies).length;
    expect(total).toBeGreaterThan(4);
    expect((await api.get('/v1/lists/1/companies?offset=10000')).body).toEqual({
      data: [],
      pagination: { limit: 4, offset: 10000, total },
    });
    expect((await api.get('/v1/lists/1/companies?type=NEW')).body.pagination.total).toBe(0);
  });

  it('answers 404 List not found for lists of other users and accounts, and for unknown ids', async () => {
    for (const [path, token] of [
      ['/v1/lists/3/companies', TOKENS.alice],
      ['/v1/lists/1/companies', TOKENS.carol],
      ['/v1/lists/6/companies', TOKENS.carol],
      ['/v1/lists/999/companies', TOKENS.alice],
    ] as const) {
      expectError(await api.get(path, { token }), 404, 'NOT_FOUND', 'List not found');
    }
  });

  it('answers a non-integer id or a bad type with 400, and a token without lists:read with 403', async () => {
    expectValidationError(await api.get('/v1/lists/abc/companies'), ['id']);
    expectValidationError(await api.get('/v1/lists/0/companies'), ['id']);
    expectValidationError(await api.get('/v1/lists/1/companies?type=saved'), ['type']);
    expectError(await api.get('/v1/lists/1/companies', { token: TOKENS.bob }), 403, 'FORBIDDEN');
  });
});

describe('GET /v1/lists/{id}/contacts', () => {
  it('lists the contacts of the non-archived companies in the contract shape, with an exact total', async () => {
    const demo = demoLists(api.records)[0]!;
    const kept = demo.groups.filter((g) => g.state !== 'ARCHIVED').flatMap((g) => g.companies);
    const response = await api.get('/v1/lists/1/contacts?limit=500');
    expect(response.status).toBe(200);
    expect(response.body.pagination.total).toBe(kept.reduce((n, r) => n + r.contacts.length, 0));
    expect(response.body.data).toHaveLength(response.body.pagination.total);
    const first = response.body.data[0];
    expect(Object.keys(first)).toEqual(['jobTitle', 'identifier', 'company']);
    expect(Object.keys(first.identifier)).toEqual(['contactId', 'firstName', 'lastName']);
    expect(Object.keys(first.company)).toEqual(['country', 'companyNumber', 'name', 'place']);
    const archived = new Set(
      demo.groups
        .filter((g) => g.state === 'ARCHIVED')
        .flatMap((g) => g.companies.map((r) => r.companyNumber)),
    );
    expect(
      response.body.data.some((c: { company: { companyNumber: string } }) =>
        archived.has(c.company.companyNumber),
      ),
    ).toBe(false);
    const page = (await api.get('/v1/lists/1/contacts?limit=3&offset=2')).body;
    expect(page.data).toEqual(response.body.data.slice(2, 5));
  });

  it('is invisible to other accounts', async () => {
    expectError(
      await api.get('/v1/lists/1/contacts', { token: TOKENS.carol }),
      404,
      'NOT_FOUND',
      'List not found',
    );
  });
});

describe('PUT /v1/lists/{id}/companies', () => {
  const company = (i: number) => api.records[i]!;

  it('adds matched companies, reports failures and leaves present companies alone', async () => {
    const present = demoLists(api.records)[4]!.groups[1]!.companies[0]!; // ARCHIVED in list 5
    const fresh = api.records.find(
      (r) => !demoLists(api.records)[4]!.groups.some((g) => g.companies.includes(r)),
    )!;
    const response = await put(
      '/v1/lists/5/companies',
      {
        companies: [
          { VAT: fresh.vatNumber.toLowerCase(), name: fresh.name, unknown: 1 },
          { companyNumber: present.companyNumber, country: present.country },
          { companyNumber: '123' },
        ],
      },
      TOKENS.carol,
    );
    expect(response.status).toBe(200);
    expect(response.raw).toBe(
      JSON.stringify({
        success: true,
        message: 'Successfully added 1 company to the list',
        failed: [{ parameters: { companyNumber: '123' }, message: 'Company not found' }],
      }),
    );
    const archived = (await api.get('/v1/lists/5/companies?type=ARCHIVED&limit=500', { token: TOKENS.carol }))
      .body;
    expect(
      archived.data.map((d: { identifier: { companyNumber: string } }) => d.identifier.companyNumber),
    ).toContain(present.companyNumber);
  });

  it('replays the first answer to a repeated Idempotency-Key and refuses another body with 409', async () => {
    const body = { companies: [{ companyNumber: company(30).companyNumber, country: company(30).country }] };
    const headers = { 'Idempotency-Key': 'e2e-put-1' };
    const first = await put('/v1/lists/7/companies', body, TOKENS.carol, headers);
    const repeat = await put('/v1/lists/7/companies', body, TOKENS.carol, headers);
    expect(first.body.message).toBe('Successfully added 1 company to the list');
    expect(repeat.raw).toBe(first.raw);
    const other = await put('/v1/lists/7/companies', { companies: [{ name: 'x' }] }, TOKENS.carol, headers);
    expectError(other, 409, 'IDEMPOTENCY_KEY_REUSED');
    expectValidationError(
      await put('/v1/lists/7/companies', body, TOKENS.carol, { 'Idempotency-Key': 'bad key' }),
      ['Idempotency-Key'],
    );
  });

  it("answers a colleague's repeat of a key for a private list with 404: never the stored answer, never 409", async () => {
    // Erin, of alice's account, adds to her own private list with a key.
    const { token: erin } = await createToken({
      accountId: 'acme',
      userEmail: 'erin@acme.example',
      scopes: [...SCOPES],
      expiresAt: null,
    });
    const created = await api.send('POST', '/v1/lists', {
      token: erin,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Erin only', type: 'STATIC', shared: false }),
    });
    expect(created.status).toBe(201);
    const path = `/v1/lists/${created.body.id}/companies`;
    const body = { companies: [{ companyNumber: company(31).companyNumber, country: company(31).country }] };
    const headers = { 'Idempotency-Key': 'erin-private-1' };
    const first = await put(path, body, erin, headers);
    expect(first.status).toBe(200);

    // Alice repeats it: the same body, and another body. Both are a list she may not see.
    expectError(await put(path, body, TOKENS.alice, headers), 404, 'NOT_FOUND', 'List not found');
    expectError(await put(path, { companies: [{ name: 'x' }] }, TOKENS.alice, headers), 404, 'NOT_FOUND');
    // Erin's repeat still gets her first answer; alice's own use of the same key is hers alone.
    expect((await put(path, body, erin, headers)).raw).toBe(first.raw);
    const own = await put('/v1/lists/1/companies', body, TOKENS.alice, headers);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({
      success: true,
      message: expect.stringMatching(/^Successfully added/),
      failed: [],
    });
  });

  it('answers 409 on a smart list, 404 on lists the caller cannot see, 403 without lists:write', async () => {
    const body = { companies: [{ companyNumber: company(0).companyNumber, country: company(0).country }] };
    expectError(
      await put('/v1/lists/4/companies', body),
      409,
      'LIST_NOT_STATIC',
      'Companies can only be added to static lists',
    );
    expectError(await put('/v1/lists/3/companies', body), 404, 'NOT_FOUND', 'List not found');
    expectError(await put('/v1/lists/5/companies', body), 404, 'NOT_FOUND', 'List not found');
    expectError(await put('/v1/lists/2/companies', body, TOKENS.bob), 403, 'FORBIDDEN');
    expectError(await put('/v1/lists/999999/companies', body), 404, 'NOT_FOUND', 'List not found');
  });

  it('refuses a structurally bad request as a whole with 400', async () => {
    const entry = { name: 'Acme' };
    const cases: Array<[unknown, string[]]> = [
      [{ companies: [] }, ['companies']],
      [{ companies: Array.from({ length: 101 }, () => entry) }, ['companies']],
      [{ companies: [entry, { other: 'x' }] }, ['companies[1]']],
      [{ companies: [{ name: 'x'.repeat(201) }] }, ['companies[0].name']],
      [{ companies: [{ VAT: 12, website: null }] }, ['companies[0].VAT', 'companies[0].website']],
      [{ companies: ['BE0403170701'] }, ['companies[0]']],
      [{}, ['companies']],
    ];
    for (const [body, paths] of cases) expectValidationError(await put('/v1/lists/2/companies', body), paths);
    expectValidationError(await put('/v1/lists/abc/companies', { companies: [entry] }), ['id']);
    expectError(await put('/v1/lists/2/companies', '{"companies": ['), 400, 'INVALID_JSON');
    // 200 characters are allowed.
    const longest = await put('/v1/lists/2/companies', { companies: [{ name: 'x'.repeat(200) }] });
    expect(longest.body).toEqual({
      success: false,
      message: 'No companies were added to the list',
      failed: [{ parameters: { name: 'x'.repeat(200) }, message: 'Company not found' }],
    });
  });
});
