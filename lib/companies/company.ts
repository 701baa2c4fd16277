/** The company profile as stored and shown. */
import type { Identifier } from '../schemas/common';
import type { FinancialPeriod } from '../schemas/financials';
import type { CompanyRef } from './identifiers';

export interface Company extends CompanyRef {
  name: string;
  place: string | null;
  /** e.g. BE0403170701, NL…B01, FR40552100554; null when not VAT-registered. */
  vatNumber: string | null;
  /** Registered domain with scheme, e.g. https://www.example.be; null when unknown. */
  website: string | null;
}

/** A company with everything loaded about it in one go (demo data, data loads). */
export interface CompanyRecord {
  company: Company;
  /** Any order; readers sort. */
  periods: FinancialPeriod[];
}

/** The identifier object, in the contract's key order. */
export function toIdentifier(company: Company): Identifier {
  return {
    country: company.country,
    companyNumber: company.companyNumber,
    name: company.name,
    place: company.place,
  };
}
