/**
 * Annual financials (contract §6.1): periods newest first, paginated per company.
 *
 * The periods are answered from their stored JSON texts, the page's texts joined into an array without
 * parsing them: the same bytes as parsing and serialising again (test/integration/financials-json.test.ts
 * compares them on the demo data), without parsing the periods of every company in a bulk call only to
 * send a few of each.
 */
import { CompanyNotFound } from '../errors';
import type { PageRequest } from '../http/pagination';
import { RawJson, toRawJson, type WithRawJson } from '../http/raw-json';
import type { Pagination } from '../http/schemas';
import type { BulkFinancialsItem, CompanyFinancials, FinancialPeriod } from './schemas';
import { getCompaniesWithFinancials, getCompanyWithFinancials, type StoredFinancials } from './store';
import { answerEach, companyRefFromPath, type BulkCompanyEntry } from './requested-companies';
import { toIdentifier } from './company';

export async function getCompanyFinancials(
  path: { countryCode: string; companyNumber: string },
  page: PageRequest,
) {
  const ref = companyRefFromPath(path);
  const found = await getCompanyWithFinancials(ref);
  if (!found) throw new CompanyNotFound();
  return toRawJson<CompanyFinancials>(financialsOf(found, page));
}

export async function getFinancialsInBulk({
  companies,
  limit,
  offset,
}: { companies: BulkCompanyEntry[] } & PageRequest) {
  const items = await answerEach<StoredFinancials, WithRawJson<BulkFinancialsItem>>(
    companies,
    getCompaniesWithFinancials,
    {
      found: (found) => ({ ...financialsOf(found, { limit, offset }), message: null }),
      failed: (identifier, message) => ({ identifier, data: null, pagination: null, message }),
    },
  );
  return toRawJson<BulkFinancialsItem[]>(items);
}

function financialsOf({ company, periods }: StoredFinancials, page: PageRequest) {
  // Stored newest first; endDate is unique within a company, so the order is stable.
  return { identifier: toIdentifier(company), ...pageOfPeriods(periods, page) };
}

/**
 * The page of the stored periods (one JSON text each, lib/companies/stored-periods.ts) as one JSON
 * array, and the pagination with the exact total.
 */
export function pageOfPeriods(
  periods: readonly string[],
  { limit, offset }: PageRequest,
): { data: RawJson<FinancialPeriod[]>; pagination: Pagination } {
  const page = periods.slice(offset, offset + limit);
  return { data: new RawJson(`[${page.join(',')}]`), pagination: { limit, offset, total: periods.length } };
}
