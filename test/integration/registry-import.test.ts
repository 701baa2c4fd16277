/**
 * (ext) The import of registry units (contract §11.3, §11.5) against DynamoDB Local, with units built by
 * hand as a converter yields them: what a unit writes and keeps (§11.5.1), rejections and the skipped
 * line, idempotence, sources merging both ways, other names in details, search, match and PUT — read
 * back through the handlers (the updates they derive: registry-updates.test.ts).
 */
import { handler as getCompany } from '../../functions/get-company';
import { handler as matchHandler } from '../../functions/match-companies';
import { handler as searchHandler } from '../../functions/search-companies';
import { getCompanyRecords } from '../../lib/companies/store';
import type { Derivation } from '../../lib/derivation/change';
import { formatSkipped } from '../../lib/import/registry-import';
import type { RegistryField, RegistryItem } from '../../lib/import/sources/unit';
import { addCompanies } from '../../lib/lists/add-companies';
import { createOneList } from '../../lib/lists/manage';
import { dataWrites, recordCalls } from '../support/dynamodb-calls';
import { ALICE, call } from '../support/events';
import { companyRecord, period } from '../support/records';
import {
  beNumber,
  figures,
  jsonLines,
  KBO_OWNS,
  ref,
  registry,
  unit,
  updatesOf,
} from '../support/registry-units';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(180_000);

const details = async (n: number) => {
  const response = await call(getCompany, {
    resource: '/v1/companies/{countryCode}/{companyNumber}',
    pathParameters: { countryCode: 'BE', companyNumber: beNumber(n) },
  });
  return response as {
    status: number;
    body: { identifier: { name: string }; data: Record<string, unknown> };
  };
};

const search = async (q: string) =>
  (await call(searchHandler, { resource: '/v1/companies', query: { q } })).body as Array<{
    companyNumber: string;
    name: string;
  }>;

describe('a unit written', () => {
  it('writes the owned fields, other names without the registered name or repeats, and empty sections', async () => {
    const { summary, rejected } = await registry([
      unit(1, { otherNames: ['Registre 1 SA', 'REGISTRY 1 NV', 'R1', 'r1'] }),
      unit(2),
    ]);

    expect(rejected).toEqual([]);
    expect(figures(summary)).toEqual({
      read: 2,
      imported: 2,
      created: 2,
      changed: 0,
      unchanged: 0,
      rejected: 0,
    });
    const { status, body } = await details(1);
    expect(status).toBe(200);
    expect(body.data).toEqual({
      vatNumber: `BE${beNumber(1)}`,
      status: 'ACTIVE',
      establishedSince: '2001-02-03T00:00:00.000Z',
      stoppedSince: null,
      companyTypeCode: '014',
      name: 'Registry 1 NV',
      address: {
        country: 'BE',
        street: 'Kerkstraat',
        number: '12',
        box: null,
        postalCode: '9000',
        place: 'Gent',
      },
      website: [],
      activities: ['62010'],
      employees: null,
      healthIndicator: null,
      contacts: 0,
      otherNames: ['Registre 1 SA', 'R1'],
    });
    const stored = (await getCompanyRecords([ref(1)])).get(`BE#${beNumber(1)}`)!;
    expect(JSON.parse(stored.state.registryRows!)).toEqual({ denominations: [[1, '001', '2']] });
    expect(stored.state.sources).toEqual(['kbo']);
  });

  it('is found by any of its names, the answer showing the registered name', async () => {
    expect(await search('registre 1')).toEqual([
      { country: 'BE', companyNumber: beNumber(1), name: 'Registry 1 NV', place: 'Gent' },
    ]);
    expect((await search('R1')).map((c) => c.companyNumber)).toEqual([beNumber(1)]);
    // Every word in one and the same name: `registre` from one, `nv`… `2` from another is no match.
    expect(await search('registre 2')).toEqual([]);
  });

  it('is matched and added to a static list by an other name (matchedOn says name)', async () => {
    const match = await call(matchHandler, {
      resource: '/v1/companies/match',
      body: { companies: [{ name: 'Registre 1', country: 'BE' }] },
    });
    const [item] = match.body as Array<{
      data: Array<{ identifier: { name: string }; confidence: number; matchedOn: string[] }>;
    }>;
    expect(item!.data[0]).toMatchObject({ identifier: { name: 'Registry 1 NV' }, matchedOn: ['name'] });
    expect(item!.data[0]!.confidence).toBeGreaterThanOrEqual(0.9);

    const { id } = (await createOneList(ALICE, { name: 'By other name', type: 'STATIC' })).body;
    const added = await addCompanies(ALICE, id, [{ name: 'R1 sa', country: 'BE' }]);
    expect(added).toMatchObject({
      success: true,
      message: 'Successfully added 1 company to the list',
      failed: [],
    });
  });

  it('the same units again write nothing and read no company: one digest item for their block', async () => {
    const before = (await getCompanyRecords([ref(1), ref(2)])).get(`BE#${beNumber(1)}`)!.state.changeId;

    const { result, calls } = await recordCalls(() =>
      registry([unit(1, { otherNames: ['Registre 1 SA', 'REGISTRY 1 NV', 'R1', 'r1'] }), unit(2)]),
    );

    const { summary } = result;
    expect(figures(summary)).toEqual({
      read: 2,
      imported: 2,
      created: 0,
      changed: 0,
      unchanged: 2,
      rejected: 0,
    });
    expect(summary.updates).toBe(0);
    expect((await getCompanyRecords([ref(1)])).get(`BE#${beNumber(1)}`)!.state.changeId).toBe(before);
    // One BatchGetItem of their block's registry digest (lib/import/registry-digest.ts), one of the mark
    // that the run that wrote it ended whole; no company read, nothing written.
    expect(calls.filter((c) => c.command === 'BatchGetItem').map((c) => c.items)).toEqual([1, 1]);
    expect(dataWrites(calls)).toEqual([]);
  });

  it('a change of the other names alone is a change, with no update; a change of rows alone too', async () => {
    const names = await registry([unit(2, { otherNames: ['Registre 2 SA'] })]);
    const rows = await registry([unit(2, { otherNames: ['Registre 2 SA'] }, { registryRows: { v: 2 } })]);

    expect(figures(names.summary)).toMatchObject({ changed: 1, unchanged: 0 });
    expect(names.summary.updates).toBe(0);
    expect((await details(2)).body.data['otherNames']).toEqual(['Registre 2 SA']);
    expect(figures(rows.summary)).toMatchObject({ changed: 1 });
    expect(rows.summary.updates).toBe(0);
  });
});

describe('rejections, skipped units and dropped fields', () => {
  it('rejects an invalid number or a missing name as FILE line N, counts the skipped and the dropped', async () => {
    const items: RegistryItem[] = [
      unit(10),
      { ...unit(11, {}, { companyNumber: '0123.456.789' }) },
      unit(12, { name: undefined }),
      {
        kind: 'skipped',
        reason: 'natural person without name',
        source: { file: 'enterprise.csv', line: 14 },
      },
      {
        kind: 'skipped',
        reason: 'natural person without name',
        source: { file: 'enterprise.csv', line: 15 },
      },
      { kind: 'rejected', reason: 'EnterpriseNumber is empty', source: { file: 'enterprise.csv', line: 16 } },
      // A bad activity and a bad date are left out, the unit imported; one field the converter dropped.
      unit(17, { activities: ['62010', 'x1', '4711'], foundedOn: '2001-13-45' }, { dropped: 1 }),
      // The same enterprise as the unit before it (its files are grouped by number): a repeat.
      unit(17, {}, { source: { file: 'enterprise.csv', line: 19 } }),
    ];

    const { summary, rejected } = await registry(items);

    expect(rejected).toEqual([
      'enterprise.csv line 12: companyNumber 0123.456.789 is not a valid BE company number (its format or check digits)',
      'enterprise.csv line 13: name is required',
      'enterprise.csv line 16: EnterpriseNumber is empty',
      `enterprise.csv line 19: BE ${beNumber(17)} already appeared on enterprise.csv line 18`,
    ]);
    expect(figures(summary)).toEqual({
      read: 6,
      imported: 2,
      created: 2,
      changed: 0,
      unchanged: 0,
      rejected: 4,
    });
    expect(formatSkipped(summary)).toBe('skipped 2 (natural person without name: 2, fields dropped: 3)');
    const { body } = await details(17);
    expect(body.data).toMatchObject({ activities: ['62010', '4711'], establishedSince: null });
  });

  it('prints no skipped line when nothing was skipped or dropped', () => {
    expect(formatSkipped({ skipped: new Map(), fieldsDropped: 0 })).toBeNull();
  });
});

describe('--active-only (§11.5.6)', () => {
  it('leaves out a ceased unit not stored yet (skipped, not read), and still stops a stored one', async () => {
    await registry([unit(50)]);

    const { summary } = await registry(
      [unit(50, { stoppedOn: '2026-10-01' }), unit(51, { stoppedOn: '2026-10-01' }), unit(52)],
      '2026-11-21',
      { activeOnly: true },
    );

    expect(figures(summary)).toEqual({
      read: 2,
      imported: 2,
      created: 1,
      changed: 1,
      unchanged: 0,
      rejected: 0,
    });
    expect(formatSkipped(summary)).toBe('skipped 1 (ceased: 1)');
    expect((await details(50)).body.data).toMatchObject({ status: 'INACTIVE' });
    expect((await details(51)).status).toBe(404);
  });
});

describe('sources merge, never clobber', () => {
  const jsonRecord = (n: number) =>
    companyRecord({
      companyNumber: beNumber(n),
      name: `Json ${n} NV`,
      vatNumber: null,
      website: 'https://json.example',
      financials: [period(2023)],
      shareholders: [{ name: 'Jan Peeters', percentage: 0.4 }],
      contacts: [{ contactId: 880000 + n, firstName: 'An', lastName: 'Peeters', jobTitle: 'CEO' }],
    });

  it('a registry unit after a JSON Lines record keeps its financials, shareholders and contacts', async () => {
    await jsonLines([jsonRecord(20)]);
    const owns: RegistryField[] = KBO_OWNS.filter((f) => f !== 'website');

    const { summary } = await registry([unit(20, {}, { owns })]);

    expect(figures(summary)).toMatchObject({ changed: 1 });
    const stored = (await getCompanyRecords([ref(20)])).get(`BE#${beNumber(20)}`)!.record;
    expect(stored.name).toBe('Registry 20 NV');
    expect(stored.website).toBe('https://json.example');
    expect(stored.financials.map((p) => p.endDate)).toEqual(['2023-12-31']);
    expect(stored.shareholders.map((s) => s.name)).toEqual(['Jan Peeters']);
    expect(stored.contacts.map((c) => c.contactId)).toEqual([880020]);
    // A registry taking over from JSON Lines is no change of name or address (§8.2).
    expect((await updatesOf(20)).map((u) => u.type)).toEqual(['PUBLISHED_FINANCIALS']);
  });

  it('a JSON Lines record after a registry unit replaces all', async () => {
    await registry([unit(21, { otherNames: ['R21'] })]);

    const summary = await jsonLines([jsonRecord(21)]);

    expect(summary.changed).toBe(1);
    const { body } = await details(21);
    expect(body.data).toMatchObject({ name: 'Json 21 NV', otherNames: [], activities: ['41201', '4399'] });
    // And the registry again: its owned fields come back, the JSON Lines sections stay.
    const again = await registry([unit(21, { otherNames: ['R21'] })]);
    expect(figures(again.summary)).toMatchObject({ changed: 1 });
    const stored = (await getCompanyRecords([ref(21)])).get(`BE#${beNumber(21)}`)!.record;
    expect([stored.name, stored.otherNames, stored.contacts.length]).toEqual(['Registry 21 NV', ['R21'], 1]);
  });
});

describe('resumption', () => {
  it('a run cut off between writing companies and deriving them is derived by the next, unchanged units too', async () => {
    const units = [40, 41, 42, 43].map((n) => unit(n, { stoppedOn: '2025-01-01' }));
    let seen = 0;
    const cutOff: Derivation = async () => {
      if (++seen === 2) throw new Error('killed');
      return { updates: 0 };
    };
    await expect(
      registry(units, '2026-11-21', { derive: cutOff, batchSize: 2, concurrency: 1 }),
    ).rejects.toThrow('killed');

    const derived: string[] = [];
    const again = await registry(units, '2026-11-21', {
      batchSize: 2,
      concurrency: 1,
      derive: async (change) => {
        derived.push(change.after.companyNumber);
        return { updates: 0 };
      },
    });

    // The units of the cut-off batch are unchanged now (their fingerprint is stored), yet derived.
    expect(derived).toEqual(expect.arrayContaining([beNumber(40), beNumber(41)]));
    expect(figures(again.summary)).toMatchObject({ read: 4, imported: 4 });
    const third = await registry(units, '2026-11-21', { batchSize: 2 });
    expect(figures(third.summary)).toMatchObject({ unchanged: 4, changed: 0, created: 0 });
  });
});

describe('batches', () => {
  it("a registry's units go 500 to a batch: the counts and floors its companies share move once for them", async () => {
    const units = Array.from({ length: 500 }, (_, i) => unit(100 + i));
    const batches = new Set<string>();
    const { summary } = await registry(units, '2026-11-21', {
      derive: async (change) => {
        batches.add(change.changeId);
        return { updates: 0 };
      },
    });
    expect(figures(summary)).toMatchObject({ read: 500, created: 500, rejected: 0 });
    expect(batches.size).toBe(1);
  });
});
