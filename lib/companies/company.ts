/** How a company shows in answers. */
import type { CompanyProfile } from './record';
import type { Identifier } from './schemas';

/** The identifier object (contract §3), in the contract's key order. */
export function toIdentifier(
  company: Pick<CompanyProfile, 'country' | 'companyNumber' | 'name' | 'place'>,
): Identifier {
  return {
    country: company.country,
    companyNumber: company.companyNumber,
    name: company.name,
    place: company.place,
  };
}
