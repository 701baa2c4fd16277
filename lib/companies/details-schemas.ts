/**
 * (ext) The shapes of company details and company contacts (contract §6.5), in the contract's key order
 * (valibot builds its output in the order the entries are declared here).
 */
import * as v from 'valibot';
import { integerQuery, jsonObject, offsetQuery, PAGE_LIMIT, paginationSchema } from '../http/schemas';
import {
  bulkCompanies,
  companyPathParams,
  failedIdentifierSchema,
  headCount,
  healthIndicatorSchema,
  identifierSchema,
} from './schemas';

const text = /* @__PURE__ */ v.nullable(/* @__PURE__ */ v.string());
/** A count: an integer, 0 or more. */
const count = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.number(),
  /* @__PURE__ */ v.integer(),
  /* @__PURE__ */ v.minValue(0),
);

export const COMPANY_STATUSES = ['ACTIVE', 'INACTIVE'] as const;

export const companyDetailsDataSchema = /* @__PURE__ */ v.object({
  vatNumber: text,
  status: /* @__PURE__ */ v.picklist(COMPANY_STATUSES),
  establishedSince: text,
  stoppedSince: text,
  companyTypeCode: text,
  name: /* @__PURE__ */ v.string(),
  address: /* @__PURE__ */ v.object({
    // The company's country, or for a seat abroad that country's ISO 3166 code (§11.5.1).
    country: /* @__PURE__ */ v.pipe(/* @__PURE__ */ v.string(), /* @__PURE__ */ v.regex(/^[A-Z]{2}$/)),
    street: text,
    number: text,
    box: text,
    postalCode: text,
    place: text,
  }),
  website: /* @__PURE__ */ v.array(/* @__PURE__ */ v.string()),
  activities: /* @__PURE__ */ v.array(/* @__PURE__ */ v.string()),
  // The newest period's, as the period states them.
  employees: headCount,
  healthIndicator: /* @__PURE__ */ v.nullable(healthIndicatorSchema),
  contacts: count,
  // (ext) Abbreviations, trade names, the name in other languages: `[]` when none.
  otherNames: /* @__PURE__ */ v.array(/* @__PURE__ */ v.string()),
});
export type CompanyDetailsData = v.InferOutput<typeof companyDetailsDataSchema>;

export const companyDetailsSchema = /* @__PURE__ */ v.object({
  identifier: identifierSchema,
  data: companyDetailsDataSchema,
});
export type CompanyDetails = v.InferOutput<typeof companyDetailsSchema>;

export const bulkDetailsItemSchema = /* @__PURE__ */ v.union([
  /* @__PURE__ */ v.object({
    identifier: identifierSchema,
    data: companyDetailsDataSchema,
    message: /* @__PURE__ */ v.null(),
  }),
  /* @__PURE__ */ v.object({
    identifier: failedIdentifierSchema,
    data: /* @__PURE__ */ v.null(),
    message: /* @__PURE__ */ v.string(),
  }),
]);
export type BulkDetailsItem = v.InferOutput<typeof bulkDetailsItemSchema>;

export const getCompanyRequest = { params: companyPathParams };
export const getCompanyBulkRequest = { body: /* @__PURE__ */ jsonObject({ companies: bulkCompanies }) };

/** §6.5: a company's contacts page by 10 unless asked otherwise; the bounds are §1.1's. */
export const CONTACTS_DEFAULT_LIMIT = 10;

export const getCompanyContactsRequest = {
  params: companyPathParams,
  query: /* @__PURE__ */ v.object({
    limit: /* @__PURE__ */ integerQuery(PAGE_LIMIT, CONTACTS_DEFAULT_LIMIT),
    offset: offsetQuery,
  }),
};

export const companyContactSchema = /* @__PURE__ */ v.object({
  jobTitle: text,
  identifier: /* @__PURE__ */ v.object({
    contactId: /* @__PURE__ */ v.pipe(/* @__PURE__ */ v.number(), /* @__PURE__ */ v.integer()),
    firstName: /* @__PURE__ */ v.string(),
    lastName: /* @__PURE__ */ v.string(),
  }),
});

export const companyContactsSchema = /* @__PURE__ */ v.object({
  identifier: identifierSchema,
  data: /* @__PURE__ */ v.array(companyContactSchema),
  pagination: paginationSchema,
});
export type CompanyContacts = v.InferOutput<typeof companyContactsSchema>;
