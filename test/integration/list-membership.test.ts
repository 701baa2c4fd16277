/**
 * A list's companies and their states (contract §7.6) with real REST proxy events, against DynamoDB
 * Local: moves between states, and smart lists following the companies the import changes or adds.
 */
import { importCompanies } from '../../lib/import/import';
import { applySmartListFlips } from '../../lib/lists/smart';
import { getList as storedList } from '../../lib/lists/store/lists';
import { dynamodb } from '../../lib/storage/client';
import { ALICE } from '../support/events';
import { asImportWorkers } from '../support/import-access';
import {
  fetchList,
  importAsWorkers,
  useTableWith,
  memberNumbers,
  moveCompanies,
  postList,
  type Body,
  uniqueName,
} from '../support/list-calls';
import { COMPANIES, company, numbers } from '../support/list-companies';

useTableWith(COMPANIES);

describe('PATCH /v1/lists/{id}/companies', () => {
  it('moves companies between states with counters in the same write, and fails the others per item', async () => {
    const list = (await postList({ name: uniqueName(), type: 'SMART', filters: { activities: ['62'] } }))
      .body as Body;
    const [a, b, c] = [COMPANIES[1]!, COMPANIES[3]!, COMPANIES[5]!];
    const response = await moveCompanies(list.id, [
      { state: 'SAVED', companyNumber: a.companyNumber, country: 'be' },
      { country: 'BE', companyNumber: b.companyNumber, state: 'ARCHIVED' },
      { country: 'BE', companyNumber: c.companyNumber, state: 'SAVED', note: 'ignored' },
      { country: 'BE', companyNumber: c.companyNumber, state: 'SAVED' },
      { country: 'BE', companyNumber: COMPANIES[6]!.companyNumber, state: 'SAVED' },
      { country: 'BE', companyNumber: '0403170702', state: 'SAVED' },
      { country: 'DE', companyNumber: '1', state: 'ARCHIVED' },
    ]);
    expect(response.status).toBe(200);
    expect(response.raw.startsWith('{"updated":3,"failed":[')).toBe(true);
    expect((response.body as Body).failed).toEqual([
      {
        parameters: { country: 'BE', companyNumber: COMPANIES[6]!.companyNumber, state: 'SAVED' },
        message: 'Company not in list',
      },
      {
        parameters: { country: 'BE', companyNumber: '0403170702', state: 'SAVED' },
        message: 'Invalid company number',
      },
      {
        parameters: { country: 'DE', companyNumber: '1', state: 'ARCHIVED' },
        message: 'Invalid country code',
      },
    ]);
    expect((await fetchList(list.id)).body).toMatchObject({ amountOfCompanies: 6, newResults: 4 });
    // A move to the state it has is neither counted nor failed; SAVED ↔ ARCHIVED both ways.
    const again = await moveCompanies(list.id, [
      { country: 'BE', companyNumber: a.companyNumber, state: 'SAVED' },
      { country: 'BE', companyNumber: b.companyNumber, state: 'SAVED' },
      { country: 'BE', companyNumber: c.companyNumber, state: 'ARCHIVED' },
    ]);
    expect(again.body).toEqual({ updated: 2, failed: [] });
    expect(await memberNumbers(list.id, 'ARCHIVED')).toEqual([c.companyNumber]);
    const stored = (await storedList(ALICE.accountId, list.id))!;
    expect(stored.counts).toEqual({ NEW: 4, SAVED: 2, ARCHIVED: 1 });
    // Contacts of non-archived companies: 1, 3, 5 and 9 each have one; 5 is archived.
    expect(stored.contacts).toBe(3);
  });

  it('answers 503 rather than leave a company out when it changes under every attempt', async () => {
    const list = (await postList({ name: uniqueName(), type: 'SMART', filters: { activities: ['62'] } }))
      .body as Body;
    // Every move's member condition fails, as when an import counts its contacts anew each time.
    const name = `stale-${Math.random()}`;
    dynamodb().middlewareStack.add(
      (next, context) => async (args) => {
        if (!/^TransactWrite/.test(context.commandName ?? '')) return next(args);
        const actions = (args.input as { TransactItems: unknown[] }).TransactItems;
        throw Object.assign(new Error('Transaction cancelled'), {
          name: 'TransactionCanceledException',
          CancellationReasons: actions.map((_, i) => ({ Code: i === 0 ? 'ConditionalCheckFailed' : 'None' })),
        });
      },
      { step: 'initialize', name },
    );
    try {
      const response = await moveCompanies(list.id, [
        { country: 'BE', companyNumber: COMPANIES[1]!.companyNumber, state: 'SAVED' },
      ]);
      expect(response.status).toBe(503);
      expect((response.body as Body).code).toBe('UNAVAILABLE');
      expect(response.headers['Retry-After']).toMatch(/^\d+$/);
    } finally {
      dynamodb().middlewareStack.remove(name);
    }
    expect((await storedList(ALICE.accountId, list.id))!.counts).toMatchObject({ SAVED: 0 });
  });

  it.each([
    [[{ country: 'BE', companyNumber: '0403170701', state: 'NEW' }], 'companies[0].state'],
    [[{ country: 'BE', companyNumber: '0403170701' }], 'companies[0].state'],
    [[], 'companies'],
    [Array.from({ length: 101 }, () => ({ state: 'SAVED' })), 'companies'],
  ])('refuses a bad request with 400 (%#)', async (companies, path) => {
    const list = (await postList({ name: uniqueName(), type: 'STATIC' })).body as Body;
    const response = await moveCompanies(list.id, companies);
    expect(response.status).toBe(400);
    expect((response.body as Body).details[0].path).toBe(path);
  });
});

describe('smart lists follow imported data', () => {
  it('lets a changed company enter as NEW and leave while NEW; a SAVED one stays', async () => {
    const list = (await postList({ name: uniqueName(), type: 'SMART', filters: { places: ['Oostende'] } }))
      .body as Body;
    expect(list.amountOfCompanies).toBe(0);
    // Companies 2 and 4 move to Oostende: they enter as NEW.
    await importAsWorkers([
      { ...COMPANIES[2]!, place: 'Oostende' },
      { ...COMPANIES[4]!, place: 'Oostende' },
    ]);
    expect(await memberNumbers(list.id, 'NEW')).toEqual(numbers(2, 4));
    expect((await fetchList(list.id)).body).toMatchObject({ amountOfCompanies: 2, newResults: 2 });
    await moveCompanies(list.id, [
      { country: 'BE', companyNumber: COMPANIES[2]!.companyNumber, state: 'SAVED' },
    ]);
    // Both move back to Gent: the NEW one leaves, the SAVED one stays.
    await importAsWorkers([COMPANIES[2]!, COMPANIES[4]!]);
    expect(await memberNumbers(list.id)).toEqual(numbers(2));
    expect((await fetchList(list.id)).body).toMatchObject({ amountOfCompanies: 1, newResults: 0 });
    // The same file again derives nothing: no change.
    await importAsWorkers([COMPANIES[2]!, COMPANIES[4]!]);
    expect((await fetchList(list.id)).body).toMatchObject({ amountOfCompanies: 1, newResults: 0 });
  });

  it('leaves the flips of a run cut off before its end to the next run, applied once', async () => {
    const list = (await postList({ name: uniqueName(), type: 'SMART', filters: { places: ['Knokke'] } }))
      .body as Body;
    async function* lines() {
      yield JSON.stringify({ ...COMPANIES[3]!, place: 'Knokke' });
    }
    // The run ends before its completion (as if killed there): the flip waits.
    await asImportWorkers(() =>
      importCompanies(lines(), { asOf: '2026-11-21', complete: async () => undefined }),
    );
    expect((await fetchList(list.id)).body).toMatchObject({ amountOfCompanies: 0 });
    // The next run (here, of nothing new) applies it; a third finds nothing left.
    await importAsWorkers([COMPANIES[3]!].map((c) => ({ ...c, place: 'Knokke' })));
    expect((await fetchList(list.id)).body).toMatchObject({ amountOfCompanies: 1, newResults: 1 });
    expect(await asImportWorkers(applySmartListFlips)).toEqual({ entered: 0, left: 0 });
  });

  it("counts the contacts of a company entering a list with its number now, a later change's, not its flip's", async () => {
    const list = (await postList({ name: uniqueName(), type: 'SMART', filters: { places: ['Ieper'] } }))
      .body as Body;
    const moved = company(60, ['62010'], 'Ieper', 1);
    await importAsWorkers([company(60, ['62010'], 'Gent', 1)]);
    // A run cut off before its completion leaves the flip (1 contact); the next changes only the
    // contacts (a note, no flip). Its completion counts them after the flip put the company in the list.
    async function* lines() {
      yield JSON.stringify(moved);
    }
    await asImportWorkers(() =>
      importCompanies(lines(), { asOf: '2026-11-21', complete: async () => undefined }),
    );
    await importAsWorkers([{ ...moved, contacts: company(60, ['62010'], 'Ieper', 3).contacts }]);
    expect((await fetchList(list.id)).body).toMatchObject({ amountOfCompanies: 1 });
    expect((await storedList(ALICE.accountId, list.id))!.contacts).toBe(3);
  });

  it('evaluates new companies against the smart lists they could touch', async () => {
    const list = (await postList({ name: uniqueName(), type: 'SMART', filters: { activities: ['4399'] } }))
      .body as Body;
    await importAsWorkers([company(50, ['43999'], 'Gent', 2), company(51, ['43210'], 'Gent')]);
    expect((await fetchList(list.id)).body).toMatchObject({ amountOfCompanies: 1, newResults: 1 });
    expect((await storedList(ALICE.accountId, list.id))!.contacts).toBe(2);
  });
});
