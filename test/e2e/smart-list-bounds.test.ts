/**
 * The bound on an account's smart lists (contract §7.6, §2.1) over HTTP through the local gateway: a
 * create or filter change past it answers 409 LIMIT_REACHED in the contract's error shape and changes
 * nothing; a delete gives the place back. The bound is lowered through its configuration
 * (SMART_LISTS_MAX_COMPANIES) to just above what one list holds.
 */
import { expectError, useApi, type Api } from './http';

const api: Api = useApi();
const MESSAGE = (n: number) =>
  `An account's smart lists can hold at most ${n.toLocaleString('en-US')} companies`;

const json = (method: string, path: string, body: unknown) =>
  api.send(method, path, { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

const previous = process.env['SMART_LISTS_MAX_COMPANIES'];
afterAll(() => {
  if (previous === undefined) delete process.env['SMART_LISTS_MAX_COMPANIES'];
  else process.env['SMART_LISTS_MAX_COMPANIES'] = previous;
});

it('refuses smart lists past the account’s bound with 409 LIMIT_REACHED, and stores nothing', async () => {
  const belgium = await json('POST', '/v1/lists', {
    name: 'Belgium',
    type: 'SMART',
    filters: { countries: ['BE'] },
  });
  expect(belgium.status).toBe(201);
  const inBelgium = belgium.body.amountOfCompanies as number;
  expect(inBelgium).toBeGreaterThan(1);
  const bound = inBelgium + 1;
  process.env['SMART_LISTS_MAX_COMPANIES'] = String(bound);

  const dutch = await json('POST', '/v1/lists', {
    name: 'Dutch',
    type: 'SMART',
    filters: { countries: ['NL'] },
  });
  expectError(dutch, 409, 'LIMIT_REACHED', MESSAGE(bound));
  const names = (await api.get('/v1/lists?type=SMART&limit=500')).body.data.map(
    (l: { name: string }) => l.name,
  );
  expect(names).toEqual(['Belgium']);

  const path = `/v1/lists/${belgium.body.id as number}`;
  const wider = await json('PATCH', path, { filters: { countries: ['BE', 'NL'] } });
  expectError(wider, 409, 'LIMIT_REACHED', MESSAGE(bound));
  expect((await api.get(path)).body).toEqual(belgium.body);

  expect((await api.send('DELETE', path)).status).toBe(204);
  const again = await json('POST', '/v1/lists', {
    name: 'Belgium',
    type: 'SMART',
    filters: { countries: ['BE'] },
  });
  expect(again.status).toBe(201);
  expect(again.body.amountOfCompanies).toBe(inBelgium);
});
