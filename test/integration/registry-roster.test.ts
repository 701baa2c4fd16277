/**
 * (ext) Registry rosters (lib/import/registry-roster.ts) against DynamoDB Local: the companies a registry
 * wrote and that are not stopped, which a KBO full extract compares its enterprises with (§11.5.2), are
 * read from the roster — no Scan, no company item — and follow every write: new companies, a stop, an
 * erasure, another source's write. A stage without a roster gets one filled on the first ask.
 */
import { storedRegistry, storedRegistryByKey } from '../../lib/import/registry-store';
import { batchDelete, queryAll } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { NAME_WITHHELD, type RegistryItem } from '../../lib/import/sources/unit';
import { companyRecord } from '../support/records';
import { recordCalls, type Call } from '../support/dynamodb-calls';
import { beNumber, jsonLines, registry, unit } from '../support/registry-units';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(180_000);

const units = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => unit(from + i));
const numbers = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => beNumber(from + i));

async function listed(stored = storedRegistry): Promise<string[]> {
  const all: string[] = [];
  for await (const page of stored.companiesOf('kbo', 'BE')) all.push(...page);
  return all.sort();
}

/** What a call read of the table beyond the roster: Scans and company items. */
const beyondRoster = (calls: Call[]) =>
  calls.filter((c) => c.command === 'Scan' || JSON.stringify(c.input).includes('COMPANY#'));

const withheld = (n: number): RegistryItem => ({
  kind: 'skipped',
  reason: NAME_WITHHELD,
  source: { file: 'enterprise.csv', line: n + 1 },
  company: { country: 'BE', companyNumber: beNumber(n) },
});

describe("a registry's roster", () => {
  it('lists what the registry wrote and has not stopped, filled once on a stage without one, then read alone', async () => {
    await registry(units(100, 160));
    // Written by JSON Lines alone: not KBO's.
    await jsonLines([companyRecord({ companyNumber: beNumber(900), contacts: [], shareholders: [] })]);

    const first = await recordCalls(() => listed());
    expect(first.result).toEqual(numbers(100, 160));

    const again = await recordCalls(() => listed());
    expect(again.result).toEqual(numbers(100, 160));
    expect(beyondRoster(again.calls)).toEqual([]);
  });

  it('follows new companies, a stop, an erasure and JSON Lines records of KBO companies', async () => {
    await registry(units(200, 230));
    await listed();
    await registry([unit(205, { stoppedOn: '2026-11-20' }), ...units(230, 233), withheld(210)]);
    // Another source's snapshot of a KBO company keeps it KBO's: the registry wrote it and it is not stopped.
    // One that stops it takes it out.
    await jsonLines([
      companyRecord({ companyNumber: beNumber(220), contacts: [], shareholders: [] }),
      companyRecord({
        companyNumber: beNumber(221),
        contacts: [],
        shareholders: [],
        stoppedOn: '2026-11-01',
      }),
    ]);

    const { result, calls } = await recordCalls(() => listed());

    const expected = [...numbers(100, 160), ...numbers(200, 233)].filter(
      (n) => n !== beNumber(205) && n !== beNumber(210) && n !== beNumber(221),
    );
    expect(result).toEqual(expected.sort());
    expect(beyondRoster(calls)).toEqual([]);
    // The AWS split's way by key answers the same from the same roster.
    expect(await listed(storedRegistryByKey)).toEqual(expected.sort());
  });

  it("is filled by the AWS split's way by key on a stage without one, from the filter profiles", async () => {
    // A stage written before rosters were kept: no roster item, no mark.
    const shards = [...Array.from({ length: 16 }, (_, shard) => String(shard)), 'BUILT'];
    for (const shard of shards) {
      const items = await queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.registryRoster('kbo', 'BE', shard, '').pk },
      });
      await batchDelete(
        tableName(),
        items.map((item) => ({ pk: item['pk'] as string, sk: item['sk'] as string })),
      );
    }
    const expected = [...numbers(100, 160), ...numbers(200, 233)]
      .filter((n) => n !== beNumber(205) && n !== beNumber(210) && n !== beNumber(221))
      .sort();

    const first = await recordCalls(() => listed(storedRegistryByKey));
    expect(first.result).toEqual(expected);
    expect(first.calls.some((c) => JSON.stringify(c.input).includes('FILTER_PROFILES#BE#'))).toBe(true);

    const again = await recordCalls(() => listed(storedRegistryByKey));
    expect(again.result).toEqual(expected);
    expect(beyondRoster(again.calls)).toEqual([]);
  });
});
