/** The list use cases and handlers (contract §7.1–§7.5) with real REST proxy events, against DynamoDB Local. */
import { handler as addListCompanies } from '../../functions/add-list-companies';
import { handler as getListCompanies } from '../../functions/get-list-companies';
import { handler as getListContacts } from '../../functions/get-list-contacts';
import { handler as getLists } from '../../functions/get-lists';
import { belgianCheckDigits, frenchVatKey } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import type { Caller } from '../../lib/tokens/caller';
import { importCompanies } from '../../lib/import/import';
import { updateContactCounts } from '../../lib/lists/store/contact-counts';
import { createList, getList } from '../../lib/lists/store/lists';
import { addMembers, getMembers, removeNewMembers } from '../../lib/lists/store/members';
import type { ListType } from '../../lib/lists/store/model';
import { moveMembers } from '../../lib/lists/store/moves';
import { dynamodb } from '../../lib/storage/client';
import { recordCalls } from '../support/dynamodb-calls';
import { asImportWorkers } from '../support/import-access';
import { SCOPES } from '../../lib/tokens/scopes';
import { ALICE, call } from '../support/events';
import { useFreshTable } from '../support/table';
import { LIST_KEYS } from '../support/contract';

useFreshTable();

const BOB: Caller = { accountId: 'acme', userEmail: 'bob@acme.example', scopes: [...SCOPES] };
const CAROL: Caller = { accountId: 'globex', userEmail: 'carol@globex.example', scopes: [...SCOPES] };

const be = (firstEight: string) => firstEight + belgianCheckDigits(firstEight);
const contact = (contactId: number, firstName: string, lastName: string) => ({
  contactId,
  firstName,
  lastName,
  jobTitle: 'CEO',
});

const ACME: CompanyRecordInput = {
  country: 'BE',
  companyNumber: '0403170701',
  name: 'Acme Bouw NV',
  place: 'Gent',
  vatNumber: 'BE0403170701',
  website: 'https://www.acme-bouw.be',
  contacts: [contact(101, 'Zoe', 'Aerts'), contact(102, 'An', 'Aerts')],
};
const MARTIN: CompanyRecordInput = {
  country: 'FR',
  companyNumber: '552100554',
  name: 'Boulangerie Martin SAS',
  place: 'Lyon',
  vatNumber: `FR${String(frenchVatKey('552100554')).padStart(2, '0')}552100554`,
  website: 'https://boulangerie-martin.fr',
  contacts: [contact(103, 'Jean', 'Martin')],
};
const MULDER: CompanyRecordInput = {
  country: 'NL',
  companyNumber: '33011433',
  name: 'Mulder Bouw B.V.',
  place: 'Utrecht',
  vatNumber: 'NL123456782B01',
  website: 'https://www.mulder-bouw.nl/contact',
};
const PEETERS_1: CompanyRecordInput = {
  country: 'BE',
  companyNumber: be('02000001'),
  name: 'Bakkerij Peeters BV',
  place: 'Aalst',
  website: 'https://www.peeters.be',
  contacts: [contact(104, 'Jan', 'Peeters')],
};
const PEETERS_2: CompanyRecordInput = {
  country: 'BE',
  companyNumber: be('02000002'),
  name: 'Bakkerij Peeters NV',
  place: 'Gent',
  website: 'https://www.peeters-gent.be',
};
/** Many plain companies for the race. */
const MANY: CompanyRecordInput[] = Array.from({ length: 60 }, (_, i) => ({
  country: 'BE',
  companyNumber: be(`03${String(i).padStart(6, '0')}`),
  name: `Race Company ${i} BV`,
  contacts: i % 3 === 0 ? [contact(1000 + i, 'Ann', `Racer${i}`)] : [],
}));

async function importRecords(records: CompanyRecordInput[]) {
  async function* lines() {
    for (const record of records) yield JSON.stringify(record);
  }
  const summary = await asImportWorkers(() => importCompanies(lines(), { asOf: '2026-11-21' }));
  expect(summary.rejected).toBe(0);
}

async function newList(type: ListType, createdBy: Caller = ALICE, shared = true) {
  const list = await createList({
    accountId: createdBy.accountId,
    name: `${type} list ${Math.random()}`,
    type,
    columns: ['country', 'vatNumber', 'activities'],
    shared,
    notificationsEnabled: false,
    createdBy: createdBy.userEmail,
    createdAt: new Date().toISOString(),
    filters: type === 'SMART' ? { countries: ['BE'] } : null,
  });
  return list.id;
}

const put = (
  id: number | string,
  companies: unknown,
  caller: Caller = ALICE,
  headers?: Record<string, string>,
) =>
  call(addListCompanies, {
    method: 'PUT',
    resource: '/v1/lists/{id}/companies',
    pathParameters: { id: String(id) },
    body: { companies },
    caller,
    ...(headers ? { headers } : {}),
  });
/** A GET on one list's sub-resource, as `caller`. */
const listGet =
  (handler: Parameters<typeof call>[0], resource: string) =>
  (id: number | string, query: Record<string, string> = {}, caller: Caller = ALICE) =>
    call(handler, { resource, pathParameters: { id: String(id) }, query, caller });
const companiesOf = listGet(getListCompanies, '/v1/lists/{id}/companies');
const contactsOf = listGet(getListContacts, '/v1/lists/{id}/contacts');
const overview = (query: Record<string, string> = {}, caller: Caller = ALICE) =>
  call(getLists, { resource: '/v1/lists', query, caller });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

beforeAll(async () => {
  await importRecords([ACME, MARTIN, MULDER, PEETERS_1, PEETERS_2, ...MANY]);
});

describe('PUT /v1/lists/{id}/companies', () => {
  it('adds companies matched by number, VAT, website and name, and reports the others per entry', async () => {
    const id = await newList('STATIC');
    const response = await put(id, [
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
    const first = await put(id, [{ companyNumber: '0403170701', country: 'BE' }]);
    expect((first.body as Body).message).toBe('Successfully added 1 company to the list');
    const before = (await companiesOf(id)).body as Body;
    const again = await put(id, [{ VAT: 'BE 0403.170.701' }, { companyNumber: '403170701', country: 'be' }]);
    expect(again.body).toEqual({
      success: true,
      message: 'Successfully added 0 companies to the list',
      failed: [],
    });
    expect((await companiesOf(id)).body).toEqual(before);
  });

  it('answers success false when entries failed and none was added', async () => {
    const id = await newList('STATIC');
    const response = await put(id, [
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
    expect((await put(smart, entries)).body).toMatchObject({
      code: 'LIST_NOT_STATIC',
      message: 'Companies can only be added to static lists',
    });
    for (const [id, caller] of [
      [bobs, ALICE],
      [bobs, CAROL],
      [999_999, ALICE],
    ] as const) {
      const response = await put(id, entries, caller);
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
    const { result, calls } = await recordCalls(() => put(id, entries));
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
    const again = await recordCalls(() => put(id, entries));
    expect(again.result.body).toMatchObject({ message: 'Successfully added 0 companies to the list' });
    expect(again.calls.length).toBeLessThanOrEqual(6);
    // And an invisible list still answers 404, with or without new companies.
    const bobs = await newList('STATIC', BOB, false);
    expect((await put(bobs, entries)).status).toBe(404);
    expect((await getList(BOB.accountId, bobs))!.counts.SAVED).toBe(0);
  });

  it('adds every company once when ten calls with overlapping companies race', async () => {
    const id = await newList('STATIC');
    const calls = Array.from({ length: 10 }, (_, i) =>
      put(
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
    const page = (await companiesOf(id, { limit: '500' })).body as Body;
    expect(page.pagination.total).toBe(distinct);
    const numbers = page.data.map((d: Body) => d.identifier.companyNumber);
    expect(new Set(numbers).size).toBe(distinct);
    expect(list?.contacts).toBe(MANY.slice(0, 57).filter((r) => r.contacts!.length > 0).length);
  });

  it('replays the first answer for a repeated Idempotency-Key and refuses another body with it', async () => {
    const id = await newList('STATIC');
    const key = { 'Idempotency-Key': `key-${id}` };
    const body = [{ companyNumber: MANY[0]!.companyNumber, country: 'BE' }, { companyNumber: '123' }];
    const first = await put(id, body, ALICE, key);
    const listAfterFirst = await getList('acme', id);
    const repeat = await put(id, body, ALICE, key);
    expect(repeat.raw).toBe(first.raw);
    expect((first.body as Body).message).toBe('Successfully added 1 company to the list');
    expect(await getList('acme', id)).toEqual(listAfterFirst);

    const other = await put(id, [{ companyNumber: MANY[1]!.companyNumber, country: 'BE' }], ALICE, key);
    expect([other.status, (other.body as Body).code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    // The same key on another list is another request.
    const elsewhere = await put(await newList('STATIC'), body, ALICE, key);
    expect(elsewhere.status).toBe(409);
    expect((await getList('acme', id))?.counts.SAVED).toBe(1);
  });

  it('applies once when two requests with one Idempotency-Key arrive at the same moment', async () => {
    const id = await newList('STATIC');
    const body = MANY.slice(40, 50).map((r) => ({ companyNumber: r.companyNumber, country: 'BE' }));
    const key = { 'Idempotency-Key': `same-moment-${id}` };
    const [a, b] = await Promise.all([put(id, body, ALICE, key), put(id, body, ALICE, key)]);
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

describe('GET /v1/lists, companies and contacts', () => {
  let listId = 0;
  beforeAll(async () => {
    listId = await newList('STATIC', CAROL);
    await put(listId, [{ companyNumber: '0403170701', country: 'BE' }], CAROL);
    // A later call: newer matchedSince, so first in the list's order.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await put(
      listId,
      [
        { companyNumber: '552100554', country: 'FR' },
        { companyNumber: PEETERS_1.companyNumber, country: 'BE' },
        { companyNumber: '33011433', country: 'NL' },
      ],
      CAROL,
    );
  });

  it('lists companies newest match first, then by country and number, with exact totals per state', async () => {
    const response = await companiesOf(listId, { limit: '2', offset: '1' }, CAROL);
    const body = response.body as Body;
    expect(response.raw.startsWith('{"data":[{"identifier":{"country":')).toBe(true);
    expect(body.data.map((d: Body) => `${d.identifier.country}/${d.identifier.companyNumber}`)).toEqual([
      'FR/552100554',
      'NL/33011433',
    ]);
    expect(Object.keys(body.data[0])).toEqual(['identifier', 'matchedSince']);
    expect(Object.keys(body.data[0].identifier)).toEqual(['country', 'companyNumber', 'name', 'place']);
    expect(body.pagination).toEqual({ limit: 2, offset: 1, total: 4 });
    expect((await companiesOf(listId, { type: 'ARCHIVED' }, CAROL)).body).toEqual({
      data: [],
      pagination: { limit: 4, offset: 0, total: 0 },
    });
    expect(
      ((await companiesOf(listId, { type: 'SAVED', offset: '9' }, CAROL)).body as Body).pagination.total,
    ).toBe(4);
  });

  it("lists contacts in the list's company order, then by last and first name", async () => {
    const body = (await contactsOf(listId, { limit: '10' }, CAROL)).body as Body;
    expect(body.data.map((c: Body) => c.identifier.contactId)).toEqual([104, 103, 102, 101]);
    expect(body.pagination).toEqual({ limit: 10, offset: 0, total: 4 });
    expect(body.data[0]).toEqual({
      jobTitle: 'CEO',
      identifier: { contactId: 104, firstName: 'Jan', lastName: 'Peeters' },
      company: {
        country: 'BE',
        companyNumber: PEETERS_1.companyNumber,
        name: 'Bakkerij Peeters BV',
        place: 'Aalst',
      },
    });
    const page = (await contactsOf(listId, { limit: '2', offset: '1' }, CAROL)).body as Body;
    expect(page.data.map((c: Body) => c.identifier.contactId)).toEqual([103, 102]);
  });

  it('keeps contact counts right when the import changes a listed company’s contacts', async () => {
    await importRecords([{ ...ACME, contacts: [...ACME.contacts!, contact(105, 'Bart', 'Aerts')] }]);
    const body = (await contactsOf(listId, { limit: '10' }, CAROL)).body as Body;
    expect(body.pagination.total).toBe(5);
    expect(body.data.map((c: Body) => c.identifier.contactId)).toEqual([104, 103, 102, 105, 101]);
  });

  it('counts contacts anew for a run cut off before its completion when a later run completes', async () => {
    const total = async () =>
      ((await contactsOf(listId, { limit: '1' }, CAROL)).body as Body).pagination.total;
    async function* lines() {
      yield JSON.stringify({ ...ACME, contacts: ACME.contacts });
    }
    // Cut off after its batches: the note is stored, the list still counts the old number.
    await asImportWorkers(() =>
      importCompanies(lines(), { asOf: '2026-11-21', complete: async () => undefined }),
    );
    expect(await total()).toBe(5);
    // A later run changing nothing completes, and with it the note left behind.
    await importRecords([MARTIN]);
    expect(await total()).toBe(4);
  });

  it('shows lists by visibility and type, most recently updated first', async () => {
    const smart = await newList('SMART', CAROL, false);
    const body = (await overview({}, CAROL)).body as Body;
    const ids = body.data.map((l: Body) => l.id);
    expect(ids.indexOf(smart)).toBeLessThan(ids.indexOf(listId));
    const list = body.data.find((l: Body) => l.id === listId);
    expect(Object.keys(list)).toEqual([...LIST_KEYS]);
    expect(list).toMatchObject({ type: 'STATIC', amountOfCompanies: 4, newResults: null });
    const smartOnly = (await overview({ type: 'SMART' }, CAROL)).body as Body;
    expect(smartOnly.data.map((l: Body) => l.id)).toEqual([smart]);
    expect(smartOnly.data[0]).toMatchObject({ newResults: 0, notifications: { enabled: false } });
    const dave: Caller = { accountId: 'globex', userEmail: 'dave@globex.example', scopes: [...SCOPES] };
    const davesView = (await overview({ type: 'SMART' }, dave)).body as Body;
    expect(davesView.pagination.total).toBe(0);
  });
});

describe('contact counts kept by the import', () => {
  /**
   * DynamoDB answers TransactionConflict when another transaction holds one of the items; DynamoDB
   * Local serialises transactions and never does, so the first `n` transactions are answered with
   * the error DynamoDB gives (a cancellation whose reasons name the conflict) before reaching it.
   */
  function conflictFirst(n: number) {
    let left = n;
    const name = `conflict-${Math.random()}`;
    dynamodb().middlewareStack.add(
      (next, context) => async (args) => {
        // The list's counters move by a conditional UpdateItem: refused as if another writer came first.
        if (/^Update(Item)?Command$/.test(context.commandName ?? '') && left > 0) {
          left--;
          throw Object.assign(new Error('The conditional request failed'), {
            name: 'ConditionalCheckFailedException',
          });
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    return () => {
      dynamodb().middlewareStack.remove(name);
      return n - left;
    };
  }

  it('retries an update refused by a concurrent writer instead of dropping the new count', async () => {
    const listId = await newList('STATIC');
    const refs = Array.from({ length: 30 }, (_, i) => ({
      country: 'BE' as const,
      companyNumber: be(`04${String(i).padStart(6, '0')}`),
    }));
    await addMembers(
      ALICE.accountId,
      listId,
      refs.map((ref) => ({ ref, contacts: 1 })),
      { state: 'SAVED', now: new Date() },
    );
    const stop = conflictFirst(4);
    try {
      // Two halves at the same moment, as two imports' completions would.
      const counts = refs.map((ref) => ({ ref, contacts: 3 }));
      await Promise.all([
        updateContactCounts(ALICE.accountId, listId, counts.slice(0, 15)),
        updateContactCounts(ALICE.accountId, listId, counts.slice(15)),
      ]);
      // Applied again (a completion cut off before it dropped its notes): nothing changes.
      expect(await updateContactCounts(ALICE.accountId, listId, counts)).toBe(0);
    } finally {
      // Every refusal was met: the updates went through only by trying again.
      expect(stop()).toBe(4);
    }
    expect((await getList(ALICE.accountId, listId))!.contacts).toBe(90);
    // A member's count is its list's `cc` entry when it has one: read as the list's writers read it.
    const after = [...(await getMembers(ALICE.accountId, listId, refs)).values()];
    expect(after.map((m) => m.contacts)).toEqual(refs.map(() => 3));
  });

  /** One company in a new list, then counted anew (4 contacts instead of 1) as an import would. */
  async function countedAnew(state: 'NEW' | 'SAVED') {
    const listId = await newList('STATIC');
    const ref = { country: 'BE' as const, companyNumber: be('05000001') };
    await addMembers(ALICE.accountId, listId, [{ ref, contacts: 1 }], { state, now: new Date() });
    const read = (await getMembers(ALICE.accountId, listId, [ref])).get(`BE#${ref.companyNumber}`)!;
    expect(await updateContactCounts(ALICE.accountId, listId, [{ ref, contacts: 4 }])).toBe(1);
    expect((await getList(ALICE.accountId, listId))!.contacts).toBe(4);
    return { listId, ref, read };
  }

  it('moves a member read before an import counted it anew only after reading it again', async () => {
    const { listId, ref, read } = await countedAnew('SAVED');
    // Read with 1 contact: archiving it would take 1 off a counter that holds 4.
    const first = await moveMembers(ALICE.accountId, listId, [{ member: read, to: 'ARCHIVED' }], new Date());
    expect(first).toMatchObject({ moved: [], stale: [{ member: read }] });
    const fresh = (await getMembers(ALICE.accountId, listId, [ref])).get(`BE#${ref.companyNumber}`)!;
    await moveMembers(ALICE.accountId, listId, [{ member: fresh, to: 'ARCHIVED' }], new Date());
    expect(await getList(ALICE.accountId, listId)).toMatchObject({
      contacts: 0,
      counts: { NEW: 0, SAVED: 0, ARCHIVED: 1 },
    });
  });

  it('takes out a NEW member read before an import counted it anew with its count now', async () => {
    const { listId, read } = await countedAnew('NEW');
    expect(await removeNewMembers(ALICE.accountId, listId, [read])).toBe(1);
    expect(await getList(ALICE.accountId, listId)).toMatchObject({
      contacts: 0,
      counts: { NEW: 0, SAVED: 0, ARCHIVED: 0 },
    });
  });
});
