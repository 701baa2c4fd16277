/**
 * Adding companies to a static list (contract §7.5) with real REST proxy events, against DynamoDB
 * Local: entries matched by number, VAT, website or name, failures per entry, races and replays.
 */
import { getList } from '../../lib/lists/store/lists';
import { recordCalls } from '../support/dynamodb-calls';
import { ALICE } from '../support/events';
import {
  BOB,
  CAROL,
  useTableWith,
  listCompanies,
  newList,
  putCompanies,
  type Body,
} from '../support/list-calls';
import { MANY, MARTIN, NAMED } from '../support/list-companies';

useTableWith([...NAMED, ...MANY]);

describe('PUT /v1/lists/{id}/companies', () => {
  it('adds companies matched by number, VAT, website and name, and reports the others per entry', async () => {
    const id = await newList('STATIC');
    const response = await putCompanies(id, [
      { companyNumber: 'BE0403170701' },
      { VAT: `fr ${MARTIN.vatNumber!.slice(2)}`, country: 'fr' },
      { website: 'HTTP://WWW.Mulder-Bouw.NL/over-ons', extra: 'ignored' },
      { name: 'bakkerij peeters', country: 'BE' },
      { name: 'PEETERS, Bakkerij (B.V.)', website: 'peeters.be' },
      { companyNumber: '123' },
      { companyNumber: '0403170702', country: 'BE' },
      { country: 'DE', name: 'Acme' },
      { companyNumber: '0403170701', country: 'BE', VAT: MARTIN.vatNumber },
      { name: 'Acme Bouw', companyNumber: '0403.170.701' },
    ]);
    expect(response.status).toBe(200);
    expect(response.raw).toBe(
      JSON.stringify({
        success: true,
        message: 'Successfully added 4 companies to the list',
        failed: [
          {
            parameters: { name: 'bakkerij peeters', country: 'BE' },
            message: 'Several companies match; add companyNumber or VAT',
          },
          { parameters: { companyNumber: '123' }, message: 'Company not found' },
          { parameters: { companyNumber: '0403170702', country: 'BE' }, message: 'Invalid company number' },
          { parameters: { country: 'DE', name: 'Acme' }, message: 'Invalid country code' },
          {
            parameters: { companyNumber: '0403170701', country: 'BE', VAT: MARTIN.vatNumber },
            message: 'Company properties match different companies',
          },
        ],
      }),
    );
    const list = await getList('acme', id);
    expect(list?.counts).toEqual({ NEW: 0, SAVED: 4, ARCHIVED: 0 });
    expect(list?.contacts).toBe(2 + 1 + 0 + 1);
  });

  it('counts only new companies, keeps present ones as they are, and says 0 when all were there', async () => {
    const id = await newList('STATIC');
    const first = await putCompanies(id, [{ companyNumber: '0403170701', country: 'BE' }]);
    expect((first.body as Body).message).toBe('Successfully added 1 company to the list');
    const before = (await listCompanies(id)).body as Body;
    const again = await putCompanies(id, [
      { VAT: 'BE 0403.170.701' },
      { companyNumber: '403170701', country: 'be' },
    ]);
    expect(again.body).toEqual({
      success: true,
      message: 'Successfully added 0 companies to the list',
      failed: [],
    });
    expect((await listCompanies(id)).body).toEqual(before);
  });

  it('answers success false when entries failed and none was added', async () => {
    const id = await newList('STATIC');
    const response = await putCompanies(id, [
      { companyNumber: '999999999', country: 'FR' },
      { name: 'Nobody At All' },
    ]);
    expect(response.body).toEqual({
      success: false,
      message: 'No companies were added to the list',
      failed: [
        { parameters: { companyNumber: '999999999', country: 'FR' }, message: 'Invalid company number' },
        { parameters: { name: 'Nobody At All' }, message: 'Company not found' },
      ],
    });
  });

  it('refuses a smart list with 409 and an invisible or unknown list with 404', async () => {
    const smart = await newList('SMART');
    const bobs = await newList('STATIC', BOB, false);
    const entries = [{ companyNumber: '0403170701', country: 'BE' }];
    expect((await putCompanies(smart, entries)).body).toMatchObject({
      code: 'LIST_NOT_STATIC',
      message: 'Companies can only be added to static lists',
    });
    for (const [id, caller] of [
      [bobs, ALICE],
      [bobs, CAROL],
      [999_999, ALICE],
    ] as const) {
      const response = await putCompanies(id, entries, caller);
      expect([response.status, (response.body as Body).message]).toEqual([404, 'List not found']);
    }
    expect((await getList('acme', bobs))?.counts.SAVED).toBe(0);
  });

  it('adds 100 entries in at most 6 DynamoDB round trips, without reading the list first', async () => {
    const id = await newList('STATIC');
    const entries = [
      ...MANY.map((c) => ({ companyNumber: c.companyNumber, country: 'BE' })),
      { VAT: MARTIN.vatNumber! },
      { website: 'https://mulder-bouw.nl' },
      { name: 'Acme Bouw', country: 'BE' },
      ...MANY.slice(0, 37).map((c) => ({ companyNumber: c.companyNumber })),
    ];
    expect(entries).toHaveLength(100);
    const { result, calls } = await recordCalls(() => putCompanies(id, entries));
    expect(result.body).toEqual({
      success: true,
      message: 'Successfully added 63 companies to the list',
      failed: [],
    });
    // Companies and index entries (parallel), contacts of the index-found ones, 2 transactions.
    expect(calls.map((c) => c.command).sort()).toEqual([
      'BatchGetItem',
      'BatchGetItem',
      'BatchGetItem',
      'TransactWriteItems',
      'TransactWriteItems',
    ]);
    // Everything there already: nothing written proves the list visible, so it is read (1 more call).
    const again = await recordCalls(() => putCompanies(id, entries));
    expect(again.result.body).toMatchObject({ message: 'Successfully added 0 companies to the list' });
    expect(again.calls.length).toBeLessThanOrEqual(6);
    // And an invisible list still answers 404, with or without new companies.
    const bobs = await newList('STATIC', BOB, false);
    expect((await putCompanies(bobs, entries)).status).toBe(404);
    expect((await getList(BOB.accountId, bobs))!.counts.SAVED).toBe(0);
  });

  it('adds every company once when ten calls with overlapping companies race', async () => {
    const id = await newList('STATIC');
    const calls = Array.from({ length: 10 }, (_, i) =>
      putCompanies(
        id,
        MANY.slice(i * 3, i * 3 + 30).map((r) => ({ country: r.country, companyNumber: r.companyNumber })),
      ),
    );
    const answers = await Promise.all(calls);
    const added = answers.map((a) => Number(/added (\d+)/.exec((a.body as Body).message)![1]));
    const distinct = new Set(MANY.slice(0, 57).map((r) => r.companyNumber)).size;
    expect(added.reduce((a, b) => a + b, 0)).toBe(distinct);

    const list = await getList('acme', id);
    expect(list?.counts.SAVED).toBe(distinct);
    const page = (await listCompanies(id, { limit: '500' })).body as Body;
    expect(page.pagination.total).toBe(distinct);
    const numbers = page.data.map((d: Body) => d.identifier.companyNumber);
    expect(new Set(numbers).size).toBe(distinct);
    expect(list?.contacts).toBe(MANY.slice(0, 57).filter((r) => r.contacts!.length > 0).length);
  });

  it('replays the first answer for a repeated Idempotency-Key and refuses another body with it', async () => {
    const id = await newList('STATIC');
    const key = { 'Idempotency-Key': `key-${id}` };
    const body = [{ companyNumber: MANY[0]!.companyNumber, country: 'BE' }, { companyNumber: '123' }];
    const first = await putCompanies(id, body, ALICE, key);
    const listAfterFirst = await getList('acme', id);
    const repeat = await putCompanies(id, body, ALICE, key);
    expect(repeat.raw).toBe(first.raw);
    expect((first.body as Body).message).toBe('Successfully added 1 company to the list');
    expect(await getList('acme', id)).toEqual(listAfterFirst);

    const other = await putCompanies(
      id,
      [{ companyNumber: MANY[1]!.companyNumber, country: 'BE' }],
      ALICE,
      key,
    );
    expect([other.status, (other.body as Body).code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    // The same key on another list is another request.
    const elsewhere = await putCompanies(await newList('STATIC'), body, ALICE, key);
    expect(elsewhere.status).toBe(409);
    expect((await getList('acme', id))?.counts.SAVED).toBe(1);
  });

  it('applies once when two requests with one Idempotency-Key arrive at the same moment', async () => {
    const id = await newList('STATIC');
    const body = MANY.slice(40, 50).map((r) => ({ companyNumber: r.companyNumber, country: 'BE' }));
    const key = { 'Idempotency-Key': `same-moment-${id}` };
    const [a, b] = await Promise.all([
      putCompanies(id, body, ALICE, key),
      putCompanies(id, body, ALICE, key),
    ]);
    for (const answer of [a, b]) {
      if (answer.status === 200) expect(answer.body).toEqual(a.status === 200 ? a.body : b.body);
      else expect((answer.body as Body).code).toBe('IDEMPOTENCY_KEY_REUSED');
    }
    expect([a, b].filter((x) => x.status === 200).map((x) => (x.body as Body).message)).toContain(
      'Successfully added 10 companies to the list',
    );
    expect((await getList('acme', id))?.counts.SAVED).toBe(10);
  });
});
