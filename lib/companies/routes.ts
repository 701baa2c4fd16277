/** The company endpoints (contract §6). */
import * as v from 'valibot';
import type { Route } from '../http/route';
import * as partitions from '../storage/partitions';
import {
  bulkDetailsItemSchema,
  companyContactsSchema,
  companyDetailsSchema,
  getCompanyBulkRequest,
  getCompanyContactsRequest,
  getCompanyRequest,
} from './details-schemas';
import {
  bulkFinancialsItemSchema,
  bulkRelationshipsItemSchema,
  companyFinancialsSchema,
  companyRelationshipsSchema,
  getCompanyFinancialsBulkRequest,
  getCompanyFinancialsRequest,
  getCompanyRelationshipsBulkRequest,
  getCompanyRelationshipsRequest,
} from './schemas';

/*
 * Each route is its own export, so a function's bundle keeps only its route. A schema built here is
 * marked `@__PURE__` so esbuild can drop it with an unused route: esbuild does not apply valibot's
 * `@__NO_SIDE_EFFECTS__` to calls from another module (evanw/esbuild#4369).
 */
// (ext) §6.5: what the record says about a company, and its contacts.
export const getCompany = {
  method: 'GET',
  path: '/v1/companies/{countryCode}/{companyNumber}',
  summary: "A company's details: VAT number, status, legal form, address, website, activities, size",
  scope: 'companies:read',
  storage: { GetItem: [partitions.company] },
  request: getCompanyRequest,
  response: companyDetailsSchema,
} as const satisfies Route;

export const getCompanyBulk = {
  method: 'POST',
  path: '/v1/companies',
  summary: 'Details of up to 100 companies, one result item per requested company',
  scope: 'companies:read',
  storage: { BatchGetItem: [partitions.company] },
  request: getCompanyBulkRequest,
  response: /* @__PURE__ */ v.array(bulkDetailsItemSchema),
} as const satisfies Route;

export const getCompanyContacts = {
  method: 'GET',
  path: '/v1/companies/{countryCode}/{companyNumber}/contacts',
  summary: "A company's contacts, by last name",
  scope: 'companies:read',
  storage: { GetItem: [partitions.company] },
  request: getCompanyContactsRequest,
  response: companyContactsSchema,
} as const satisfies Route;

export const getCompanyFinancials = {
  method: 'GET',
  path: '/v1/companies/{countryCode}/{companyNumber}/financials',
  summary: "A company's annual financial periods, newest first",
  scope: 'companies:read',
  storage: { GetItem: [partitions.company] },
  request: getCompanyFinancialsRequest,
  response: companyFinancialsSchema,
} as const satisfies Route;

export const getCompanyFinancialsBulk = {
  method: 'POST',
  path: '/v1/companies/financials',
  summary: 'Financial periods of up to 100 companies, one result item per requested company',
  scope: 'companies:read',
  storage: { BatchGetItem: [partitions.company] },
  request: getCompanyFinancialsBulkRequest,
  response: /* @__PURE__ */ v.array(bulkFinancialsItemSchema),
} as const satisfies Route;

export const getCompanyRelationships = {
  method: 'GET',
  path: '/v1/companies/{countryCode}/{companyNumber}/relationships',
  summary: "A company's shareholders (parents) and the companies it holds shares in (children)",
  scope: 'companies:read',
  storage: { GetItem: [partitions.company] },
  request: getCompanyRelationshipsRequest,
  response: companyRelationshipsSchema,
} as const satisfies Route;

export const getCompanyRelationshipsBulk = {
  method: 'POST',
  path: '/v1/companies/relationships',
  summary: 'Relationships of up to 100 companies, one result item per requested company',
  scope: 'companies:read',
  storage: { BatchGetItem: [partitions.company] },
  request: getCompanyRelationshipsBulkRequest,
  response: /* @__PURE__ */ v.array(bulkRelationshipsItemSchema),
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const companyRoutes = {
  getCompany,
  getCompanyBulk,
  getCompanyContacts,
  getCompanyFinancials,
  getCompanyFinancialsBulk,
  getCompanyRelationships,
  getCompanyRelationshipsBulk,
} as const satisfies Record<string, Route>;
