/** Annual financials (contract §6.1): periods newest first, paginated per company. */
import { NotFoundError, ValidationError } from '../http/errors';
import { paginate, type PageRequest } from '../http/pagination';
import type { BulkFinancialsItem } from '../schemas/financials';
import { getCompaniesWithFinancials, type StoredFinancials } from '../storage/store';
import { answerEach, type BulkCompanyEntry } from './bulk';
import { toIdentifier } from './company';
import { companyKey, parseCompanyNumber, parseCountry, type CompanyRef } from './identifiers';

export async function getCompanyFinancials(
  path: { countryCode: string; companyNumber: string },
  page: PageRequest,
) {
  const ref = companyRefFromPath(path);
  const found = (await getCompaniesWithFinancials([ref])).get(companyKey(ref));
  if (!found) throw new NotFoundError('Company not found');
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

/** A path names one company: a bad country or number is a 400 for the whole request. */
export function companyRefFromPath(path: { countryCode: string; companyNumber: string }): CompanyRef {
  const country = parseCountry(path.countryCode);
  if (!country) throw ValidationError.field('Invalid country code', 'countryCode', 'must be BE, NL or FR');
  const companyNumber = parseCompanyNumber(country, path.companyNumber);
  if (!companyNumber) {
    throw ValidationError.field(
      'Invalid company number',
      'companyNumber',
      `is not a valid ${country} company number`,
    );
  }
  return { country, companyNumber };
}
