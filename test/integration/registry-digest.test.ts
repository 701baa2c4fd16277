/**
 * (ext) Registry digests (lib/import/registry-digest.ts) against DynamoDB Local: a registry file imported
 * again reads one item per block of company numbers and no company — and is still exact when another
 * import wrote some of those companies in between, when a run was cut off, or when a block holds a
 * rejected unit.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { luhnCheckDigit } from '../../lib/companies/identifiers';
import { getCompanyRecords } from '../../lib/companies/store';
import type { Derivation } from '../../lib/derivation/change';
import { importRegistryItems } from '../../lib/import/registry-import';
import type { RegistryItem } from '../../lib/import/sources/unit';
import { dynamodb, tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { dataWrites, recordCalls, type Call } from '../support/dynamodb-calls';
import { companyRecord } from '../support/records';
import { beNumber, figures, jsonLines, ref, registry, unit } from '../support/registry-units';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(180_000);

/** A key's partition as the recorded input holds it (DynamoDB's JSON, or plain). */
const pkOf = (key: { pk: string | { S: string } }) => (typeof key.pk === 'string' ? key.pk : key.pk.S);

/** The partition keys every BatchGetItem and GetItem among `calls` read. */
const keysRead = (calls: Call[]): string[] =>
  calls.flatMap((c) => {
    const input = c.input as {
      RequestItems?: Record<string, { Keys: Array<{ pk: string | { S: string } }> }>;
      Key?: { pk: string | { S: string } };
    };
    if (c.command === 'GetItem') return input.Key ? [pkOf(input.Key)] : [];
    if (c.command !== 'BatchGetItem') return [];
    return Object.values(input.RequestItems ?? {}).flatMap((r) => r.Keys.map(pkOf));
  });

const companiesRead = (calls: Call[]) => keysRead(calls).filter((pk) => pk.startsWith('COMPANY#'));

/** Enterprises `from`..`to - 1`: several blocks of company numbers (a block spans 100 of them). */
const units = (from: number, to: number, fields = (n: number) => ({ name: `Registry ${n} NV` })) =>
  Array.from({ length: to - from }, (_, i) => unit(from + i, fields(from + i)));

/** The item of a converter that withholds enterprise `n`'s name (at its line in enterprise.csv). */
const withheldName = (n: number): RegistryItem => ({
  kind: 'skipped',
  reason: 'name withheld',
  source: { file: 'enterprise.csv', line: n + 1 },
  company: { country: 'BE', companyNumber: beNumber(n) },
});

const nameOf = async (n: number) => (await getCompanyRecords([ref(n)])).get(`BE#${beNumber(n)}`)!.record.name;

describe('a registry file imported again', () => {
  it('reads one digest item per block and no company, writes nothing, and counts every unit unchanged', async () => {
    const file = units(1000, 1250);
    const first = await registry(file);
    expect(figures(first.summary)).toMatchObject({ created: 250, rejected: 0 });

    const { result, calls } = await recordCalls(() => registry(file));

    expect(figures(result.summary)).toEqual({
      read: 250,
      imported: 250,
      created: 0,
      changed: 0,
      unchanged: 250,
      rejected: 0,
    });
    expect(companiesRead(calls)).toEqual([]);
    const digests = keysRead(calls).filter((pk) => pk.startsWith('REGISTRY_DIGEST#kbo#BE#'));
    expect(new Set(digests).size).toBe(3);
    expect(dataWrites(calls)).toEqual([]);
  });

  /** How many digests each BatchGetItem among `calls` read that read any. */
  const digestReads = (calls: Call[]) =>
    calls
      .filter((c) => c.command === 'BatchGetItem')
      .map((c) => keysRead([c]).filter((pk) => pk.startsWith('REGISTRY_DIGEST#kbo#BE#')).length)
      .filter((keys) => keys > 0);

  it('reads the digests of 100 blocks with one BatchGetItem, and those of the next 100 numbers ahead once the blocks come one after another', async () => {
    // One unit a block, the blocks one after another: 150 blocks, the first 100 read as a round, the
    // next ones ahead of the converter by number (100 numbers, of which the file has 50).
    const file = Array.from({ length: 150 }, (_, k) => unit(100_000 + 100 * k, { name: `Block ${k} NV` }));
    await registry(file);

    const { result, calls } = await recordCalls(() => registry(file));

    expect(figures(result.summary)).toMatchObject({ read: 150, unchanged: 150, changed: 0 });
    expect(digestReads(calls)).toEqual([100, 100]);
    expect(companiesRead(calls)).toEqual([]);
  });

  it('reads no digest ahead when the blocks are far apart: only the blocks in the file, 100 to a BatchGetItem', async () => {
    // One block in three: reading the numbers in between would read twice as many keys as there are blocks.
    const file = Array.from({ length: 150 }, (_, k) => unit(100_000 + 300 * k, { name: `Block ${k} NV` }));
    await registry(file);

    const { result, calls } = await recordCalls(() => registry(file));

    expect(figures(result.summary)).toMatchObject({ read: 150, unchanged: 150, changed: 0 });
    expect(digestReads(calls).sort((a, b) => b - a)).toEqual([100, 50]);
  });

  it('is exact after a JSON Lines import changed some of its companies: those are merged again, the rest unchanged', async () => {
    const file = units(2000, 2400);
    await registry(file);
    // A JSON Lines record is a whole snapshot: it replaces the registry's name of 2010 and 2120.
    const other = await jsonLines(
      [2010, 2120].map((n) =>
        companyRecord({ companyNumber: beNumber(n), name: `Other ${n}`, contacts: [], shareholders: [] }),
      ),
    );
    expect(other.changed).toBe(2);
    expect([await nameOf(2010), await nameOf(2120)]).toEqual(['Other 2010', 'Other 2120']);

    const { result, calls } = await recordCalls(() => registry(file));

    expect(figures(result.summary)).toMatchObject({ read: 400, changed: 2, unchanged: 398, created: 0 });
    expect(await nameOf(2010)).toBe('Registry 2010 NV');
    expect(await nameOf(2120)).toBe('Registry 2120 NV');
    expect(await nameOf(2050)).toBe('Registry 2050 NV');
    // Only the two blocks (of four) the JSON Lines import touched were read company by company.
    const blocks = new Set(companiesRead(calls).map((pk) => pk.slice(0, -4)));
    expect(blocks).toEqual(
      new Set([`COMPANY#BE#${beNumber(2010).slice(0, 6)}`, `COMPANY#BE#${beNumber(2120).slice(0, 6)}`]),
    );
    // And the run after that reads no company again.
    const third = await recordCalls(() => registry(file));
    expect(companiesRead(third.calls)).toEqual([]);
    expect(figures(third.result.summary)).toMatchObject({ unchanged: 400 });
  });

  it('is exact after another registry wrote some of its companies', async () => {
    const file = units(3000, 3100);
    await registry(file);
    async function* other(): AsyncGenerator<RegistryItem> {
      yield unit(3042, { name: 'Renamed 3042 BV' });
    }
    const otherRun = await importRegistryItems(other(), { asOf: '2026-11-21', source: 'other-registry' });
    expect(otherRun.changed).toBe(1);
    expect(await nameOf(3042)).toBe('Renamed 3042 BV');

    const again = await registry(file);

    expect(figures(again.summary)).toMatchObject({ changed: 1, unchanged: 99 });
    expect(await nameOf(3042)).toBe('Registry 3042 NV');
  });

  it('trusts no digest of a run cut off before it ended whole', async () => {
    const file = units(4000, 4120);
    let derived = 0;
    const cutOff: Derivation = async () => {
      if (++derived === 60) throw new Error('killed');
      return { updates: 0 };
    };
    await expect(
      registry(file, '2026-11-21', { derive: cutOff, batchSize: 20, concurrency: 1 }),
    ).rejects.toThrow('killed');

    const { result, calls } = await recordCalls(() => registry(file));

    // Every company is read again: the digests the cut-off run wrote do not vouch for them.
    expect(companiesRead(calls).length).toBeGreaterThanOrEqual(120);
    expect(figures(result.summary)).toMatchObject({ read: 120, imported: 120, rejected: 0 });
    expect(result.summary.created + result.summary.changed + result.summary.unchanged).toBe(120);
    expect(await nameOf(4119)).toBe('Registry 4119 NV');
  });

  it('reports rejected and skipped items again every time, reading only the blocks of units the import rejected, and no company of a withheld name its digest vouches for', async () => {
    const repeat = unit(5150, {}, { source: { file: 'enterprise.csv', line: 5152 } });
    const file: RegistryItem[] = [
      ...units(5000, 5010),
      unit(5010, { name: undefined }),
      ...units(5011, 5020),
      ...units(5140, 5151),
      repeat,
      ...units(5200, 5210),
      withheldName(5210),
      {
        kind: 'rejected',
        reason: 'EnterpriseNumber is empty',
        source: { file: 'enterprise.csv', line: 5212 },
      },
      ...units(5212, 5220),
    ];
    const rejections = [
      'enterprise.csv line 5011: name is required',
      `enterprise.csv line 5152: BE ${beNumber(5150)} already appeared on enterprise.csv line 5151`,
      'enterprise.csv line 5212: EnterpriseNumber is empty',
    ];
    const first = await registry(file);
    // The run's own verdicts (a repeat) are reported after those made as the file is read.
    expect([...first.rejected].sort()).toEqual([...rejections].sort());

    const { result, calls } = await recordCalls(() => registry(file));

    expect([...result.rejected].sort()).toEqual([...rejections].sort());
    expect(figures(result.summary)).toMatchObject({ read: 51, rejected: 3, unchanged: 48 });
    expect(result.summary.skipped).toEqual(new Map([['name withheld', 1]]));
    // A unit the import itself rejected (a missing name, a repeat) leaves its block without a digest:
    // those blocks are read again; the block whose item the converter rejected is not. A withheld name
    // (it erases the company if one is stored, §11.5.6) is counted from its block's digest, which was
    // written once its company was found not stored: nothing of it is read.
    const read = companiesRead(calls);
    expect(new Set(read.map((pk) => pk.slice(0, -4)))).toEqual(
      new Set([5010, 5150].map((n) => `COMPANY#BE#${beNumber(n).slice(0, 6)}`)),
    );
  });

  it('erases a company whose name the file withholds when another import created it since: that import marks its block stale', async () => {
    const file = [...units(6000, 6010), withheldName(6010), ...units(6011, 6020)];
    await registry(file);
    await registry(file);
    // A JSON Lines import writes the company whose name the registry withholds.
    await jsonLines([companyRecord({ companyNumber: beNumber(6010), contacts: [], shareholders: [] })]);
    expect((await getCompanyRecords([ref(6010)])).size).toBe(1);

    const { result, calls } = await recordCalls(() => registry(file));

    expect(figures(result.summary)).toMatchObject({ read: 20, changed: 1, unchanged: 19 });
    expect((await getCompanyRecords([ref(6010)])).size).toBe(0);
    // Its block (all twenty) read afresh once, no other.
    const block = `COMPANY#BE#${beNumber(6010).slice(0, 6)}`;
    expect(companiesRead(calls).filter((pk) => !pk.startsWith(block))).toEqual([]);
    expect(new Set(companiesRead(calls)).size).toBeGreaterThanOrEqual(20);
    // The erasure left the block stale (its name published again is read anew); the run after it
    // writes a digest that vouches for the withheld name again, and the next one reads no company.
    await registry(file);
    const settled = await recordCalls(() => registry(file));
    expect(companiesRead(settled.calls)).toEqual([]);
    expect(figures(settled.result.summary)).toMatchObject({ read: 19, unchanged: 19 });
    expect(settled.result.summary.skipped).toEqual(new Map([['name withheld', 1]]));
  });

  it('erases a withheld name the registry itself named in between, though that run left the block without a digest', async () => {
    const file = [...units(7000, 7010), withheldName(7010), ...units(7011, 7020)];
    await registry(file);
    // The next file names 7010 (created) and has a unit the import rejects: no digest for the block.
    const named = [
      ...units(7000, 7010),
      unit(7010, { name: 'Named 7010 BV' }),
      unit(7011, { name: undefined }),
      ...units(7012, 7020),
    ];
    const second = await registry(named);
    expect(second.summary.created).toBe(1);
    expect(second.rejected).toHaveLength(1);
    expect(await nameOf(7010)).toBe('Named 7010 BV');

    // The first file again: its digest of the block no longer vouches for 7010, which it withholds.
    const third = await registry(file);

    expect((await getCompanyRecords([ref(7010)])).size).toBe(0);
    // The erasure is its one change: 7011, rejected in between, is as the first file left it.
    expect(figures(third.summary)).toMatchObject({ read: 20, changed: 1, unchanged: 19, rejected: 0 });
  });

  it('looks up the withheld names of a digest written before digests vouched for them, once, then writes it vouching', async () => {
    const file = [...units(9000, 9010), withheldName(9010), ...units(9011, 9020)];
    await registry(file);
    // The block's digest as an earlier version wrote it: no word on its withheld names.
    const key = keys.registryDigest('kbo', 'BE', beNumber(9010).slice(0, 6));
    await dynamodb().send(
      new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'REMOVE vouchesWithheld' }),
    );

    const again = await recordCalls(() => registry(file));
    // Its state and the mark of an erasure, both under its own key.
    expect(new Set(companiesRead(again.calls))).toEqual(new Set([`COMPANY#BE#${beNumber(9010)}`]));
    expect(figures(again.result.summary)).toMatchObject({ read: 19, unchanged: 19 });

    const settled = await recordCalls(() => registry(file));
    expect(companiesRead(settled.calls)).toEqual([]);
    expect(settled.result.summary.skipped).toEqual(new Map([['name withheld', 1]]));
  });

  it('writes no digest item when another import creates companies of a country no registry keeps digests of', async () => {
    // This file's runs are KBO's: no registry keeps digests of French blocks.
    const sirens = ['80001001', '80001002'].map((body) => body + luhnCheckDigit(body));
    const { calls } = await recordCalls(() =>
      jsonLines(
        sirens.map((companyNumber) =>
          companyRecord({ country: 'FR', companyNumber, contacts: [], shareholders: [] }),
        ),
      ),
    );
    expect(JSON.stringify(dataWrites(calls).map((c) => c.input))).not.toContain('REGISTRY_DIGEST#');
    // Whether a registry keeps them was read once.
    expect(
      keysRead(calls)
        .filter((pk) => pk.startsWith('REGISTRY_DIGEST#'))
        .sort(),
    ).toEqual(['REGISTRY_DIGEST#kbo#FR#KEPT', 'REGISTRY_DIGEST#sirene#FR#KEPT']);
  });
});
