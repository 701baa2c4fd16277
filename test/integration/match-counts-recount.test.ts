/**
 * The match counts recounted from the stored filter profiles (lib/lists/match-recount.ts), against
 * DynamoDB Local: on a stage whose profiles predate the counts, and on counts that drifted (an item
 * gone, a figure wrong, a place no company has any more), the recount makes them what the profiles
 * say, in turns of a bounded number of items; run again, it changes nothing; two operators running it
 * at once count every profile once. The same turns write every active profile's entries (by NACE code,
 * place and the figures in their tails, as the import keeps them) and mark each country's entries whole
 * (`INDEX`, with the version of its range entries and of the numbers they carry): the backfill of a stage whose profiles predate the
 * entries.
 */
import type { Country } from '../../lib/companies/identifiers';
import { packProfile, type FilterProfile } from '../../lib/lists/filters';
import { estimateMatches } from '../../lib/lists/match-counts';
import { addCounts, contributionOf, type Counts } from '../../lib/lists/match-estimate';
import { recountMatchCounts, recountTurn } from '../../lib/lists/match-recount';
import { RANGE_ENTRIES_VERSION, RANGE_TAILS } from '../../lib/lists/range-entries';
import { FIGURE_ENTRIES_VERSION } from '../../lib/lists/sieve';
import { filterProfileItem, profileEntryKeys } from '../../lib/lists/store/profiles';
import { batchPut, queryAll } from '../../lib/storage/batch';
import { dynamodb, tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { runCli } from '../support/cli';
import { numberOf } from '../support/smart-lists';
import { useFreshTable } from '../support/table';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

useFreshTable();

const PLACES = ['gent', 'liege', 'brugge', null];
const CODES = [['6201'], ['62020', '4711'], ['4711'], ['7022', '70220'], []];

/** 150 Belgian and 90 Dutch companies whose facts cycle, one in nine stopped. */
const profiles: FilterProfile[] = (['BE', 'NL'] as Country[]).flatMap((country) =>
  Array.from({ length: country === 'BE' ? 150 : 90 }, (_, n) => ({
    country,
    activities: CODES[n % CODES.length]!,
    place: PLACES[n % PLACES.length]!,
    employees: n % 6 === 0 ? null : (n * 17) % 500,
    totalAssets: n % 4 === 0 ? null : n * 100_000,
    healthIndicator: n % 3 === 0 ? null : n % 11,
    ...(n % 9 === 8 ? { stopped: true as const } : {}),
  })),
);

/** The counts the profiles make, item by item: `<country>|<sk>` → attributes (no zeros). */
function expected(): Map<string, Record<string, number>> {
  const byCountry = new Map<Country, Counts>();
  for (const p of profiles) {
    const counts = byCountry.get(p.country) ?? new Map();
    addCounts(counts, contributionOf(p), 1);
    byCountry.set(p.country, counts);
  }
  const items = new Map<string, Record<string, number>>();
  for (const [country, counts] of byCountry)
    for (const [sk, attributes] of counts)
      items.set(`${country}|${sk}`, Object.fromEntries([...attributes].filter(([, n]) => n !== 0).sort()));
  // The recount wrote every profile's entries: the country's candidates may be read from them.
  for (const country of byCountry.keys())
    items.set(`${country}|INDEX`, {
      figures: FIGURE_ENTRIES_VERSION,
      ranges: RANGE_ENTRIES_VERSION,
      ready: 1,
    });
  return items;
}

const refOf = (p: FilterProfile, n: number) => ({
  country: p.country,
  companyNumber: numberOf(p.country, 1_000 + n),
});

/** What an entry holds for the sieve: the packed profile, and its known figures as numbers. */
const heldOf = (packed: unknown, e: unknown, a: unknown, h: unknown) => JSON.stringify({ packed, e, a, h });

/** The entries the profiles make: `<pk>|<sk>` → what they hold. */
const expectedEntries = () =>
  new Map(
    profiles.flatMap((p, n) =>
      profileEntryKeys(refOf(p, n), p).map(
        (key) =>
          [
            `${key.pk}|${key.sk}`,
            heldOf(
              packProfile(p),
              p.employees ?? undefined,
              p.totalAssets ?? undefined,
              p.healthIndicator ?? undefined,
            ),
          ] as const,
      ),
    ),
  );

/** The entries stored in the partitions the profiles make entries in. */
async function storedEntries(): Promise<Map<string, string>> {
  const partitions = new Set([...expectedEntries().keys()].map((key) => key.split('|')[0]!));
  const found = new Map<string, string>();
  for (const pk of partitions) {
    for (const item of await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    }))
      found.set(`${pk}|${item['sk'] as string}`, heldOf(item['p'], item['e'], item['a'], item['h']));
  }
  return found;
}

/** The counts stored, as `expected` has them. */
async function stored(): Promise<Map<string, Record<string, number>>> {
  const items = new Map<string, Record<string, number>>();
  for (const country of ['BE', 'NL', 'FR']) {
    for (const item of await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.matchCounts(country) },
      ConsistentRead: true,
    })) {
      const attributes = Object.entries(item as Record<string, number>).filter(
        ([name]) => name !== 'pk' && name !== 'sk',
      );
      items.set(`${country}|${item['sk'] as string}`, Object.fromEntries(attributes.sort()));
    }
  }
  return items;
}

beforeAll(async () => {
  // A stage whose profiles predate the counts: profiles, no count.
  await batchPut(
    tableName(),
    profiles.map((p, n) => filterProfileItem(refOf(p, n), packProfile(p), 1)),
  );
}, 60_000);

it('builds the counts a stage without them lacks, in turns of the bound given', async () => {
  expect((await stored()).size).toBe(0);
  expect((await storedEntries()).size).toBe(0);
  const turns = await recountMatchCounts(['BE', 'NL'], { limit: 20 });
  expect(await stored()).toEqual(expected());
  // Every active profile's entries, a stopped company's none (it matches no filter).
  expect(await storedEntries()).toEqual(expectedEntries());
  expect(expectedEntries().size).toBeGreaterThan(profiles.length);
  const ranges = [...expectedEntries().keys()].filter((key) => key.includes('#RANGE#'));
  expect(ranges.some((key) => key.includes('#RANGE#employees|'))).toBe(true);
  expect(ranges.some((key) => key.includes('#RANGE#totalAssets|'))).toBe(true);
  // 150 profiles at 20 a turn are 8 counting turns, then the pruning and copying ones.
  expect(turns.find((t) => t.country === 'BE')!.turns).toBeGreaterThan(8);
  // Nothing of the recount is left behind: no recount item, no rebuilt counts.
  expect(
    await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'MATCH_COUNTS_RECOUNT' },
    }),
  ).toEqual([]);
  const active = profiles.filter((p) => p.country === 'BE' && !p.stopped);
  expect(await estimateMatches({ countries: ['BE'] })).toBe(active.length);
  expect(await estimateMatches({ countries: ['BE'], activities: ['4711'] })).toBe(
    active.filter((p) => p.activities.some((a) => a.startsWith('4711'))).length,
  );
});

it('puts drifted counts right: an item gone, a figure wrong, a place nobody is in', async () => {
  await dynamodb().send(new DeleteCommand({ TableName: tableName(), Key: keys.matchCount('NL', 'ALL') }));
  await dynamodb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.matchCount('BE', 'ACT#62'),
      UpdateExpression: 'ADD c62 :n, c6299 :n',
      ExpressionAttributeValues: { ':n': 7 },
    }),
  );
  await dynamodb().send(
    new PutCommand({ TableName: tableName(), Item: { ...keys.matchCount('BE', 'PLACE#nowhere'), n: 3 } }),
  );
  expect(await stored()).not.toEqual(expected());

  await recountMatchCounts(['BE', 'NL'], { limit: 7 });
  expect(await stored()).toEqual(expected());
});

it('changes nothing when run again, and counts every profile once when two operators run it at once', async () => {
  await recountMatchCounts(['BE', 'NL']);
  expect(await stored()).toEqual(expected());
  expect(await storedEntries()).toEqual(expectedEntries());

  // Two recounts of the same country side by side, turn for turn: they share one run.
  const first = await recountTurn('BE', 10);
  expect(first).not.toBeNull();
  await Promise.all([recountMatchCounts(['BE'], { limit: 10 }), recountMatchCounts(['BE'], { limit: 10 })]);
  expect(await stored()).toEqual(expected());
});

it('gives entries written before they carried their numbers the numbers, and marks the country so', async () => {
  // Entries as an import before the numbers wrote them (packed profile and contacts only), and the
  // mark of a recount of that time.
  const old = profiles.flatMap((p, n) =>
    profileEntryKeys(refOf(p, n), p).map((key) => ({
      ...key,
      entity: 'FilterProfileEntry',
      p: packProfile(p),
      c: 1,
    })),
  );
  await batchPut(tableName(), old);
  await dynamodb().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.matchCount('BE', 'INDEX'), ready: 1, ranges: RANGE_ENTRIES_VERSION },
    }),
  );
  expect(await storedEntries()).not.toEqual(expectedEntries());

  await recountMatchCounts(['BE', 'NL']);
  expect(await storedEntries()).toEqual(expectedEntries());
  expect(await stored()).toEqual(expected());
});

it('runs as the operator command, `npm run match-counts`', async () => {
  await dynamodb().send(new DeleteCommand({ TableName: tableName(), Key: keys.matchCount('NL', 'ALL') }));
  const run = await runCli('infra/cli/match-counts.ts', ['--country', 'nl'], tableName());
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^NL: match counts recounted in \d+ turns$/m);
  expect(await stored()).toEqual(expected());
  // The tails' sizes, as the range entries hold them.
  const dutch = profiles.filter((p) => p.country === 'NL' && !p.stopped);
  const inTail = (figure: 'employees' | 'totalAssets') =>
    dutch.filter((p) => (p[figure] ?? -Infinity) >= RANGE_TAILS[figure]).length;
  expect(run.stdout).toContain(
    `NL: range entries for ${inTail('employees')} companies with employees >= 50, ` +
      `${inTail('totalAssets')} with total assets >= 10000000`,
  );

  // The codes and places too broad to read unsieved, at a bound of 4 (16 read whole, 80 sieved).
  process.env['SMART_LISTS_EVALUATE_AT_ONCE'] = '4';
  const small = await runCli('infra/cli/match-counts.ts', ['--country', 'nl'], tableName()).finally(
    () => delete process.env['SMART_LISTS_EVALUATE_AT_ONCE'],
  );
  const broad = [...expected()]
    .filter(([item]) => item.startsWith('NL|PLACE#') || item.startsWith('NL|ACT#'))
    .flatMap(([item, attributes]) =>
      item.startsWith('NL|PLACE#')
        ? [{ what: `place ${item.slice('NL|PLACE#'.length)}`, n: attributes['n']!, value: item.slice(9) }]
        : Object.entries(attributes).map(([name, n]) => ({
            what: `code ${name.slice(1)}`,
            n,
            value: name.slice(1),
          })),
    )
    .filter(({ n }) => n > 16)
    .sort((a, b) => b.n - a.n || a.value.localeCompare(b.value));
  expect(broad.map(({ what }) => what)).toEqual(
    expect.arrayContaining(['place gent', 'code 4711', 'code 47']),
  );
  expect(small.stdout).toContain(
    `NL: ${broad.length} codes and places over 16 companies, read only sieved (whole up to 80): ` +
      broad.map(({ what, n }) => `${what} ${n}`).join(', ') +
      '\n',
  );

  const wrong = await runCli('infra/cli/match-counts.ts', ['--country', 'DE'], tableName());
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toContain('usage: npm run match-counts');
}, 60_000);
