/** Lists copied from the wire contract (shared/contract.md), so tests compare answers with the contract itself. */

/** §6.1: a financial period's keys and each group's keys, in order. */
export const PERIOD_KEYS = {
  period: [
    'startDate',
    'endDate',
    'dateReceived',
    'healthIndicator',
    'jointCommitteeCodes',
    'profitability',
    'liquidity',
    'solvency',
    'people',
  ],
  profitability: ['revenue', 'grossMargin', 'ebitda', 'ebit', 'netProfit'],
  liquidity: [
    'cash',
    'cashFlow',
    'netWorkingCapital',
    'netWorkingCapitalRequirement',
    'currentRatio',
    'quickRatio',
  ],
  solvency: [
    'totalAssets',
    'equity',
    'capital',
    'retainedEarnings',
    'debt',
    'longTermDebt',
    'longTermDebtFinancial',
    'longTermDebtAccountsPayable',
    'shortTermDebt',
    'shortTermDebtFinancial',
    'shortTermDebtAccountsPayable',
  ],
  people: ['employees', 'newHires', 'employeeMaleRatio', 'employeeFemaleRatio'],
} as const satisfies Record<string, readonly string[]>;

/** §11.1: a company record's keys, in the order of the contract's example. */
export const RECORD_KEYS = [
  'country',
  'companyNumber',
  'name',
  'place',
  'vatNumber',
  'website',
  'legalForm',
  'foundedOn',
  'stoppedOn',
  'address',
  'activities',
  'financials',
  'shareholders',
  'contacts',
] as const;

/** §7.2: a list's keys, in order. */
export const LIST_KEYS = [
  'id',
  'name',
  'type',
  'columns',
  'shared',
  'notifications',
  'amountOfCompanies',
  'newResults',
  'updatedAt',
  'createdAt',
  'createdBy',
] as const;
