/** The list use cases and handlers (contract §7.1–§7.4) with real REST proxy events, against DynamoDB Local. */
import { updateContactCounts } from '../../lib/lists/store/contact-counts';
import { getList } from '../../lib/lists/store/lists';
import { addMembers, getMembers, removeNewMembers } from '../../lib/lists/store/members';
import { moveMembers } from '../../lib/lists/store/moves';
import { importCompanies } from '../../lib/import/import';
import { dynamodb } from '../../lib/storage/client';
import type { Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';
import { LIST_KEYS } from '../support/contract';
import { ALICE } from '../support/events';
import { asImportWorkers } from '../support/import-access';
import {
  CAROL,
  importAsWorkers,
  useTableWith,
  listCompanies,
  listContacts,
  listsOverview,
  newList,
  putCompanies,
  type Body,
} from '../support/list-calls';
import { ACME, MARTIN, NAMED, PEETERS_1, be, contact } from '../support/list-companies';

useTableWith(NAMED);

describe('GET /v1/lists, companies and contacts', () => {
  let listId = 0;
  beforeAll(async () => {
    listId = await newList('STATIC', CAROL);
    await putCompanies(listId, [{ companyNumber: '0403170701', country: 'BE' }], CAROL);
    // A later call: newer matchedSince, so first in the list's order.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await putCompanies(
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
    const response = await listCompanies(listId, { limit: '2', offset: '1' }, CAROL);
    const body = response.body as Body;
    expect(response.raw.startsWith('{"data":[{"identifier":{"country":')).toBe(true);
    expect(body.data.map((d: Body) => `${d.identifier.country}/${d.identifier.companyNumber}`)).toEqual([
      'FR/552100554',
      'NL/33011433',
    ]);
    expect(Object.keys(body.data[0])).toEqual(['identifier', 'matchedSince']);
    expect(Object.keys(body.data[0].identifier)).toEqual(['country', 'companyNumber', 'name', 'place']);
    expect(body.pagination).toEqual({ limit: 2, offset: 1, total: 4 });
    expect((await listCompanies(listId, { type: 'ARCHIVED' }, CAROL)).body).toEqual({
      data: [],
      pagination: { limit: 4, offset: 0, total: 0 },
    });
    expect(
      ((await listCompanies(listId, { type: 'SAVED', offset: '9' }, CAROL)).body as Body).pagination.total,
    ).toBe(4);
  });

  it("lists contacts in the list's company order, then by last and first name", async () => {
    const body = (await listContacts(listId, { limit: '10' }, CAROL)).body as Body;
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
    const page = (await listContacts(listId, { limit: '2', offset: '1' }, CAROL)).body as Body;
    expect(page.data.map((c: Body) => c.identifier.contactId)).toEqual([103, 102]);
  });

  it('keeps contact counts right when the import changes a listed company’s contacts', async () => {
    await importAsWorkers([{ ...ACME, contacts: [...ACME.contacts!, contact(105, 'Bart', 'Aerts')] }]);
    const body = (await listContacts(listId, { limit: '10' }, CAROL)).body as Body;
    expect(body.pagination.total).toBe(5);
    expect(body.data.map((c: Body) => c.identifier.contactId)).toEqual([104, 103, 102, 105, 101]);
  });

  it('counts contacts anew for a run cut off before its completion when a later run completes', async () => {
    const total = async () =>
      ((await listContacts(listId, { limit: '1' }, CAROL)).body as Body).pagination.total;
    async function* lines() {
      yield JSON.stringify({ ...ACME, contacts: ACME.contacts });
    }
    // Cut off after its batches: the note is stored, the list still counts the old number.
    await asImportWorkers(() =>
      importCompanies(lines(), { asOf: '2026-11-21', complete: async () => undefined }),
    );
    expect(await total()).toBe(5);
    // A later run changing nothing completes, and with it the note left behind.
    await importAsWorkers([MARTIN]);
    expect(await total()).toBe(4);
  });

  it('shows lists by visibility and type, most recently updated first', async () => {
    const smart = await newList('SMART', CAROL, false);
    const body = (await listsOverview({}, CAROL)).body as Body;
    const ids = body.data.map((l: Body) => l.id);
    expect(ids.indexOf(smart)).toBeLessThan(ids.indexOf(listId));
    const list = body.data.find((l: Body) => l.id === listId);
    expect(Object.keys(list)).toEqual([...LIST_KEYS]);
    expect(list).toMatchObject({ type: 'STATIC', amountOfCompanies: 4, newResults: null });
    const smartOnly = (await listsOverview({ type: 'SMART' }, CAROL)).body as Body;
    expect(smartOnly.data.map((l: Body) => l.id)).toEqual([smart]);
    expect(smartOnly.data[0]).toMatchObject({ newResults: 0, notifications: { enabled: false } });
    const dave: Caller = { accountId: 'globex', userEmail: 'dave@globex.example', scopes: [...SCOPES] };
    const davesView = (await listsOverview({ type: 'SMART' }, dave)).body as Body;
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
