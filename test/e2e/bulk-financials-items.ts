/**
 * What the bulk financials tests send and expect (POST /v1/companies/financials, contract §6.1): a
 * company's entry, and the items a found and a failed company answer with.
 */
import type { DemoRecord } from '../fixtures/demo-data/records';
import { identifierOf, newestFirst } from './http';

export const PATH = '/v1/companies/financials';

/** The `index`th demo company of a country. */
export const demoOf = (records: DemoRecord[], country: string, index = 0): DemoRecord =>
  records.filter((r) => r.country === country)[index]!;

export const entry = (r: DemoRecord) => ({
  countryCode: r.country,
  companyNumber: r.companyNumber,
});

/** The item a found company must answer with the given page. */
export const foundItem = (r: DemoRecord, limit = 4, offset = 0) => ({
  identifier: identifierOf(r),
  data: newestFirst(r).slice(offset, offset + limit),
  pagination: { limit, offset, total: r.financials.length },
  message: null,
});

export const failedItem = (country: unknown, companyNumber: unknown, message: string) => ({
  identifier: { country, companyNumber },
  data: null,
  pagination: null,
  message,
});
