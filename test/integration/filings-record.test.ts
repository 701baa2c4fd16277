/**
 * The record of filings (contract §11.4, §11.5.9; lib/filings/store.ts) against DynamoDB Local, the
 * filing import run in this process: kept on the company's own item (no `FILINGS` item written), read
 * from a `FILINGS` item a stage already holds, and the same filings again writing nothing. Then the
 * lookalike recompute after a filing import: a filing that moves a company's features recomputes its
 * list, one that does not (an older year's) recomputes nothing. Two imports of one company at the same
 * moment: test/integration/import-lease.test.ts.
 */
import type { CompanyRef } from '../../lib/companies/identifiers';
import { companyItem } from '../../lib/companies/store';
import { applyFilings } from '../../lib/filings/apply';
import { SUPERSEDED } from '../../lib/filings/import';
import { filedOf, filedText } from '../../lib/filings/store';
import { recomputeMarked } from '../../lib/lookalikes/recompute';
import { batchDelete, batchPut, getItem } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { importRecords } from '../support/records';
import { bare, filing, importOf, storedOf } from '../support/filings';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(120_000);

/** Valid Belgian enterprise numbers (mod 97). */
const ACME: CompanyRef = { country: 'BE', companyNumber: '0712345630' };
const BROUWERIJ: CompanyRef = { country: 'BE', companyNumber: '0654321022' };
const MICRO: CompanyRef = { country: 'BE', companyNumber: '0555123476' };

beforeAll(async () => {
  await importRecords([bare(ACME, 'Acme Bouw NV'), bare(MICRO, 'Claes Micro BV')], { asOf: '2024-01-01' });
});

describe('the record of filings', () => {
  const low = filing(ACME, '2023-12-31', '2024-06-01', 1, 900_000);
  // Deposited the same day: ranked by their references, so `high` brings the very period `low` brought.
  const high = filing(ACME, '2023-12-31', '2024-06-01', 3, 900_000);
  const middle = filing(ACME, '2023-12-31', '2024-06-01', 2, 1_200_000);

  it('is kept on the company’s item: a later filing with the same figures is recorded, an earlier one then loses', async () => {
    expect((await importOf([low])).created).toBe(1);
    // The same period, filed under a later reference: the period does not change, the record does.
    const same = await importOf([high]);
    expect(same).toMatchObject({ created: 0, changed: 0, unchanged: 1 });
    const stored = await storedOf(ACME);
    expect(Object.values(filedOf(stored.state)!)[0]).toHaveLength(2);
    // In its short form: each filing its rank and fingerprint in one text.
    expect(JSON.parse(stored.state.filed!)).toEqual({
      '2023-12-31': [expect.stringMatching(/^cbso:2024-06-01#2024-00000001 \S+$/), expect.any(String)],
    });
    // No item beside the company.
    expect(await getItem(tableName(), keys.filedPeriods(ACME))).toBeUndefined();

    // Filed before `high`, which brought the period as much as `low` did: it replaces nothing.
    const later = await importOf([middle]);
    expect(later.skipped.get(SUPERSEDED)).toBe(1);
    expect((await storedOf(ACME)).record.financials[0]!.solvency).toEqual(low.figures.solvency);
  });

  it('read again, changes nothing: the company is not written', async () => {
    const before = await storedOf(ACME);
    const again = await importOf([low, high, middle]);
    expect(again).toMatchObject({ created: 0, changed: 0, unchanged: 1, updates: 0 });
    expect(again.skipped.get(SUPERSEDED)).toBe(2);
    expect((await storedOf(ACME)).state.changeId).toBe(before.state.changeId);
  });

  it('written in the earlier form (entries as objects), is read as it is and not rewritten for its form alone', async () => {
    const before = await storedOf(ACME);
    const record = filedOf(before.state)!;
    // The record as a company item written before the short form holds it.
    await batchPut(tableName(), [
      companyItem(before.record, { ...before.state, filed: JSON.stringify(record) }),
    ]);
    expect(filedText(filedOf((await storedOf(ACME)).state)!)).toBe(filedText(record));

    const again = await importOf([low, high, middle]);
    expect(again).toMatchObject({ created: 0, changed: 0, unchanged: 1, updates: 0 });
    expect(again.skipped.get(SUPERSEDED)).toBe(2);
    const after = await storedOf(ACME);
    expect([after.state.filed, after.state.changeId]).toEqual([
      JSON.stringify(record),
      before.state.changeId,
    ]);
  });

  it('is read from the `FILINGS` item a stage already holds, and carried onto the company’s item', async () => {
    // A stage's filing import before the record moved: the period on the company, its record beside it.
    const applied = applyFilings(
      [],
      {},
      [filing(BROUWERIJ, '2023-12-31', '2024-12-01', 3, 900_000)],
      '2024-12-02',
    );
    await importRecords([bare(BROUWERIJ, 'Brouwerij Peeters BV', applied.financials)], {
      asOf: '2024-12-02',
    });
    await batchPut(tableName(), [
      { ...keys.filedPeriods(BROUWERIJ), entity: 'FiledPeriods', filed: JSON.stringify(applied.filed) },
    ]);
    expect((await storedOf(BROUWERIJ)).state.filed).toBeUndefined();

    const earlier = filing(BROUWERIJ, '2023-12-31', '2024-09-01', 2, 1_200_000);
    const first = await importOf([earlier]);
    expect(first.skipped.get(SUPERSEDED)).toBe(1);
    const stored = await storedOf(BROUWERIJ);
    expect(stored.record.financials).toEqual(applied.financials);
    expect(filedOf(stored.state)).toEqual(applied.filed);

    // From now on the company's item answers: the old item is not needed.
    await batchPut(tableName(), [
      { ...keys.filedPeriods(BROUWERIJ), entity: 'FiledPeriods', filed: JSON.stringify({}) },
    ]);
    expect((await importOf([earlier])).skipped.get(SUPERSEDED)).toBe(1);
  });
});

describe('the holdings derivation after a filing import', () => {
  it('reads and writes no relationships item for a filing, and still derives a change of name', async () => {
    const record = bare(MICRO, 'Claes Micro BV');
    expect(await getItem(tableName(), keys.relationships(MICRO))).toBeDefined();
    // Gone from the table: a derivation that read and wrote it would put it back.
    await batchDelete(tableName(), [keys.relationships(MICRO)]);
    expect((await importOf([filing(MICRO, '2019-12-31', '2020-06-01', 1, 100_000)])).created).toBe(1);
    expect(await getItem(tableName(), keys.relationships(MICRO))).toBeUndefined();

    const renamed = {
      ...record,
      name: 'Claes Micro NV',
      financials: (await storedOf(MICRO)).record.financials,
    };
    await importRecords([renamed], { asOf: '2025-02-01' });
    expect(await getItem(tableName(), keys.relationships(MICRO))).toMatchObject({
      self: { name: 'Claes Micro NV' },
    });
  });
});

describe('the lookalike recompute after a filing import', () => {
  it('recomputes a company whose features a filing moved, and nothing for a filing that moves none', async () => {
    await recomputeMarked();
    // The latest year: its total assets and employees are features.
    await importOf([filing(MICRO, '2023-12-31', '2024-06-01', 1, 500_000)]);
    const moved = await recomputeMarked();
    expect(moved.rounds).toBe(1);
    expect(moved.companies).toBeGreaterThanOrEqual(1);

    // An older year: the latest period, and so the features, stay.
    const older = await importOf([filing(MICRO, '2021-12-31', '2022-06-01', 1, 700_000)]);
    expect(older.created).toBe(1);
    const still = await recomputeMarked();
    expect(still).toMatchObject({ rounds: 0, companies: 0, blocks: 0 });

    // A replacement of the latest year with other figures moves them again.
    await importOf([filing(MICRO, '2023-12-31', '2024-09-01', 2, 800_000)]);
    expect((await recomputeMarked()).companies).toBeGreaterThanOrEqual(1);
  });
});
