/**
 * Lookalikes derived by the import (contract §6.3, §11.2) against DynamoDB Local: the import's
 * completion keeps every list equal to what a full recompute gives, for new, unchanged and changed
 * companies, including the lists a changed company enters or leaves.
 */
import { handler as getLookalikes } from '../../functions/get-company-lookalikes';
import type { CompanyRef } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { asImportWorkers } from '../support/import-access';
import { blockOf, featuresOf } from '../../lib/lookalikes/features';
import { getCompanyRecords } from '../../lib/companies/store';
import * as keys from '../../lib/storage/keys';
import { recomputeAll, recomputeMarked, writeLists } from '../../lib/lookalikes/recompute';
import { deleteMarks, getBlock, getMarks, recordChange } from '../../lib/lookalikes/block-store';
import { SectionIndex } from '../../lib/lookalikes/section-index';
import { similarity } from '../../lib/lookalikes/scoring';
import {
  countLookalikes,
  getLookalikesOf,
  packLookalikes,
  unpackLookalikes,
} from '../../lib/lookalikes/store';
import { parseCompanyRecord } from '../../lib/companies/record';
import { batchDelete, chunk, getItem } from '../../lib/storage/batch';
import { call } from '../support/events';
import { companyRecord, importRecords, period } from '../support/records';
import { useFreshTable } from '../support/table';

const table = useFreshTable();

interface Shape {
  activity: string;
  employees: number;
  /** Equity in thousands: total assets are equity + the period's 600,000 of debt. */
  equity: number;
  place: string;
}

/** NL company n (8 digits, no checksum) of the given shape. */
function company(n: number, shape: Shape): CompanyRecordInput {
  const base = period(2024);
  return companyRecord({
    country: 'NL',
    companyNumber: String(30_000_000 + n),
    name: `Company ${n} B.V.`,
    place: shape.place,
    vatNumber: null,
    website: null,
    legalForm: 'B.V.',
    foundedOn: `${1990 + (n % 30)}-01-01`,
    activities: [shape.activity],
    financials: [
      {
        ...base,
        solvency: {
          ...base.solvency,
          equity: shape.equity * 1000,
          totalAssets: 600_000 + shape.equity * 1000,
        },
        people: { ...base.people, employees: shape.employees },
      },
    ],
    shareholders: [],
    contacts: [],
  });
}

/** 130 companies of division 62 (section J, more than a list keeps) and 20 of division 41 (section F). */
const PLACES = ['Utrecht', 'Delft', 'Zwolle'];
const shapeOf = (n: number): Shape =>
  n < 130
    ? {
        activity: ['62010', '62020', '6203'][n % 3]!,
        employees: 1 + ((n * 7) % 90),
        equity: 50 + ((n * 13) % 400),
        place: PLACES[n % 3]!,
      }
    : { activity: '41201', employees: 5 + (n % 20), equity: 100 + n, place: 'Delft' };
const COMPANIES = Array.from({ length: 150 }, (_, n) => company(n, shapeOf(n)));
const refOf = (record: CompanyRecordInput): CompanyRef => ({
  country: 'NL',
  companyNumber: record.companyNumber,
});

const importByWorkers = (records: CompanyRecordInput[]) => asImportWorkers(() => importRecords(records));

/** Every company's stored list, by number. */
async function allLists(): Promise<Map<string, string>> {
  const lists = new Map<string, string>();
  for (const part of chunk(COMPANIES.map(refOf), 100)) {
    for (const [key, stored] of await getLookalikesOf(part))
      lists.set(key, JSON.stringify(unpackLookalikes(stored.packed, 0, 100)));
  }
  return lists;
}

const lookalikesOf = async (n: number) => {
  const { body } = await call(getLookalikes, {
    resource: '/v1/companies/{countryCode}/{companyNumber}/lookalikes',
    pathParameters: { countryCode: 'NL', companyNumber: String(30_000_000 + n) },
    query: { limit: '100' },
  });
  return body as { data: Array<{ companyId: CompanyRef; score: number }>; pagination: { total: number } };
};

const featuresOfRecord = (record: CompanyRecordInput) => {
  const parsed = parseCompanyRecord(record);
  if (!parsed.ok) throw new Error(parsed.reason);
  return featuresOf(parsed.record);
};

beforeAll(async () => {
  const summary = await importByWorkers(COMPANIES);
  expect(summary.created).toBe(150);
});

describe('lookalikes derived by the import', () => {
  it('gives every imported company its best 100 lookalikes of its section, scored, never itself', async () => {
    const { data, pagination } = await lookalikesOf(0);

    expect(pagination.total).toBe(100);
    expect(data).toHaveLength(100);
    expect(data.map((l) => l.companyId.companyNumber)).not.toContain('30000000');
    // Division 41 is another block.
    expect(data.every((l) => Number(l.companyId.companyNumber) < 30_000_130)).toBe(true);
    for (const { companyId, score } of data.slice(0, 10)) {
      const other = COMPANIES[Number(companyId.companyNumber) - 30_000_000]!;
      expect(score).toBe(similarity(featuresOfRecord(COMPANIES[0]!), featuresOfRecord(other)));
    }
  });

  it('keeps fewer when the section has fewer companies', async () => {
    const { pagination } = await lookalikesOf(140);
    expect(pagination.total).toBe(19);
  });

  it('stores what a full recompute gives', async () => {
    const afterImport = await allLists();
    await recomputeAll();
    expect(await allLists()).toEqual(afterImport);
  });

  it('changes nothing when the same data is imported again', async () => {
    const before = await allLists();
    const summary = await importByWorkers(COMPANIES);
    expect(summary.unchanged).toBe(150);
    expect(await allLists()).toEqual(before);
  });

  it('updates a changed company and the lists it leaves and enters, as a full recompute would', async () => {
    // Company 5 grows far beyond its peers (it leaves lists), company 7 becomes a twin of company 0 (it
    // enters lists), company 9 moves to division 41 (it leaves one block for another).
    const changed = [
      company(5, { ...shapeOf(5), employees: 5000, equity: 90_000 }),
      company(7, shapeOf(0)),
      company(9, { ...shapeOf(9), activity: '41201' }),
    ];
    const before = await lookalikesOf(0);
    const ranked = (list: typeof before, n: number) =>
      list.data.findIndex((l) => l.companyId.companyNumber === String(30_000_000 + n));
    expect(ranked(before, 7)).toBeGreaterThan(0);

    const summary = await importByWorkers(changed);
    expect(summary.changed).toBe(3);

    const after = await lookalikesOf(0);
    expect(ranked(after, 7)).toBe(0);
    expect(after.data[0]!.score).toBeGreaterThan(before.data[0]!.score);
    expect(ranked(after, 9)).toBe(-1);
    expect((await lookalikesOf(140)).data.map((l) => l.companyId.companyNumber)).toContain('30000009');
    const incremental = await allLists();
    await recomputeAll();
    expect(await allLists()).toEqual(incremental);
  });

  it('keeps a changed company’s floor item through the import, and the completion writes it only when it moves', async () => {
    const floorOf = async (n: number) =>
      (await getBlock('62')).find((m) => m.features.companyNumber === String(30_000_000 + n))!.floor;
    const stored = async (n: number) => {
      const f = featuresOfRecord(company(n, shapeOf(n)));
      return getItem(table.name, keys.lookalikeFloor(blockOf(f), f));
    };
    // Company 15 only moves town: it stays in division 62, its floor item stays until the completion.
    const floorBefore = await floorOf(15);
    expect(floorBefore).toBeGreaterThan(0);
    await asImportWorkers(() =>
      importRecords([company(15, { ...shapeOf(15), place: 'Ghent' })], { complete: async () => undefined }),
    );
    expect((await stored(15))?.['floor']).toBe(floorBefore);

    await recomputeMarked();
    // Its floor is its list's 100th score again, and the lists are a full recompute's.
    const { data } = await lookalikesOf(15);
    expect(await floorOf(15)).toBe(Math.round(data[99]!.score * 10_000));
    const incremental = await allLists();
    await recomputeAll();
    expect(await allLists()).toEqual(incremental);
  });

  it('catches up after a run cut off before its completion, even when the company changed again since', async () => {
    // The first run ends before its completion (as when killed): its marks stay for the next run.
    await importRecords([company(11, { ...shapeOf(0), employees: 2000 })], {
      complete: async () => undefined,
    });
    await importByWorkers([company(11, shapeOf(1)), company(12, { ...shapeOf(12), place: 'Zwolle' })]);

    const incremental = await allLists();
    await recomputeAll();
    expect(await allLists()).toEqual(incremental);
  });

  it('rebuilds the features from the stored companies when asked (a table imported before lookalikes)', async () => {
    const before = await allLists();
    const parts = await Promise.all(COMPANIES.map(async (r) => getCompanyRecords([refOf(r)])));
    const current = parts.flatMap((found) => [...found.values()].map((s) => featuresOf(s.record)));
    await batchDelete(
      table.name,
      current.map((f) => keys.lookalikeFeatures(blockOf(f), f)),
    );

    const summary = await recomputeAll({ rebuildFeatures: true });

    expect(summary.companies).toBe(150);
    expect(await allLists()).toEqual(before);
  });

  it('keeps the mark of a change made while a completion runs, even one with the same before and after', async () => {
    const before = featuresOfRecord(company(140, shapeOf(140)));
    const after = { ...before, employees: before.employees! + 40 };
    await recordChange(before, after, 'run-a.1');
    // A completion reads the marks …
    const read = await getMarks();
    expect(read.flatMap((m) => m.changes.map((c) => c.company.companyNumber))).toContain('30000140');
    // … another import derives the same transition of the same company (it read the company before
    // the first import wrote it) …
    await recordChange(before, after, 'run-b.1');
    // … and the completion drops what it read.
    await deleteMarks(read);

    const left = await getMarks();
    expect(left.map((m) => [m.changes.map((c) => c.company.companyNumber), m.key.sk.split('#')[1]])).toEqual([
      [['30000140'], 'run-b.1'],
    ]);
    await recomputeMarked();
    expect(await getMarks()).toEqual([]);
  });

  it('marks an import batch with one item naming its changed companies, and writes no list before the completion', async () => {
    const fresh = [151, 152, 153].map((n) => company(n, shapeOf(n % 130)));
    const changed = company(13, { ...shapeOf(13), employees: 77 });
    // Cut off before its completion: what the batch left is what its derivations wrote.
    await asImportWorkers(() => importRecords([...fresh, changed], { complete: async () => undefined }));
    const marks = await getMarks();
    expect(marks).toHaveLength(1);
    expect(marks[0]!.changes.map((c) => [c.company.companyNumber, c.before === null])).toEqual([
      ['30000151', true],
      ['30000152', true],
      ['30000153', true],
      ['30000013', false],
    ]);
    // A new company has no list yet, and is answered one with no lookalikes …
    expect((await getLookalikesOf(fresh.map(refOf))).size).toBe(3);
    const { data, pagination } = await lookalikesOf(151);
    expect([data, pagination.total]).toEqual([[], 0]);
    expect(await getItem(table.name, keys.lookalikes(refOf(fresh[0]!)))).toBeUndefined();
    // … until the completion writes it, once.
    await recomputeMarked();
    expect((await lookalikesOf(151)).pagination.total).toBe(100);
    const incremental = await allLists();
    await recomputeAll();
    expect(await allLists()).toEqual(incremental);
  });

  it('keeps a change an import stored while a recompute that read the section before it writes its lists', async () => {
    // A recompute (a fan-out shard, the weekly job) read division 62 before any floor was known …
    const read = (await getBlock('62')).map((member) => ({ ...member, floor: 0 }));
    const twenty = read.findIndex((m) => m.features.companyNumber === '30000020');
    expect(read[twenty]!.features.employees).toBe(shapeOf(20).employees);
    // … an import changes company 20 and completes …
    const grown = company(20, { ...shapeOf(20), employees: 3000 });
    expect((await importByWorkers([grown])).changed).toBe(1);
    // … and the recompute then writes its lists and floors, computed from what it read.
    await writeLists(
      read,
      new SectionIndex(read.map((m) => m.features)),
      read.map((_, i) => i),
    );

    const stored = (await getBlock('62')).find((m) => m.features.companyNumber === '30000020')!;
    expect(stored.features).toEqual(featuresOfRecord(grown));
    expect(stored.floor).toBeGreaterThan(0);
    // The next full recompute (the weekly job) scores company 20 as it is now.
    await recomputeAll();
    const { data } = await lookalikesOf(20);
    const first = COMPANIES[Number(data[0]!.companyId.companyNumber) - 30_000_000]!;
    expect(data[0]!.score).toBe(similarity(featuresOfRecord(grown), featuresOfRecord(first)));
  });

  it('unpacks a page of a list stored as text (items written before the binary form)', () => {
    expect(unpackLookalikes('BE0403170701:8994 NL33011433:1', 1, 5)).toEqual([
      { companyId: { country: 'NL', companyNumber: '33011433' }, score: 0.0001 },
    ]);
  });

  it('packs a list in six bytes a lookalike and unpacks any page of it, leading zeros and all', () => {
    const list = [
      { ref: { country: 'BE' as const, companyNumber: '1999999999' }, score: 10_000 },
      { ref: { country: 'BE' as const, companyNumber: '0403170701' }, score: 8994 },
      { ref: { country: 'FR' as const, companyNumber: '005420021' }, score: 4321 },
      { ref: { country: 'NL' as const, companyNumber: '00000017' }, score: 0 },
    ];
    const packed = packLookalikes(list);
    expect(packed.length).toBe(24);
    expect(countLookalikes(packed)).toBe(4);
    const all = list.map(({ ref, score }) => ({ companyId: ref, score: score / 10_000 }));
    expect(unpackLookalikes(packed, 0, 100)).toEqual(all);
    expect(unpackLookalikes(packed, 2, 3)).toEqual(all.slice(2, 3));
    expect(unpackLookalikes(packed, 5, 10)).toEqual([]);
    expect(countLookalikes(new Uint8Array(0))).toBe(0);
    // A view into a larger buffer (as a decoded attribute may be) reads from its own offset.
    const within = new Uint8Array(30);
    within.set(packed, 6);
    expect(unpackLookalikes(within.subarray(6, 30), 1, 2)).toEqual(all.slice(1, 2));
  });

  it('refuses to pack what the binary form cannot hold', () => {
    expect(() => packLookalikes([{ ref: { country: 'BE', companyNumber: '403170701' }, score: 1 }])).toThrow(
      'not a canonical company number',
    );
    expect(() =>
      packLookalikes([{ ref: { country: 'NL', companyNumber: '33011433' }, score: 10_001 }]),
    ).toThrow('not in ten-thousandths');
  });
});
