/**
 * (ext) Registry digests over units handed on unmapped (`RawUnit`, lib/import/sources/unit.ts), as the
 * import command reads the KBO and SIRENE converters: a file imported again maps no unit of a block
 * whose digest matches, maps only its rejected and skipped items to report them again (a withheld name
 * not even those: its digest keeps its company), and a digest never matches across a change of the
 * mapping's version.
 */
import { getCompanyRecords } from '../../lib/companies/store';
import {
  NAME_WITHHELD,
  type RawMapping,
  type ReadItem,
  type RegistryItem,
} from '../../lib/import/sources/unit';
import { recordCalls, type Call } from '../support/dynamodb-calls';
import { companyRecord } from '../support/records';
import { beNumber, figures, jsonLines, ref, registry, unit } from '../support/registry-units';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(180_000);

/** The companies every BatchGetItem among `calls` read. */
const companiesRead = (calls: Call[]): string[] =>
  calls.flatMap((c) => {
    if (c.command !== 'BatchGetItem') return [];
    const input = c.input as {
      RequestItems?: Record<string, { Keys: Array<{ pk: string | { S: string } }> }>;
    };
    return Object.values(input.RequestItems ?? {})
      .flatMap((r) => r.Keys.map((k) => (typeof k.pk === 'string' ? k.pk : k.pk.S)))
      .filter((pk) => pk.startsWith('COMPANY#'));
  });

/** A raw unit's values: its number and its name (null: none, `[ND]`: withheld). */
type Raw = [number, string | null];

/** A mapping of `Raw` texts that counts the units it maps; `shout` maps the name in capitals. */
function mappingOf(version: string, shout = false) {
  const mapped: number[] = [];
  const mapping: RawMapping = {
    version,
    map: (text, source): RegistryItem => {
      const [n, name] = JSON.parse(text) as Raw;
      mapped.push(n);
      if (name === null) return { kind: 'rejected', source, reason: `enterprise ${n} has no name` };
      if (name === '[ND]')
        return {
          kind: 'skipped',
          reason: NAME_WITHHELD,
          source,
          company: { country: 'BE', companyNumber: beNumber(n) },
        };
      const item = unit(n, { name: shout ? name.toUpperCase() : name });
      return item.kind === 'unit' ? { kind: 'unit', unit: { ...item.unit, source } } : item;
    },
  };
  return { mapping, mapped };
}

/** Enterprises `from`..`to - 1` as raw units of `mapping`, named `Registry n NV` unless `names` says otherwise. */
const rawUnits = (from: number, to: number, mapping: RawMapping, names: Record<number, string | null> = {}) =>
  Array.from({ length: to - from }, (_, i): ReadItem => {
    const n = from + i;
    const raw: Raw = [n, n in names ? names[n]! : `Registry ${n} NV`];
    return {
      kind: 'raw',
      source: { file: 'enterprise.csv', line: n + 1 },
      company: { country: 'BE', companyNumber: beNumber(n) },
      text: JSON.stringify(raw),
      mapping,
    };
  });

const nameOf = async (n: number) => (await getCompanyRecords([ref(n)])).get(`BE#${beNumber(n)}`)?.record.name;

describe('a registry file of raw units imported again', () => {
  it('maps no unit and reads no company when every block is unchanged', async () => {
    const first = mappingOf('test-map-1');
    const created = await registry(rawUnits(1000, 1250, first.mapping));
    expect(figures(created.summary)).toMatchObject({ created: 250, rejected: 0 });
    expect(first.mapped).toHaveLength(250);
    expect(await nameOf(1042)).toBe('Registry 1042 NV');

    const again = mappingOf('test-map-1');
    const { result, calls } = await recordCalls(() => registry(rawUnits(1000, 1250, again.mapping)));

    expect(figures(result.summary)).toMatchObject({ read: 250, unchanged: 250, changed: 0, rejected: 0 });
    expect(again.mapped).toEqual([]);
    expect(companiesRead(calls)).toEqual([]);
  });

  it('maps and merges the blocks whose raw values changed, and those another import wrote since', async () => {
    const { mapping } = mappingOf('test-map-1');
    await registry(rawUnits(2000, 2400, mapping));
    await jsonLines([
      companyRecord({ companyNumber: beNumber(2210), name: 'Other 2210', contacts: [], shareholders: [] }),
    ]);

    const again = mappingOf('test-map-1');
    const { result, calls } = await recordCalls(() =>
      registry(rawUnits(2000, 2400, again.mapping, { 2010: 'Renamed 2010 BV' })),
    );

    expect(figures(result.summary)).toMatchObject({ read: 400, changed: 2, unchanged: 398 });
    expect(await nameOf(2010)).toBe('Renamed 2010 BV');
    expect(await nameOf(2210)).toBe('Registry 2210 NV');
    // Only the two blocks (of four) that differ were mapped and read.
    const blocks = (numbers: number[]) => new Set(numbers.map((n) => beNumber(n).slice(0, 6)));
    expect(blocks(again.mapped)).toEqual(blocks([2010, 2210]));
    expect(new Set(companiesRead(calls).map((pk) => pk.slice('COMPANY#BE#'.length, -4)))).toEqual(
      blocks([2010, 2210]),
    );
  });

  it('maps only the rejected items of an unchanged block, reported again every run with its withheld names', async () => {
    const names = { 3005: null, 3007: '[ND]' };
    const { mapping } = mappingOf('test-map-1');
    const first = await registry(rawUnits(3000, 3020, mapping, names));
    expect(first.rejected).toEqual(['enterprise.csv line 3006: enterprise 3005 has no name']);
    expect(first.summary.skipped).toEqual(new Map([[NAME_WITHHELD, 1]]));

    const again = mappingOf('test-map-1');
    const second = await registry(rawUnits(3000, 3020, again.mapping, names));

    expect(second.rejected).toEqual(['enterprise.csv line 3006: enterprise 3005 has no name']);
    expect(second.summary.skipped).toEqual(new Map([[NAME_WITHHELD, 1]]));
    expect(figures(second.summary)).toMatchObject({ read: 19, rejected: 1, unchanged: 18 });
    // The withheld name is reported from its block's digest, its unit not mapped again.
    expect(again.mapped).toEqual([3005]);

    // A company of the withheld number written since by another source is still erased by it.
    await jsonLines([
      companyRecord({ companyNumber: beNumber(3007), name: 'Other 3007', contacts: [], shareholders: [] }),
    ]);
    const third = mappingOf('test-map-1');
    const erased = await registry(rawUnits(3000, 3020, third.mapping, names));
    // Its creation marked the block stale: every unit of it mapped once.
    expect(third.mapped).toEqual(Array.from({ length: 20 }, (_, i) => 3000 + i));
    expect(figures(erased.summary)).toMatchObject({ read: 20, rejected: 1, unchanged: 18 });
    expect(erased.summary.skipped).toEqual(new Map());
    expect(await nameOf(3007)).toBeUndefined();
    // The erasure leaves the block stale for one more run; the run after that maps the rejected item alone.
    await registry(rawUnits(3000, 3020, mappingOf('test-map-1').mapping, names));
    const fifth = mappingOf('test-map-1');
    await registry(rawUnits(3000, 3020, fifth.mapping, names));
    expect(fifth.mapped).toEqual([3005]);
  });

  it('matches no digest across a change of the mapping version: every unit is mapped and merged again', async () => {
    const { mapping } = mappingOf('test-map-1');
    await registry(rawUnits(4000, 4100, mapping));

    // The same raw values, mapped by a new version of the mapping that makes other names of them.
    const changed = mappingOf('test-map-2', true);
    const { result } = await recordCalls(() => registry(rawUnits(4000, 4100, changed.mapping)));

    expect(changed.mapped).toHaveLength(100);
    expect(figures(result.summary)).toMatchObject({ read: 100, changed: 100, unchanged: 0 });
    expect(await nameOf(4042)).toBe('REGISTRY 4042 NV');

    // And the new version's digests hold from then on.
    const third = mappingOf('test-map-2', true);
    const last = await registry(rawUnits(4000, 4100, third.mapping));
    expect(figures(last.summary)).toMatchObject({ unchanged: 100 });
    expect(third.mapped).toEqual([]);
  });
});
