/**
 * A sweep of filter profile entries read several segments at a time (lib/lists/store/profiles.ts,
 * `readSweep` with `parallel`), against DynamoDB Local: the same profiles as one segment after another,
 * each segment's first page asked before any segment's second; cut by its bounds, it answers exactly
 * what precedes the first segment not read to its end, and going on from its cursor one segment at a
 * time reads every company once.
 */
import { packProfile, type FilterProfile } from '../../lib/lists/filters';
import {
  activitySegment,
  profileEntryItems,
  readSweep,
  type SweptProfile,
} from '../../lib/lists/store/profiles';
import { batchPut } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import { recordCalls } from '../support/dynamodb-calls';
import { numberOf } from '../support/smart-lists';
import { useFreshTable } from '../support/table';

useFreshTable();

const CODES = ['1011', '2011', '3011'];
const SWEEP = CODES.map((code) => activitySegment('BE', code, true));

/** 30 companies per code, a tenth of them under two of the codes. */
const PROFILES = CODES.flatMap((code, c) =>
  Array.from({ length: 30 }, (_, n) => {
    const activities = n % 10 === 0 ? [code, CODES[(c + 1) % CODES.length]!] : [code];
    const profile: FilterProfile = {
      country: 'BE',
      activities,
      place: null,
      employees: n,
      totalAssets: null,
      healthIndicator: n % 11,
    };
    return { ref: { country: 'BE' as const, companyNumber: numberOf('BE', c * 1_000 + n) }, profile };
  }),
);

beforeAll(async () => {
  await batchPut(
    tableName(),
    PROFILES.flatMap(({ ref, profile }) => profileEntryItems(ref, profile, packProfile(profile), 1)),
  );
});

const numbers = (profiles: SweptProfile[]) => profiles.map((p) => p.ref.companyNumber);

it('reads the same profiles in the same order, the segments side by side', async () => {
  const one = await readSweep(SWEEP, { shard: 0 }, { limit: 1_000 });
  const side = await readSweep(SWEEP, { shard: 0 }, { limit: 1_000, parallel: 3 });
  expect(side.next).toBeUndefined();
  expect(numbers(side.profiles)).toEqual(numbers(one.profiles));
  // 99 entries for 90 companies.
  expect(side.profiles).toHaveLength(90);
  expect(side.read).toBe(99);
});

it('cut by its bounds, keeps what precedes the first segment not read through, and goes on from there', async () => {
  const { result: cut, calls } = await recordCalls(() =>
    readSweep(SWEEP, { shard: 0 }, { limit: 45, parallel: 3 }),
  );
  // One page of each segment at once (in the order they answer), the bound shared: 15 entries each.
  const segments = calls.map((c) => JSON.stringify(c.input).match(/":prefix":\{"S":"(\d+)"\}/)?.[1]);
  expect(segments.sort()).toEqual([...CODES].sort());
  expect(calls.map((c) => (c.input as { Limit: number }).Limit)).toEqual([15, 15, 15]);
  expect(cut.read).toBe(45);
  // What precedes the first segment not read through: 1011's first 15.
  expect(cut.profiles).toHaveLength(15);
  expect(cut.next).toMatchObject({ shard: 0 });
  const whole = numbers((await readSweep(SWEEP, { shard: 0 }, { limit: 1_000 })).profiles);
  const read = [...numbers(cut.profiles)];
  for (let at = cut.next; at;) {
    const turn = await readSweep(SWEEP, at, { limit: 7 });
    read.push(...numbers(turn.profiles));
    at = turn.next;
  }
  // Every company of the sweep, none lost; one read under two codes at most twice (as sequential turns do).
  expect([...new Set(read)].sort()).toEqual([...new Set(whole)].sort());
  expect(numbers(cut.profiles)).toEqual(whole.slice(0, cut.profiles.length));
});

it('sieves each segment by the filter, numbers included', async () => {
  const filters = { activities: CODES, employees: { min: 5, max: 7 }, healthIndicator: { min: 6 } };
  const { profiles, read } = await readSweep(SWEEP, { shard: 0 }, { limit: 1_000, filters, parallel: 3 });
  expect(read).toBe(99);
  // n in 5..7 with n % 11 ≥ 6: 6 and 7, in each of the three codes.
  expect(profiles).toHaveLength(6);
});
