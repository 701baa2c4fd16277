/**
 * Company schemas: the identifier (contract §3), the financial period (§6.1) exactly as stored and
 * served, and the request and answer shapes of the company endpoints. The import (§11) validates
 * records against the same period schema, so what is stored is what is served, key order included
 * (valibot builds its output in the order the entries are declared here).
 */
import * as v from 'valibot';
import {
  isoDate,
  jsonObject,
  limitField,
  offsetField,
  paginationQuery,
  paginationSchema,
} from '../http/schemas';
import { COUNTRIES } from './identifiers';

// ---- Identifiers ------------------------------------------------------------------------------

/** The path of a single-company endpoint; the number itself is checked by the identifier rules (§3). */
export const companyPathParams = /* @__PURE__ */ v.object({
  countryCode: /* @__PURE__ */ v.string(),
  companyNumber: /* @__PURE__ */ v.string(),
});

/**
 * A field of a bulk entry: any JSON value passes the request (contract §2.2: a bad country or number
 * fails its own item, not the request), so the document says what it should be in words.
 */
const judgedPerItem = (description: string) => v.optional(v.pipe(v.unknown(), v.description(description)));

/** One requested company in a bulk call. The entry must be an object; its fields are judged per item. */
export const bulkCompanyEntry = /* @__PURE__ */ jsonObject(
  {
    countryCode: /* @__PURE__ */ judgedPerItem(
      'The country: `BE`, `NL` or `FR`, in any letter case. Anything else (or none) fails this item ' +
        'with `Invalid country code`.',
    ),
    country: /* @__PURE__ */ judgedPerItem('The same as `countryCode`, which is read first.'),
    companyNumber: /* @__PURE__ */ judgedPerItem(
      "The company number as a string, in any of the country's input forms (`0403.170.701`, " +
        '`BE0403170701`). One that is not valid (or none) fails this item with `Invalid company number`.',
    ),
  },
  'an object',
);

export const MAX_BULK_COMPANIES = 100;
const TOO_MANY_COMPANIES = `must contain at most ${MAX_BULK_COMPANIES} companies`;

export const bulkCompanies = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.array(bulkCompanyEntry, 'must be an array of companies'),
  /* @__PURE__ */ v.minLength(1, 'must contain at least 1 company'),
  /* @__PURE__ */ v.maxLength(MAX_BULK_COMPANIES, TOO_MANY_COMPANIES),
);

export const identifierSchema = /* @__PURE__ */ v.object({
  country: /* @__PURE__ */ v.picklist(COUNTRIES),
  companyNumber: /* @__PURE__ */ v.string(),
  name: /* @__PURE__ */ v.string(),
  place: /* @__PURE__ */ v.nullable(/* @__PURE__ */ v.string()),
});
export type Identifier = v.InferOutput<typeof identifierSchema>;

/** The identifier of a failed bulk item: what was asked, canonical where the number was valid. */
export const failedIdentifierSchema = /* @__PURE__ */ v.object({
  country: /* @__PURE__ */ v.unknown(),
  companyNumber: /* @__PURE__ */ v.unknown(),
});

// ---- Financial periods (§6.1) -----------------------------------------------------------------

/**
 * True when `x` has at most `places` decimals. Exact: a JSON number is parsed to the double closest to
 * its decimal text, and `toFixed` gives back exactly that text when it had no more decimals.
 */
const hasPlaces = (places: number) => (x: number) => Number(x.toFixed(places)) === x;

const finite = () => v.pipe(v.number('must be a number'), v.finite('must be a finite number'));

/** EUR, at most 2 decimals, may be negative; null when the filing does not disclose it. */
const signedAmount = /* @__PURE__ */ v.nullable(
  /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ finite(),
    /* @__PURE__ */ v.check(/* @__PURE__ */ hasPlaces(2), 'must have at most 2 decimals'),
  ),
);
/** EUR, at most 2 decimals, ≥ 0; null when undisclosed. */
const amount = /* @__PURE__ */ v.nullable(
  /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ finite(),
    /* @__PURE__ */ v.minValue(0, 'must be ≥ 0'),
    /* @__PURE__ */ v.check(/* @__PURE__ */ hasPlaces(2), 'must have at most 2 decimals'),
  ),
);
/** A plain decimal with at most 4 places, ≥ 0 (currentRatio 1.0196). */
const ratio = /* @__PURE__ */ v.nullable(
  /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ finite(),
    /* @__PURE__ */ v.minValue(0, 'must be ≥ 0'),
    /* @__PURE__ */ v.check(/* @__PURE__ */ hasPlaces(4), 'must have at most 4 decimals'),
  ),
);
/** A share in 0..1 with at most 4 places. */
const share = /* @__PURE__ */ v.nullable(
  /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ finite(),
    /* @__PURE__ */ v.minValue(0, 'must be ≥ 0'),
    /* @__PURE__ */ v.maxValue(1, 'must be ≤ 1'),
    /* @__PURE__ */ v.check(/* @__PURE__ */ hasPlaces(4), 'must have at most 4 decimals'),
  ),
);
/** A head count, as a period states it (the details' `employees` too). */
export const headCount = /* @__PURE__ */ v.nullable(
  /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.number('must be a number'),
    /* @__PURE__ */ v.integer('must be an integer'),
    /* @__PURE__ */ v.minValue(0, 'must be ≥ 0'),
  ),
);

/** Null when the figures the health model needs are not disclosed (lib/filings/health.ts). */
export const healthIndicatorSchema = /* @__PURE__ */ v.nullable(
  /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.number('must be an integer'),
    /* @__PURE__ */ v.integer('must be an integer'),
    /* @__PURE__ */ v.minValue(0, 'must be ≥ 0'),
    /* @__PURE__ */ v.maxValue(10, 'must be ≤ 10'),
  ),
);

/** Every key required (a figure the filing does not disclose is `null`, never absent), in the contract's order. */
export const financialPeriodSchema = /* @__PURE__ */ v.object({
  startDate: isoDate,
  endDate: isoDate,
  dateReceived: isoDate,
  healthIndicator: healthIndicatorSchema,
  jointCommitteeCodes: /* @__PURE__ */ v.array(
    /* @__PURE__ */ v.string('must be a string'),
    'must be an array of strings',
  ),
  profitability: /* @__PURE__ */ v.object({
    revenue: amount,
    grossMargin: signedAmount,
    ebitda: signedAmount,
    ebit: signedAmount,
    netProfit: signedAmount,
  }),
  liquidity: /* @__PURE__ */ v.object({
    cash: amount,
    cashFlow: signedAmount,
    netWorkingCapital: signedAmount,
    netWorkingCapitalRequirement: signedAmount,
    currentRatio: ratio,
    quickRatio: ratio,
  }),
  solvency: /* @__PURE__ */ v.object({
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
  people: /* @__PURE__ */ v.object({
    employees: headCount,
    newHires: headCount,
    employeeMaleRatio: share,
    employeeFemaleRatio: share,
  }),
});
export type FinancialPeriod = v.InferOutput<typeof financialPeriodSchema>;

// ---- Financials endpoints ---------------------------------------------------------------------

export const companyFinancialsSchema = /* @__PURE__ */ v.object({
  identifier: identifierSchema,
  data: /* @__PURE__ */ v.array(financialPeriodSchema),
  pagination: paginationSchema,
});
export type CompanyFinancials = v.InferOutput<typeof companyFinancialsSchema>;

export const bulkFinancialsItemSchema = /* @__PURE__ */ v.union([
  /* @__PURE__ */ v.object({
    identifier: identifierSchema,
    data: /* @__PURE__ */ v.array(financialPeriodSchema),
    pagination: paginationSchema,
    message: /* @__PURE__ */ v.null(),
  }),
  /* @__PURE__ */ v.object({
    identifier: failedIdentifierSchema,
    data: /* @__PURE__ */ v.null(),
    pagination: /* @__PURE__ */ v.null(),
    message: /* @__PURE__ */ v.string(),
  }),
]);
export type BulkFinancialsItem = v.InferOutput<typeof bulkFinancialsItemSchema>;

export const getCompanyFinancialsRequest = {
  params: companyPathParams,
  query: /* @__PURE__ */ v.object(paginationQuery),
};

export const getCompanyFinancialsBulkRequest = {
  body: /* @__PURE__ */ jsonObject({ companies: bulkCompanies, limit: limitField, offset: offsetField }),
};

// ---- Relationships (§6.2) ---------------------------------------------------------------------

/** A holding seen from one side: the related company, or `{"identifier": null}` alone when it is not ours. */
export const relationshipSchema = /* @__PURE__ */ v.union([
  /* @__PURE__ */ v.object({
    identifier: identifierSchema,
    function: /* @__PURE__ */ v.picklist(['SHAREHOLDER']),
    percentage: /* @__PURE__ */ v.number(),
    name: /* @__PURE__ */ v.string(),
  }),
  /* @__PURE__ */ v.object({ identifier: /* @__PURE__ */ v.null() }),
]);
export type Relationship = v.InferOutput<typeof relationshipSchema>;

export const relationshipsSchema = /* @__PURE__ */ v.object({
  parents: /* @__PURE__ */ v.array(relationshipSchema),
  children: /* @__PURE__ */ v.array(relationshipSchema),
});
export type Relationships = v.InferOutput<typeof relationshipsSchema>;

export const companyRelationshipsSchema = /* @__PURE__ */ v.object({
  identifier: identifierSchema,
  data: relationshipsSchema,
});

export const bulkRelationshipsItemSchema = /* @__PURE__ */ v.union([
  /* @__PURE__ */ v.object({
    identifier: identifierSchema,
    data: relationshipsSchema,
    message: /* @__PURE__ */ v.null(),
  }),
  /* @__PURE__ */ v.object({
    identifier: failedIdentifierSchema,
    data: /* @__PURE__ */ v.null(),
    message: /* @__PURE__ */ v.string(),
  }),
]);
export type BulkRelationshipsItem = v.InferOutput<typeof bulkRelationshipsItemSchema>;

export const getCompanyRelationshipsRequest = { params: companyPathParams };

export const getCompanyRelationshipsBulkRequest = {
  body: /* @__PURE__ */ jsonObject({ companies: bulkCompanies }),
};
