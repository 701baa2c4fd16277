/** Annual financials (contract §6.1): periods newest first, paginated per company. */
import { NotFoundError } from '../http/errors';
import { paginate, type PageRequest } from '../http/pagination';
import type { BulkFinancialsItem } from './schemas';
import { getCompaniesWithFinancials, getCompanyWithFinancials, type StoredFinancials } from './store';
import {
  answerEach,
  COMPANY_MESSAGES,
  companyRefFromPath,
  type BulkCompanyEntry,
} from './requested-companies';
import { toIdentifier } from './company';

export async function getCompanyFinancials(
  path: { countryCode: string; companyNumber: string },
  page: PageRequest,
) {
  const ref = companyRefFromPath(path);
  const found = await getCompanyWithFinancials(ref);
  if (!found) throw new NotFoundError(COMPANY_MESSAGES.notFound);
  return financialsOf(found, page);
}

export function getFinancialsInBulk({
  companies,
  limit,
  offset,
}: { companies: BulkCompanyEntry[] } & PageRequest) {
  return answerEach<StoredFinancials, BulkFinancialsItem>(companies, getCompaniesWithFinancials, {
    found: (found) => ({ ...financialsOf(found, { limit, offset }), message: null }),
    failed: (identifier, message) => ({ identifier, data: null, pagination: null, message }),
  });
}

function financialsOf({ company, periods }: StoredFinancials, page: PageRequest) {
  // Stored newest first; endDate is unique within a company, so the order is stable.
  return { identifier: toIdentifier(company), ...paginate(periods, page) };
}
