/**
 * The sieve of a smart filter's read (lib/lists/sieve.ts): a FilterExpression on the criteria the read
 * is not keyed by — codes and places in the packed profile, ranges on the entry's numbers where its
 * country's entries carry them — within DynamoDB's 300 operators and 4 KB, as many criteria as fit.
 */
import type { Filters } from '../../lib/lists/filters';
import { MAX_EXPRESSION_BYTES, MAX_OPERATORS, sieveOf } from '../../lib/lists/sieve';

const codes = Array.from({ length: 100 }, (_, n) => String(10_000 + n));
const places = Array.from({ length: 100 }, (_, n) => `${n} ${'é'.repeat(198 - String(n).length)}`);

/** Operators and functions of an expression as DynamoDB counts them. */
const operatorsOf = (expression: string) =>
  (expression.match(/contains\(|\bOR\b|\bAND\b|BETWEEN|>=|<=/g) ?? []).length -
  // `BETWEEN :a AND :b` is one operator, its `AND` part of it.
  (expression.match(/BETWEEN/g) ?? []).length;

describe('a sieve', () => {
  test('compares the ranges on the numbers, but the one the entries are keyed by', () => {
    const filters: Filters = {
      activities: ['47'],
      employees: { min: 20, max: 21 },
      totalAssets: { max: 5e6 },
      healthIndicator: { min: 6 },
    };
    expect(sieveOf(filters, { by: 'codes', figures: true })).toEqual({
      expression: 'e BETWEEN :e0 AND :e1 AND a <= :a1 AND h >= :h0',
      values: { ':e0': 20, ':e1': 21, ':a1': 5e6, ':h0': 6 },
    });
    expect(sieveOf(filters, { by: 'employees', figures: true })).toEqual({
      expression: 'a <= :a1 AND h >= :h0 AND (contains(p, :c0))',
      values: { ':a1': 5e6, ':h0': 6, ':c0': '"47' },
    });
  });

  test('leaves out a bound DynamoDB cannot hold as a number (the read applies it after)', () => {
    const byCodes = { by: 'codes', figures: true } as const;
    expect(sieveOf({ activities: ['47'], employees: { min: 1e-200 } }, byCodes)).toBeNull();
    expect(sieveOf({ activities: ['47'], totalAssets: { min: -1e300, max: 5e6 } }, byCodes)).toEqual({
      expression: 'a <= :a1',
      values: { ':a1': 5e6 },
    });
    expect(sieveOf({ activities: ['47'], employees: { min: 0, max: 1e126 } }, byCodes)).toEqual({
      expression: 'e >= :e0',
      values: { ':e0': 0 },
    });
  });

  test('leaves the numbers to after the read where the items carry none', () => {
    expect(sieveOf({ activities: ['47'], employees: { min: 20 } }, { by: 'codes' })).toBeNull();
    expect(sieveOf({ places: ['Gent'], healthIndicator: { min: 6 } }, {})).toEqual({
      expression: '(contains(p, :p0))',
      values: { ':p0': '"gent"' },
    });
  });

  test('checks 100 values of one criterion besides the key, and of two only as many as fit', () => {
    const filters: Filters = { activities: codes, places, employees: { min: 20 } };
    const byCodes = sieveOf(filters, { by: 'codes', figures: true })!;
    expect(Object.keys(byCodes.values)).toHaveLength(101);
    // Every profile: 100 codes and 100 places would be 399 operators, so only one criterion is checked.
    const everyProfile = sieveOf(filters, {})!;
    expect(Object.keys(everyProfile.values)).toHaveLength(100);
    for (const { expression } of [byCodes, everyProfile]) {
      expect(operatorsOf(expression)).toBeLessThanOrEqual(MAX_OPERATORS);
      expect(Buffer.byteLength(expression)).toBeLessThanOrEqual(MAX_EXPRESSION_BYTES);
    }
    // 100 codes and 50 places: 299 operators, both checked.
    const both = sieveOf({ activities: codes, places: places.slice(0, 50) }, {})!;
    expect(Object.keys(both.values)).toHaveLength(150);
    expect(operatorsOf(both.expression)).toBe(299);
  });
});
