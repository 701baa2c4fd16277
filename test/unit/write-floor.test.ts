/**
 * The import benches' ceiling (test/bench/write-floor.ts): the floor a run is judged against is the
 * median of the rounds of the floors measured just before and just after it (the mean of the two when
 * they hold no rounds), and the ceiling follows the items a company writes by kind of request.
 */
import {
  bracketingFloor,
  companiesPerSecondCeiling,
  floorLine,
  medianRate,
  runsLine,
  type RoundRate,
  type WriteFloor,
} from '../bench/write-floor';

const floor = (batch: number, transaction: number, batchMs = 0.3): WriteFloor => ({
  batch: { itemsPerSecond: batch, javaMsPerItem: batchMs },
  transaction: { itemsPerSecond: transaction, javaMsPerItem: 0.5 },
  update: { itemsPerSecond: 1_000, javaMsPerItem: 0.9 },
  read: { itemsPerSecond: 8_000, javaMsPerItem: 0.1 },
});

test('a run is judged against the mean of the floors measured around it', () => {
  const mean = bracketingFloor(floor(2_000, 1_000, 0.6), floor(4_000, 1_400, 0.3));
  expect(mean.batch.itemsPerSecond).toBe(3_000);
  expect(mean.batch.javaMsPerItem).toBeCloseTo(0.45, 10);
  expect(mean.transaction.itemsPerSecond).toBe(1_200);
  expect(mean.update).toEqual({ itemsPerSecond: 1_000, javaMsPerItem: 0.9 });
});

test('the same floor before and after is that floor', () => {
  expect(bracketingFloor(floor(3_310, 1_682), floor(3_310, 1_682))).toEqual(floor(3_310, 1_682));
});

const round = (itemsPerSecond: number, javaMsPerItem: number): RoundRate => ({
  itemsPerSecond,
  javaMsPerItem,
});

test("a kind's figures are the median of its rounds, each figure its own", () => {
  // The slowest round is not the dearest: each figure is the median of its own.
  const rounds = [
    round(2_000, 0.3),
    round(900, 0.31),
    round(2_100, 0.6),
    round(1_900, 0.29),
    round(2_050, 0.32),
  ];
  expect(medianRate(rounds)).toEqual({ itemsPerSecond: 2_000, javaMsPerItem: 0.31, rounds });
  expect(medianRate([round(1_000, 0.2), round(2_000, 0.4)])).toMatchObject({
    itemsPerSecond: 1_500,
    javaMsPerItem: expect.closeTo(0.3, 10) as number,
  });
});

test('a run is judged against the median of the rounds before and after it together', () => {
  const rounds = (batch: RoundRate[]): WriteFloor => ({ ...floor(0, 1_000), batch: medianRate(batch) });
  // A disturbed round before the run (600 items/s) moves the median, not the ceiling by a third.
  const before = rounds([round(600, 0.9), round(2_000, 0.3), round(2_100, 0.3)]);
  const after = rounds([round(2_200, 0.28), round(1_900, 0.32), round(2_050, 0.3)]);
  const floorOfRun = bracketingFloor(before, after);
  expect(floorOfRun.batch.itemsPerSecond).toBe(2_025);
  expect(floorOfRun.batch.javaMsPerItem).toBeCloseTo(0.3, 10);
  expect(floorOfRun.batch.rounds).toHaveLength(6);
  expect(floorLine(floorOfRun)).toContain(
    'medians of 6 rounds each, the batched rounds 600–2200 items/s, 0.28–0.90 ms',
  );
});

test('the ceiling of a company writing 2 batched items and 1 in a transaction', () => {
  // 2 / 3,000 + 1 / 1,200 seconds a company.
  expect(companiesPerSecondCeiling(floor(3_000, 1_200), { batchItems: 2, transactionItems: 1 })).toBeCloseTo(
    666.67,
    1,
  );
});

test('with the keys it reads priced, the ceiling adds their time at the read floor', () => {
  // 2 / 3,000 + 1 / 1,200 + 0.8 / 8,000 seconds a company; without the keys, the writes alone.
  const split = { batchItems: 2, transactionItems: 1 };
  expect(companiesPerSecondCeiling(floor(3_000, 1_200), split, 0.8)).toBeCloseTo(625, 1);
  expect(companiesPerSecondCeiling(floor(3_000, 1_200), split)).toBeCloseTo(666.67, 1);
});

test("runs of the same import print each run's share and their median, never one run alone", () => {
  const line = runsLine([
    { share: 66.2, javaMs: 0.85, floorMs: 0.71, commandMs: 0.59 },
    { share: 85.4, javaMs: 0.941, floorMs: 0.926, commandMs: 0.698 },
    { share: 50.1, javaMs: 1.116, floorMs: 0.676, commandMs: 0.719 },
  ]);
  expect(line).toContain('3 runs, shares of their ceilings 66 %, 85 %, 50 % (median 66 %)');
  expect(line).toContain("DynamoDB Local's CPU a filing 0.850 ms, 0.941 ms, 1.116 ms (median 0.941 ms)");
  expect(line).toContain("over the floor's price of its items 1.20, 1.02, 1.65 (median 1.20)");
  expect(line).toContain('the import command 0.590 ms, 0.698 ms, 0.719 ms (median 0.698 ms)');
  // Two runs: the median is the mean of the two.
  expect(
    runsLine([
      { share: 60, javaMs: 1, floorMs: 1, commandMs: 1 },
      { share: 80, javaMs: 1, floorMs: 1, commandMs: 1 },
    ]),
  ).toContain('60 %, 80 % (median 70 %)');
});
