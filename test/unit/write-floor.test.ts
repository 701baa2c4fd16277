/**
 * The import benches' ceiling (test/bench/write-floor.ts): the floor a run is judged against is the
 * mean of the floors measured just before and just after it, and the ceiling follows the items a
 * company writes by kind of request.
 */
import { bracketingFloor, companiesPerSecondCeiling, type WriteFloor } from '../bench/write-floor';

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

test('the ceiling of a company writing 2 batched items and 1 in a transaction', () => {
  // 2 / 3,000 + 1 / 1,200 seconds a company.
  expect(companiesPerSecondCeiling(floor(3_000, 1_200), { batchItems: 2, transactionItems: 1 })).toBeCloseTo(
    666.67,
    1,
  );
});
