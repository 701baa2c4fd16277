/**
 * (ext) The shapes of company details and company contacts (contract §6.5), in the contract's key order
 * (valibot builds its output in the order the entries are declared here).
 */
import * as v from 'valibot';
import { integerQuery, jsonObject, PAGE, paginationSchema } from '../http/schemas';
import {
  bulkCompanies,
  companyPathParams,
  failedIdentifierSchema,
  financialPeriodSchema,
  identifierSchema,
} from './schemas';

const text = v.nullable(v.string());
/** A count: an integer, 0 or more. */
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const COMPANY_STATUSES = ['ACTIVE', 'INACTIVE'] as const;

export const companyDetailsDataSchema = v.object({
  vatNumber: text,
  status: v.picklist(COMPANY_STATUSES),
  establishedSince: text,
  stoppedSince: text,
  companyTypeCode: text,
  name: v.string(),
  address: v.object({
    // The company's country, or for a seat abroad that country's ISO 3166 code (§11.5.1).
    country: v.pipe(v.string(), v.regex(/^[A-Z]{2}$/)),
    street: text,
    number: text,
    box: text,
    postalCode: text,
    place: text,
  }),
  website: v.array(v.string()),
  activities: v.array(v.string()),
  // The newest period's, as the period states them.
  employees: financialPeriodSchema.entries.people.entries.employees,
  healthIndicator: v.nullable(financialPeriodSchema.entries.healthIndicator),
  contacts: count,
  // (ext) Abbreviations, trade names, the name in other languages: `[]` when none.
  otherNames: v.array(v.string()),
});
export type CompanyDetailsData = v.InferOutput<typeof companyDetailsDataSchema>;

export const companyDetailsSchema = v.object({
  identifier: identifierSchema,
  data: companyDetailsDataSchema,
});
export type CompanyDetails = v.InferOutput<typeof companyDetailsSchema>;

export const bulkDetailsItemSchema = v.union([
  v.object({ identifier: identifierSchema, data: companyDetailsDataSchema, message: v.null() }),
  v.object({ identifier: failedIdentifierSchema, data: v.null(), message: v.string() }),
]);
export type BulkDetailsItem = v.InferOutput<typeof bulkDetailsItemSchema>;

export const getCompanyRequest = { params: companyPathParams };
export const getCompanyBulkRequest = { body: jsonObject({ companies: bulkCompanies }) };

/** §6.5: a company's contacts page by 10 unless asked otherwise; the bounds are §1.1's. */
export const CONTACTS_DEFAULT_LIMIT = 10;

export const getCompanyContactsRequest = {
  params: companyPathParams,
  query: v.object({
    limit: integerQuery(PAGE.limit.min, PAGE.limit.max, CONTACTS_DEFAULT_LIMIT),
    offset: integerQuery(PAGE.offset.min, PAGE.offset.max, PAGE.offset.default),
  }),
};

export const companyContactSchema = v.object({
  jobTitle: text,
  identifier: v.object({
    contactId: v.pipe(v.number(), v.integer()),
    firstName: v.string(),
    lastName: v.string(),
  }),
});

export const companyContactsSchema = v.object({
  identifier: identifierSchema,
  data: v.array(companyContactSchema),
  pagination: paginationSchema,
});
export type CompanyContacts = v.InferOutput<typeof companyContactsSchema>;
