/**
 * The round-trip budget of bulk relationships (contract §6.2): 100 companies with 100 holdings each,
 * on either side, answered in at most 2 DynamoDB round trips (counted as the request log counts them).
 */
import { holdingsDerivation } from '../../lib/legal-entities/holdings';
import { belgianCheckDigits } from '../../lib/companies/identifiers';
import { getRelationshipsInBulk } from '../../lib/companies/relationships';
import { importCompanies } from '../../lib/import/import';
import { withRequestMetrics } from '../../lib/metrics';
import { companyRecord } from '../support/records';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(180_000);

const beNumber = (n: number) => {
  const firstEight = `07${String(n).padStart(6, '0')}`;
  return firstEight + belgianCheckDigits(firstEight);
};
const HOLDERS = Array.from({ length: 100 }, (_, i) => 1 + i);
const HELD = Array.from({ length: 100 }, (_, i) => 101 + i);

const company = (n: number, holders: number[]) =>
  companyRecord({
    companyNumber: beNumber(n),
    name: `Company ${n} NV`,
    vatNumber: null,
    shareholders: holders.map((h) => ({
      country: 'BE',
      companyNumber: beNumber(h),
      name: `Company ${h} NV`,
      percentage: 0.01,
    })),
    contacts: [],
  });

beforeAll(async () => {
  async function* lines() {
    for (const n of HELD) yield JSON.stringify(company(n, HOLDERS));
    for (const n of HOLDERS) yield JSON.stringify(company(n, []));
  }
  await importCompanies(lines(), {
    asOf: '2026-11-21',
    deriveBatch: holdingsDerivation(),
    derive: async () => ({ updates: 0 }),
    complete: async () => undefined,
  });
});

async function bulk(numbers: number[]) {
  return withRequestMetrics(async (metrics) => {
    const items = await getRelationshipsInBulk({
      companies: numbers.map((n) => ({ countryCode: 'BE', companyNumber: beNumber(n) })),
    });
    return { items, calls: metrics.dynamodbCalls };
  });
}

describe('bulk relationships of 100 companies with 100 holdings each', () => {
  it('answers 100 holders, 100 children each, in at most 2 round trips', async () => {
    const { items, calls } = await bulk(HOLDERS);

    expect(items.map((item) => item.data?.children.length)).toEqual(HOLDERS.map(() => 100));
    expect(calls).toBeLessThanOrEqual(2);
  });

  it('answers 100 held companies, 100 registered parents each in name order, in at most 2 round trips', async () => {
    const { items, calls } = await bulk(HELD);

    const names = [...HOLDERS].map((h) => `Company ${h} NV`).sort();
    for (const item of items)
      expect(item.data?.parents.map((p) => ('name' in p ? p.name : null))).toEqual(names);
    expect(calls).toBeLessThanOrEqual(2);
  });
});
