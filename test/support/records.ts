/** Hand-made company records (contract §11.1) for tests: every figure consistent, any field overridable. */
import type { CompanyRecordInput } from '../../lib/companies/record';
import type { FinancialPeriod } from '../../lib/companies/schemas';

/** A full-year period ending on 31 December of `year` whose figures satisfy every identity of §6.1. */
export interface PeriodOverrides {
  revenue?: number | null;
  grossMargin?: number | null;
  healthIndicator?: number;
}

export function period(year: number, overrides: PeriodOverrides = {}): FinancialPeriod {
  return {
    startDate: `${year}-01-01`,
    endDate: `${year}-12-31`,
    dateReceived: `${year + 1}-06-30`,
    healthIndicator: overrides.healthIndicator ?? 6,
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
