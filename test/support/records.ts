/** Hand-made company records (contract §11.1) for tests: every figure consistent, any field overridable. */
import type { CompanyRef } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import type { FinancialPeriod } from '../../lib/companies/schemas';
import { importCompanies, type ImportOptions } from '../../lib/import/import';

/** A full-year period ending on 31 December of `year` whose figures satisfy every identity of §6.1. */
export interface PeriodOverrides {
  revenue?: number | null;
  grossMargin?: number | null;
  healthIndicator?: number | null;
}

export function period(year: number, overrides: PeriodOverrides = {}): FinancialPeriod {
  return {
    startDate: `${year}-01-01`,
    endDate: `${year}-12-31`,
    dateReceived: `${year + 1}-06-30`,
    healthIndicator: overrides.healthIndicator === undefined ? 6 : overrides.healthIndicator,
    jointCommitteeCodes: ['200'],
    profitability: {
      revenue: overrides.revenue === undefined ? 1_000_000 + year : overrides.revenue,
      grossMargin: overrides.grossMargin === undefined ? 400_000 : overrides.grossMargin,
      ebitda: 120_000.5,
      ebit: 90_000.25,
      netProfit: 60_000,
    },
    liquidity: {
      cash: 50_000,
      cashFlow: -1_234.56,
      netWorkingCapital: 80_000,
      netWorkingCapitalRequirement: 30_000,
      currentRatio: 1.5,
      quickRatio: 1.1234,
    },
    solvency: {
      totalAssets: 900_000,
      equity: 300_000,
      capital: null,
      retainedEarnings: 250_000,
      debt: 600_000,
      longTermDebt: 400_000,
      longTermDebtFinancial: 350_000,
      longTermDebtAccountsPayable: 0,
      shortTermDebt: 200_000,
      shortTermDebtFinancial: 20_000,
      shortTermDebtAccountsPayable: 150_000,
    },
    people: { employees: 12, newHires: 2, employeeMaleRatio: 0.5833, employeeFemaleRatio: 0.4167 },
  };
}

export function companyRecord(overrides: Partial<CompanyRecordInput> = {}): CompanyRecordInput {
  return {
    country: 'BE',
    companyNumber: '0403.170.701',
    name: 'Acme Bouw NV',
    place: 'Gent',
    vatNumber: 'BE0403170701',
    website: 'https://www.acme-bouw.be',
    legalForm: 'NV',
    foundedOn: '1998-03-01',
    activities: ['41201', '43.99'],
    financials: [period(2022), period(2023)],
    shareholders: [
      { country: 'BE', companyNumber: '0400000185', name: 'Acme Holding NV', percentage: 0.6 },
      { name: 'Jan Peeters', percentage: 0.4 },
    ],
    contacts: [{ contactId: 90210, firstName: 'An', lastName: 'Peeters', jobTitle: 'CEO' }],
    ...overrides,
  };
}

/** The company `companyRecord` describes by default, Acme Bouw NV, and its holding (its 60 % shareholder). */
export const ACME: CompanyRef = { country: 'BE', companyNumber: '0403170701' };
export const HOLDING: CompanyRef = { country: 'BE', companyNumber: '0400000185' };

/** Acme Holding NV: registered, with nothing that derives updates of its own (no periods, people, VAT or website). */
export const holdingRecord = (): CompanyRecordInput =>
  companyRecord({
    ...HOLDING,
    name: 'Acme Holding NV',
    vatNumber: null,
    website: null,
    financials: [],
    shareholders: [],
    contacts: [],
  });

/**
 * A Dutch company with one period (2021) and nothing else that derives facts: no VAT number, website,
 * shareholders or contacts. What the events, watched-lists and delivery tests watch: a new period each
 * (`withPeriod`) derives one update per company.
 */
export function bareCompany(
  companyNumber: number,
  overrides: Partial<CompanyRecordInput> = {},
): CompanyRecordInput {
  return companyRecord({
    country: 'NL',
    companyNumber: String(companyNumber),
    vatNumber: null,
    website: null,
    shareholders: [],
    contacts: [],
    financials: [period(2021)],
    ...overrides,
  });
}

/** The records with one more period, of `year`. */
export const withPeriod = (records: CompanyRecordInput[], year: number): CompanyRecordInput[] =>
  records.map((r) => ({ ...r, financials: [...(r.financials ?? []), period(year)] }));

/** Imports the records as the lines of a file (contract §11.2), as of `asOf`. */
export async function importRecords(
  records: CompanyRecordInput[],
  options: Omit<ImportOptions, 'asOf'> & { asOf?: string } = {},
) {
  async function* lines() {
    for (const record of records) yield JSON.stringify(record);
  }
  return importCompanies(lines(), { asOf: '2026-11-21', ...options });
}
