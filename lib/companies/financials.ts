/**
 * Annual financials (contract §6.1): periods newest first, paginated per company.
 *
 * The periods are answered from their stored JSON text, cut to the page without parsing it: the same
 * bytes as parsing and serialising again (test/integration/financials-json.test.ts compares them on the
 * demo data), for a fraction of the CPU — a bulk call would otherwise parse about 430 KB of periods to
 * send four of each company's.
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

function financialsOf({ company, periodsJson }: StoredFinancials, page: PageRequest) {
  // Stored newest first; endDate is unique within a company, so the order is stable.
  return { identifier: toIdentifier(company), ...pageOfPeriods(periodsJson, page) };
}

/**
 * Where a period starts in the stored text. Every period is an object whose first key is `startDate`
 * (the import validates §6.1's exact keys and stores them in the contract's order), and no object
 * nested in a period has that key. In JSON text `{"startDate":` can only be the start of an object with
 * that first key: inside a string every `"` is escaped. So its occurrences are exactly the periods.
 */
const PERIOD_START = '{"startDate":';

/** The page of the stored periods, cut from their JSON text, and the pagination with the exact total. */
export function pageOfPeriods(
  periodsJson: string,
  { limit, offset }: PageRequest,
): { data: RawJson<FinancialPeriod[]>; pagination: Pagination } {
  let total = 0;
  let start = -1;
  let end = periodsJson.length - 1; // the closing `]`, unless the page ends before the last period
  for (
    let at = periodsJson.indexOf(PERIOD_START);
    at !== -1;
    at = periodsJson.indexOf(PERIOD_START, at + PERIOD_START.length)
  ) {
    if (total === offset) start = at;
    if (total === offset + limit) end = at - 1; // the `,` between two periods
    total++;
  }
  const data = start === -1 ? '[]' : `[${periodsJson.slice(start, end)}]`;
  return { data: new RawJson(data), pagination: { limit, offset, total } };
}
