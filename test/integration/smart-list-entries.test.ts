/**
 * The import keeps a company's filter profile entries (lib/lists/store/profiles.ts) where its profile is,
 * against DynamoDB Local: a new code or place moves them, a new figure moves its range entry and gives
 * every entry its new numbers (the sieve compares them, lib/lists/sieve.ts) in the same writes, no item
 * more; an unchanged profile writes none, and a stopped company has none.
 */
import type { Country } from '../../lib/companies/identifiers';
import { queryAll } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { recordCalls } from '../support/dynamodb-calls';
import { bareCompany, importRecords, period } from '../support/records';
import { callerOf, everyMatch, membersOf, numberOf, postList, workerDone } from '../support/smart-lists';
import { useFreshTable } from '../support/table';

useFreshTable();

describe('the import keeps the entries', () => {
  const ref = { country: 'FR' as Country, companyNumber: numberOf('FR', 9_000) };
  const record = (overrides: Parameters<typeof bareCompany>[1]) =>
    bareCompany(0, { country: 'FR', companyNumber: ref.companyNumber, name: 'Moving SAS', ...overrides });

  /** The entries of the company, as `<pk>|<sk>`, in the partitions it could have them. */
  async function entriesOf(): Promise<string[]> {
    const found: string[] = [];
    for (const pk of [
      keys.filterProfilesByActivity('FR', '62'),
      keys.filterProfilesByActivity('FR', '47'),
      keys.filterProfilesByPlace('FR', 'lille'),
      keys.filterProfilesByPlace('FR', 'liege'),
      keys.filterProfilesByRange('FR', 'employees'),
      keys.filterProfilesByRange('FR', 'totalAssets'),
    ]) {
      const items = await queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      });
      for (const item of items)
        if ((item['sk'] as string).endsWith(ref.companyNumber)) found.push(`${pk}|${item['sk'] as string}`);
    }
    return found.sort();
  }

  it('moves a range entry when the figure changes, and takes it away when the figure leaves the tail', async () => {
    const other = { country: 'FR' as Country, companyNumber: numberOf('FR', 9_001) };
    const staffed = (employees: number) => ({
      ...period(2024),
      people: { ...period(2024).people, employees },
    });
    const company = (employees: number) =>
      bareCompany(0, {
        country: 'FR',
        companyNumber: other.companyNumber,
        name: 'Grande Banque SA',
        activities: ['6419'],
        place: 'Nantes',
        financials: [staffed(employees)],
      });
    const rangeEntries = async () =>
      (
        await queryAll({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.filterProfilesByRange('FR', 'employees') },
          ConsistentRead: true,
        })
      )
        .map((item) => item['sk'] as string)
        .filter((sk) => sk.endsWith(`#${other.companyNumber}`));
    const caller = callerOf('import-ranges');
    const large = await postList(caller, {
      name: 'Large',
      type: 'SMART',
      filters: { countries: ['FR'], employees: { min: 700 } },
    });

    await importRecords([company(800)], { asOf: '2026-11-20' });
    expect(await rangeEntries()).toEqual([keys.filterProfileByRange(other, 'employees', 800).sk]);
    expect(await membersOf(caller.accountId, large.body.id)).toContain(`FR#${other.companyNumber}`);

    await importRecords([company(650)], { asOf: '2026-11-21' });
    expect(await rangeEntries()).toEqual([keys.filterProfileByRange(other, 'employees', 650).sk]);
    expect(await membersOf(caller.accountId, large.body.id)).not.toContain(`FR#${other.companyNumber}`);

    await importRecords([company(20)], { asOf: '2026-11-22' });
    expect(await rangeEntries()).toEqual([]);
    // Read back from the entries: a range in the tail finds the company only while it is there.
    const found = await postList(caller, {
      name: 'Mid-sized',
      type: 'SMART',
      filters: { countries: ['FR'], employees: { min: 600 }, activities: ['6419'] },
    });
    expect(await membersOf(caller.accountId, found.body.id)).toEqual(
      await everyMatch({ countries: ['FR'], employees: { min: 600 }, activities: ['6419'] }),
    );
  }, 120_000);

  it('gives every entry the numbers of the latest period, rewritten in the same writes when one changes', async () => {
    const bank = { country: 'FR' as Country, companyNumber: numberOf('FR', 9_002) };
    const company = (employees: number, healthIndicator: number | null) =>
      bareCompany(0, {
        country: 'FR',
        companyNumber: bank.companyNumber,
        name: 'Petite Banque SA',
        activities: ['6419'],
        place: 'Rennes',
        financials: [{ ...period(2024, { healthIndicator }), people: { ...period(2024).people, employees } }],
      });
    /** The numbers each entry of the bank holds, by partition. */
    const numbersOf = async () => {
      const found: Record<string, unknown> = {};
      for (const pk of [
        keys.filterProfilesByActivity('FR', '64'),
        keys.filterProfilesByPlace('FR', 'rennes'),
        keys.filterProfilesByRange('FR', 'employees'),
      ])
        for (const item of await queryAll({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
        }))
          if ((item['sk'] as string).endsWith(bank.companyNumber))
            found[pk] = { e: item['e'], a: item['a'], h: item['h'] };
      return found;
    };
    const assets = period(2024).solvency.totalAssets;
    await importRecords([company(12, 7)], { asOf: '2026-11-20' });
    expect(await numbersOf()).toEqual({
      [keys.filterProfilesByActivity('FR', '64')]: { e: 12, a: assets, h: 7 },
      [keys.filterProfilesByPlace('FR', 'rennes')]: { e: 12, a: assets, h: 7 },
    });

    // A filing's new figures: the profile's entries are put again anyway, now with the new numbers
    // (the health indicator gone); the only item more is the range entry of 60 employees.
    const { calls } = await recordCalls(() => importRecords([company(60, null)], { asOf: '2026-11-21' }));
    const written = calls
      .filter((c) => /Write|Put/.test(c.command))
      .flatMap((c) => JSON.stringify(c.input).match(/FILTER_PROFILES#FR#(ACT|PLACE|RANGE)#/g) ?? []);
    expect(written).toHaveLength(3);
    expect(await numbersOf()).toEqual({
      [keys.filterProfilesByActivity('FR', '64')]: { e: 60, a: assets, h: undefined },
      [keys.filterProfilesByPlace('FR', 'rennes')]: { e: 60, a: assets, h: undefined },
      [keys.filterProfilesByRange('FR', 'employees')]: { e: 60, a: assets, h: undefined },
    });
    const caller = callerOf('import-numbers');
    const filters = { countries: ['FR'], places: ['Rennes'], employees: { min: 20, max: 100 } };
    const found = await postList(caller, { name: 'Rennes', type: 'SMART', filters });
    expect(await membersOf(caller.accountId, found.body.id)).toEqual([`FR#${bank.companyNumber}`]);
  }, 120_000);

  it('moves a changed profile, writes nothing for an unchanged one, and leaves a stopped company none', async () => {
    await importRecords([record({ activities: ['6201'], place: 'Lille' })], { asOf: '2026-11-20' });
    expect(await entriesOf()).toEqual([
      `${keys.filterProfilesByActivity('FR', '62')}|6201#${ref.companyNumber}`,
      `${keys.filterProfilesByPlace('FR', 'lille')}|${ref.companyNumber}`,
    ]);

    await importRecords([record({ activities: ['4711'], place: 'Liège' })], { asOf: '2026-11-21' });
    expect(await entriesOf()).toEqual([
      `${keys.filterProfilesByActivity('FR', '47')}|4711#${ref.companyNumber}`,
      `${keys.filterProfilesByPlace('FR', 'liege')}|${ref.companyNumber}`,
    ]);
    const caller = callerOf('import-moves');
    const found = await postList(caller, {
      name: 'Moved',
      type: 'SMART',
      filters: { countries: ['FR'], activities: ['4711'], places: ['liège'] },
    });
    expect(await membersOf(caller.accountId, found.body.id)).toContain(`FR#${ref.companyNumber}`);

    // A new name, the same profile: neither the profile nor its entries are written.
    const { calls } = await recordCalls(() =>
      importRecords([record({ activities: ['4711'], place: 'Liège', name: 'Renamed SAS' })], {
        asOf: '2026-11-22',
      }),
    );
    const writes = calls.filter((c) => /Write|Put|Update|Delete/.test(c.command));
    expect(writes.length).toBeGreaterThan(0);
    expect(JSON.stringify(writes.map((c) => c.input))).not.toContain('FILTER_PROFILES#');

    await importRecords(
      [
        record({
          activities: ['4711'],
          place: 'Liège',
          name: 'Renamed SAS',
          stoppedOn: '2026-11-01',
          financials: [period(2021)],
        }),
      ],
      { asOf: '2026-11-23' },
    );
    expect(await entriesOf()).toEqual([]);
    await workerDone();
    expect(await membersOf(caller.accountId, found.body.id)).not.toContain(`FR#${ref.companyNumber}`);
  }, 120_000);
});
