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

/**
 * The other objects of the contract, each with its keys in the contract's order (§ in the name's
 * comment). test/e2e/contract-audit-shapes.test.ts holds the OpenAPI document (made from the route
 * table's schemas, which every answer is checked against) to these lists, so a schema that renames,
 * adds, drops or reorders a field fails there, by the contract's own words.
 */
export const SHAPE_KEYS = {
  /** §3 */
  identifier: ['country', 'companyNumber', 'name', 'place'],
  /** §3: a failed bulk item's identifier */
  failedIdentifier: ['country', 'companyNumber'],
  /** §1.1 */
  pagination: ['limit', 'offset', 'total'],
  /** §2.1 */
  error: ['message', 'code', 'requestId', 'details'],
  errorDetail: ['path', 'message'],
  /** §6.1 */
  companyFinancials: ['identifier', 'data', 'pagination'],
  bulkFinancialsItem: ['identifier', 'data', 'pagination', 'message'],
  /** §6.2 */
  companyRelationships: ['identifier', 'data'],
  relationships: ['parents', 'children'],
  relationship: ['identifier', 'function', 'percentage', 'name'],
  bulkItem: ['identifier', 'data', 'message'],
  /** §6.3 */
  lookalike: ['companyId', 'score'],
  companyId: ['country', 'companyNumber'],
  /** §6.4 */
  legalEntity: ['legalEntityId', 'countryCode', 'name', 'isPrimary'],
  /** §6.5 */
  companyDetails: [
    'vatNumber',
    'status',
    'establishedSince',
    'stoppedSince',
    'companyTypeCode',
    'name',
    'address',
    'website',
    'activities',
    'employees',
    'healthIndicator',
    'contacts',
    'otherNames',
  ],
  address: ['country', 'street', 'number', 'box', 'postalCode', 'place'],
  companyContact: ['jobTitle', 'identifier'],
  contactIdentifier: ['contactId', 'firstName', 'lastName'],
  matchItem: ['parameters', 'data', 'message'],
  matchCandidate: ['identifier', 'confidence', 'matchedOn'],
  /** §7.3 */
  listCompany: ['identifier', 'matchedSince'],
  /** §7.4 */
  listContact: ['jobTitle', 'identifier', 'company'],
  /** §7.5 */
  addResult: ['success', 'message', 'failed'],
  failedEntry: ['parameters', 'message'],
  /** §7.6 */
  moveResult: ['updated', 'failed'],
  /** §8.1 */
  legalEntityUpdates: ['identifier', 'data', 'pagination'],
  bulkUpdatesItem: ['identifier', 'data', 'pagination', 'message'],
  updates: ['updates'],
  update: ['id', 'type', 'title', 'time', 'sourceUrl', 'sourceType', 'status'],
  /** §10 */
  health: ['status'],
  /** §12 */
  eventsPage: ['data', 'next'],
  event: ['id', 'type', 'createdAt', 'data'],
  eventData: ['company', 'legalEntityId', 'lists', 'update'],
  webhook: ['id', 'url', 'description', 'enabled', 'createdAt'],
  createdWebhook: ['id', 'url', 'description', 'enabled', 'createdAt', 'secret'],
  secret: ['secret'],
  delivery: ['eventId', 'attempt', 'at', 'status', 'responseStatus', 'durationMs', 'nextAttemptAt'],
  /** §13 */
  usage: ['plan', 'today'],
  plan: ['rate', 'burst', 'dailyQuota'],
  today: ['requests', 'remaining'],
} as const satisfies Record<string, readonly string[]>;
