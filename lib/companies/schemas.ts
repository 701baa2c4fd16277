/**
 * Company schemas: the identifier (contract §3), the financial period (§6.1) exactly as stored and
 * served, and the request and answer shapes of the company endpoints. The import (§11) validates
 * records against the same period schema, so what is stored is what is served, key order included
 * (valibot builds its output in the order the entries are declared here).
 */
import * as v from 'valibot';
import { isoDate, jsonObject, paginationBody, paginationQuery, paginationSchema } from '../http/schemas';
import { COUNTRIES } from './identifiers';

// ---- Identifiers ------------------------------------------------------------------------------

/** The path of a single-company endpoint; the number itself is checked by the identifier rules (§3). */
export const companyPathParams = v.object({
  countryCode: v.string(),
  companyNumber: v.string(),
});

/**
 * A field of a bulk entry: any JSON value passes the request (contract §2.2: a bad country or number
 * fails its own item, not the request), so the document says what it should be in words.
 */
const judgedPerItem = (description: string) => v.optional(v.pipe(v.unknown(), v.description(description)));

/** One requested company in a bulk call. The entry must be an object; its fields are judged per item. */
export const bulkCompanyEntry = jsonObject(
  {
    countryCode: judgedPerItem(
      'The country: `BE`, `NL` or `FR`, in any letter case. Anything else (or none) fails this item ' +
        'with `Invalid country code`.',
    ),
    country: judgedPerItem('The same as `countryCode`, which is read first.'),
    companyNumber: judgedPerItem(
      "The company number as a string, in any of the country's input forms (`0403.170.701`, " +
        '`BE0403170701`). One that is not valid (or none) fails this item with `Invalid company number`.',
    ),
  },
  'an object',
);

export const MAX_BULK_COMPANIES = 100;

export const bulkCompanies = v.pipe(
  v.array(bulkCompanyEntry, 'must be an array of companies'),
  v.minLength(1, 'must contain at least 1 company'),
  v.maxLength(MAX_BULK_COMPANIES, `must contain at most ${MAX_BULK_COMPANIES} companies`),
);

export const identifierSchema = v.object({
  country: v.picklist(COUNTRIES),
  companyNumber: v.string(),
  name: v.string(),
  place: v.nullable(v.string()),
});
export type Identifier = v.InferOutput<typeof identifierSchema>;

/** The identifier of a failed bulk item: what was asked, canonical where the number was valid. */
export const failedIdentifierSchema = v.object({
  country: v.unknown(),
  companyNumber: v.unknown(),
});

// ---- Financial periods (§6.1) -----------------------------------------------------------------

/**
 * True when `x` has at most `places` decimals. Exact: a JSON number is parsed to the double closest to
 * its decimal text, and `toFixed` gives back exactly that text when it had no more decimals.
 */
const hasPlaces = (places: number) => (x: number) => Number(x.toFixed(places)) === x;

const finite = () => v.pipe(v.number('must be a number'), v.finite('must be a finite number'));

/** EUR, at most 2 decimals, may be negative; null when the filing does not disclose it. */
const signedAmount = v.nullable(v.pipe(finite(), v.check(hasPlaces(2), 'must have at most 2 decimals')));
/** EUR, at most 2 decimals, ≥ 0; null when undisclosed. */
const amount = v.nullable(
  v.pipe(finite(), v.minValue(0, 'must be ≥ 0'), v.check(hasPlaces(2), 'must have at most 2 decimals')),
);
/** A plain decimal with at most 4 places, ≥ 0 (currentRatio 1.0196). */
const ratio = v.nullable(
  v.pipe(finite(), v.minValue(0, 'must be ≥ 0'), v.check(hasPlaces(4), 'must have at most 4 decimals')),
);
/** A share in 0..1 with at most 4 places. */
const share = v.nullable(
  v.pipe(
    finite(),
    v.minValue(0, 'must be ≥ 0'),
    v.maxValue(1, 'must be ≤ 1'),
    v.check(hasPlaces(4), 'must have at most 4 decimals'),
  ),
);
const count = v.nullable(
  v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(0, 'must be ≥ 0')),
);

/** Every key required (a figure the filing does not disclose is `null`, never absent), in the contract's order. */
export const financialPeriodSchema = v.object({
  startDate: isoDate,
  endDate: isoDate,
  dateReceived: isoDate,
  /** Null when the figures the health model needs are not disclosed (lib/filings/health.ts). */
  healthIndicator: v.nullable(
    v.pipe(
      v.number('must be an integer'),
      v.integer('must be an integer'),
      v.minValue(0, 'must be ≥ 0'),
      v.maxValue(10, 'must be ≤ 10'),
    ),
  ),
  jointCommitteeCodes: v.array(v.string('must be a string'), 'must be an array of strings'),
  profitability: v.object({
    revenue: amount,
    grossMargin: signedAmount,
    ebitda: signedAmount,
    ebit: signedAmount,
    netProfit: signedAmount,
  }),
  liquidity: v.object({
    cash: amount,
    cashFlow: signedAmount,
    netWorkingCapital: signedAmount,
    netWorkingCapitalRequirement: signedAmount,
    currentRatio: ratio,
    quickRatio: ratio,
  }),
  solvency: v.object({
    totalAssets: amount,
    equity: signedAmount,
    capital: amount,
    retainedEarnings: signedAmount,
    debt: amount,
    longTermDebt: amount,
    longTermDebtFinancial: amount,
    longTermDebtAccountsPayable: amount,
    shortTermDebt: amount,
    shortTermDebtFinancial: amount,
    shortTermDebtAccountsPayable: amount,
  }),
  people: v.object({
    employees: count,
    newHires: count,
    employeeMaleRatio: share,
    employeeFemaleRatio: share,
  }),
});
export type FinancialPeriod = v.InferOutput<typeof financialPeriodSchema>;

// ---- Financials endpoints ---------------------------------------------------------------------

export const companyFinancialsSchema = v.object({
  identifier: identifierSchema,
  data: v.array(financialPeriodSchema),
  pagination: paginationSchema,
});
export type CompanyFinancials = v.InferOutput<typeof companyFinancialsSchema>;

export const bulkFinancialsItemSchema = v.union([
  v.object({
    identifier: identifierSchema,
    data: v.array(financialPeriodSchema),
    pagination: paginationSchema,
    message: v.null(),
  }),
  v.object({
    identifier: failedIdentifierSchema,
    data: v.null(),
    pagination: v.null(),
    message: v.string(),
  }),
]);
export type BulkFinancialsItem = v.InferOutput<typeof bulkFinancialsItemSchema>;

export const getCompanyFinancialsRequest = {
  params: companyPathParams,
  query: v.object(paginationQuery),
};

export const getCompanyFinancialsBulkRequest = {
  body: jsonObject({ companies: bulkCompanies, ...paginationBody }),
};

// ---- Relationships (§6.2) ---------------------------------------------------------------------

/** A holding seen from one side: the related company, or `{"identifier": null}` alone when it is not ours. */
export const relationshipSchema = v.union([
  v.object({
    identifier: identifierSchema,
    function: v.picklist(['SHAREHOLDER']),
    percentage: v.number(),
    name: v.string(),
  }),
  v.object({ identifier: v.null() }),
]);
export type Relationship = v.InferOutput<typeof relationshipSchema>;

export const relationshipsSchema = v.object({
  parents: v.array(relationshipSchema),
  children: v.array(relationshipSchema),
});
export type Relationships = v.InferOutput<typeof relationshipsSchema>;

export const companyRelationshipsSchema = v.object({
  identifier: identifierSchema,
  data: relationshipsSchema,
});

export const bulkRelationshipsItemSchema = v.union([
  v.object({ identifier: identifierSchema, data: relationshipsSchema, message: v.null() }),
  v.object({ identifier: failedIdentifierSchema, data: v.null(), message: v.string() }),
]);
export type BulkRelationshipsItem = v.InferOutput<typeof bulkRelationshipsItemSchema>;

export const getCompanyRelationshipsRequest = { params: companyPathParams };

export const getCompanyRelationshipsBulkRequest = {
  body: jsonObject({ companies: bulkCompanies }),
};
