/** The import (contract §11.2) against DynamoDB Local: validation per line, idempotence, resumption, the derivation point. */
import { belgianCheckDigits } from '../../lib/companies/identifiers';
import * as recordModule from '../../lib/companies/record';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { getCompanyRecords } from '../../lib/companies/store';
import type { CompanyChange, Derivation } from '../../lib/derivation/change';
import { formatSummary, importCompanies, type ImportOptions } from '../../lib/import/import';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamodb } from '../../lib/storage/client';
import { companyRecord, period } from '../support/records';
import { useFreshTable } from '../support/table';

const table = useFreshTable();

/** A valid Belgian number for serial n (first eight digits 0500nnnn). */
const beNumber = (n: number) => {
  const firstEight = `05${String(n).padStart(6, '0')}`;
  return firstEight + belgianCheckDigits(firstEight);
};

/** Company n of a test: its own number and contact ids, so tests never share a company. */
const company = (n: number, overrides: Partial<CompanyRecordInput> = {}): CompanyRecordInput =>
  companyRecord({
    companyNumber: beNumber(n),
    name: `Company ${n} NV`,
    vatNumber: `BE${beNumber(n)}`,
    shareholders: [],
    contacts: [{ contactId: n * 10 + 1, firstName: 'An', lastName: `Peeters ${n}`, jobTitle: 'CEO' }],
    ...overrides,
  });

async function* linesOf(lines: Array<string | CompanyRecordInput>): AsyncGenerator<string> {
  for (const line of lines) yield typeof line === 'string' ? line : JSON.stringify(line);
}

/** Runs an import, keeping every rejection and every change the derivation point saw. */
async function run(lines: Array<string | CompanyRecordInput>, options: Partial<ImportOptions> = {}) {
  const rejected: Array<[number, string]> = [];
  const derived: CompanyChange[] = [];
  const derive: Derivation = async (change) => {
    derived.push(change);
    return { updates: 0 };
  };
  const summary = await importCompanies(linesOf(lines), {
    asOf: '2026-11-21',
    onRejected: (line, reason) => rejected.push([line, reason]),
    derive,
    ...options,
  });
  return { summary, rejected, derived };
}

/** The import's items of a kind left in the table (a test may scan; a request path never does). */
const changeItems = async (sk: string) => {
  const { Items = [] } = await dynamodb().send(
    new ScanCommand({
      TableName: table.name,
      FilterExpression: 'begins_with(pk, :p) AND begins_with(sk, :s)',
      ExpressionAttributeValues: { ':p': 'CHANGE#', ':s': sk },
    }),
  );
  return Items;
};
/** The journals' parts, and the marks of runs that ended with every batch derived. */
const journals = () => changeItems('PART#');
const runsDone = () => changeItems('DONE');

const stored = async (...ns: number[]) =>
  getCompanyRecords(ns.map((n) => ({ country: 'BE' as const, companyNumber: beNumber(n) })));

describe('import', () => {
  it('imports new companies and derives each once', async () => {
    const { summary, rejected, derived } = await run([company(1), company(2)]);
    expect(rejected).toEqual([]);
    expect(summary).toMatchObject({
      read: 2,
      imported: 2,
      created: 2,
      changed: 0,
      unchanged: 0,
      rejected: 0,
    });
    expect(derived.map((c) => [c.before, c.after.companyNumber, c.asOf])).toEqual(
      expect.arrayContaining([
        [null, beNumber(1), '2026-11-21'],
        [null, beNumber(2), '2026-11-21'],
      ]),
    );
    const records = await stored(1);
    expect(records.get(`BE#${beNumber(1)}`)!.record).toMatchObject({ name: 'Company 1 NV', place: 'Gent' });
  });

  it('changes nothing and derives nothing when the same data comes again, in any order', async () => {
    await run([company(3), company(4)]);
    const reordered = company(4, { financials: [period(2023), period(2022)] });
    const { summary, derived } = await run([company(3), reordered]);
    expect(summary).toMatchObject({ read: 2, imported: 2, created: 0, changed: 0, unchanged: 2 });
    expect(derived).toEqual([]);
  });

  it('derives a changed company once, with the record before and after, and leaves the others alone', async () => {
    await run([company(5), company(6)]);
    const { summary, derived } = await run([
      company(5, { financials: [period(2022), period(2023), period(2024)] }),
      company(6),
    ]);
    expect(summary).toMatchObject({ imported: 2, changed: 1, unchanged: 1 });
    expect(derived).toHaveLength(1);
    expect(derived[0]!.before!.financials).toHaveLength(2);
    expect(derived[0]!.after.financials.map((p) => p.endDate)).toEqual([
      '2024-12-31',
      '2023-12-31',
      '2022-12-31',
    ]);
  });

  it('writes what derivations hand back, in batches, before the run ends', async () => {
    const derive: Derivation = async ({ after }) => ({
      updates: 1,
      writes: { puts: [{ pk: `TEST#${after.companyNumber}`, sk: 'DERIVED', entity: 'Test' }], deletes: [] },
    });
    const { summary } = await run([company(30), company(31), company(32)], { derive, batchSize: 2 });
    expect(summary.updates).toBe(3);
    const { Items = [] } = await dynamodb().send(
      new ScanCommand({
        TableName: table.name,
        FilterExpression: 'sk = :sk',
        ExpressionAttributeValues: { ':sk': 'DERIVED' },
      }),
    );
    expect(Items.map((item) => item['pk']).sort()).toEqual(
      [30, 31, 32].map((n) => `TEST#${beNumber(n)}`).sort(),
    );
  });

  it('replaces the whole record: a section left out is empty', async () => {
    await run([company(7)]);
    await run([{ country: 'BE', companyNumber: beNumber(7), name: 'Company 7 NV' }]);
    const { record } = (await stored(7)).get(`BE#${beNumber(7)}`)!;
    expect(record).toMatchObject({ place: null, financials: [], contacts: [], shareholders: [] });
  });

  it('rejects bad lines with their physical line number and writes nothing of them', async () => {
    const { summary, rejected } = await run([
      company(8),
      '',
      '{"country": "BE",',
      JSON.stringify(company(9, { companyNumber: '0403170702' })),
      '   ',
      JSON.stringify(company(8, { name: 'Second copy NV' })),
      JSON.stringify(company(10)),
      JSON.stringify({ ...company(11), padding: 'x'.repeat(256 * 1024) }),
    ]);
    expect(rejected).toEqual([
      [3, 'not valid JSON'],
      [4, 'companyNumber 0403170702 is not a valid BE company number (its format or check digits)'],
      [6, `BE ${beNumber(8)} already appeared on line 1`],
      [8, expect.stringMatching(/^record is 25[78] KB, more than 256 KB$/)],
    ]);
    expect(summary).toMatchObject({ read: 6, imported: 2, created: 2, rejected: 4 });
    expect(formatSummary(summary)).toMatch(
      /^read 6, imported 2 \(new 2, changed 0, unchanged 0\), rejected 4, updates 0, in \d+\.\d s \(\d+ companies\/s\)$/,
    );
    const records = await stored(8, 10, 11);
    expect(records.get(`BE#${beNumber(8)}`)!.record.name).toBe('Company 8 NV');
    expect([...records.keys()].sort()).toEqual([`BE#${beNumber(8)}`, `BE#${beNumber(10)}`]);
  });

  it('rejects a record whose contact id belongs to another company, and frees ids a company gives up', async () => {
    await run([company(12)]);
    const thief = company(13, {
      contacts: [{ contactId: 121, firstName: 'Bo', lastName: 'Jansen', jobTitle: null }],
    });
    const first = await run([thief]);
    expect(first.rejected).toEqual([[1, 'contacts: contactId 121 belongs to another company']]);
    expect((await stored(13)).size).toBe(0);

    await run([company(12, { contacts: [] })]);
    const second = await run([thief]);
    expect(second.rejected).toEqual([]);
    expect((await stored(13)).get(`BE#${beNumber(13)}`)!.record.contacts.map((c) => c.contactId)).toEqual([
      121,
    ]);
  });

  describe.each([
    ['in one batch', {}, 50],
    ['in batches of one, several in flight', { batchSize: 1, concurrency: 4 }, 60],
  ])('a contact moving between companies in one file, %s', (_, options, base) => {
    const contact = (contactId: number) => [
      { contactId, firstName: 'Bo', lastName: 'Jansen', jobTitle: null },
    ];
    const ids = async (n: number) =>
      (await stored(n)).get(`BE#${beNumber(n)}`)?.record.contacts.map((c) => c.contactId) ?? null;

    it('goes to the taker whose line comes after the giver, and is taken from no one else', async () => {
      const [giver, taker, latecomer] = [base, base + 1, base + 2];
      await run([company(giver, { contacts: contact(base * 100) })]);
      const moved = await run(
        [company(giver, { contacts: [] }), company(taker, { contacts: contact(base * 100) })],
        options,
      );
      expect(moved.rejected).toEqual([]);
      expect(await ids(taker)).toEqual([base * 100]);
      // The giver's claim is not released over the taker's: a third company still cannot take it.
      const third = await run([company(latecomer, { contacts: contact(base * 100) })], options);
      expect(third.rejected).toEqual([[1, `contacts: contactId ${base * 100} belongs to another company`]]);
    });

    it('is refused to a taker whose line comes before the giver, as the file is read line by line', async () => {
      const [giver, taker] = [base + 5, base + 6];
      await run([company(giver, { contacts: contact(giver * 100) })]);
      const early = await run(
        [company(taker, { contacts: contact(giver * 100) }), company(giver, { contacts: [] })],
        options,
      );
      expect(early.rejected).toEqual([[1, `contacts: contactId ${giver * 100} belongs to another company`]]);
      expect(await ids(taker)).toBeNull();
      expect(await ids(giver)).toEqual([]);
    });
  });

  it('resumes a run cut off between writing companies and deriving them, ending as one uninterrupted run', async () => {
    const records = [20, 21, 22, 23, 24, 25].map((n) => company(n));
    let seen = 0;
    const cutOff: Derivation = async () => {
      if (++seen === 3) throw new Error('killed');
      return { updates: 0 };
    };
    await expect(run(records, { derive: cutOff, batchSize: 2, concurrency: 1 })).rejects.toThrow('killed');

    const again = await run(records, { batchSize: 2, concurrency: 1 });
    // The change whose derivation was cut off is derived again (from its marker), the rest as usual.
    const derivedNumbers = again.derived.map((c) => c.after.companyNumber);
    expect(derivedNumbers).toContain(beNumber(22));
    expect(derivedNumbers).not.toContain(beNumber(20));
    expect(again.derived.find((c) => c.after.companyNumber === beNumber(22))!.before).toBeNull();
    expect((await stored(20, 21, 22, 23, 24, 25)).size).toBe(6);
    expect(await journals()).toEqual([]);

    const third = await run(records);
    expect(third.summary).toMatchObject({ unchanged: 6 });
    expect(third.derived).toEqual([]);
  });

  it('finds a line byte for byte the same as its company was written from unchanged without parsing it', async () => {
    // Top-level country and number after the shareholders: the line's company is guessed wrong (the
    // shareholder's), so it is parsed every time, and still imported and found unchanged.
    const { country, companyNumber, ...rest } = company(41, {
      shareholders: [{ country: 'BE', companyNumber: beNumber(40), name: 'Company 40 NV', percentage: 1 }],
    });
    const lines = [
      JSON.stringify(company(40)),
      JSON.stringify({ ...rest, country, companyNumber }),
      JSON.stringify(company(42)),
    ];
    const marks = (await runsDone()).length;
    const first = await run(lines);
    expect(first.summary).toMatchObject({ imported: 3, created: 3 });
    expect((await runsDone()).length).toBe(marks + 1);

    const parse = jest.spyOn(recordModule, 'parseCompanyRecord');
    try {
      const again = await run([...lines, lines[2]!, `${lines[0]!} `]);
      expect(again.summary).toMatchObject({ read: 5, imported: 3, unchanged: 3, rejected: 2 });
      expect(again.rejected).toEqual([
        [4, `BE ${beNumber(42)} already appeared on line 3`],
        [5, `BE ${beNumber(40)} already appeared on line 1`],
      ]);
      expect(again.derived).toEqual([]);
      // Only the line whose company was guessed wrong and the last one (another text) were parsed.
      expect(parse).toHaveBeenCalledTimes(2);
    } finally {
      parse.mockRestore();
    }
    // A run that wrote nothing leaves no mark: no company names it.
    expect((await runsDone()).length).toBe(marks + 1);
  });

  it('writes the changes of several batches of lines together, a full batch at a time', async () => {
    const records = [50, 51, 52, 53, 54].map((n) => company(n));
    await run(records, { batchSize: 2 });
    const moved = (n: number) => company(n, { place: 'Brugge' });
    const { summary, derived } = await run([moved(50), records[1]!, records[2]!, moved(53), moved(54)], {
      batchSize: 2,
    });
    expect(summary).toMatchObject({ read: 5, imported: 5, changed: 3, unchanged: 2 });
    // Lines 1–2 and 3–4 hold one change each: written together; line 5's goes with the rest at the end.
    const changeIdOf = (n: number) => derived.find((c) => c.after.companyNumber === beNumber(n))!.changeId;
    expect(changeIdOf(53)).toBe(changeIdOf(50));
    expect(changeIdOf(54)).not.toBe(changeIdOf(50));
    expect([...(await stored(50, 53, 54)).values()].map((s) => s.record.place)).toEqual([
      'Brugge',
      'Brugge',
      'Brugge',
    ]);
    expect(await journals()).toEqual([]);
  });
});
