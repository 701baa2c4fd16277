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

export const companyRoutes = {
  // (ext) §6.5: what the record says about a company, and its contacts.
  getCompany: {
    method: 'GET',
    path: '/v1/companies/{countryCode}/{companyNumber}',
    summary: "A company's details: VAT number, status, legal form, address, website, activities, size",
    scope: 'companies:read',
    storage: { GetItem: [partitions.company] },
    request: getCompanyRequest,
    response: companyDetailsSchema,
  },
  getCompanyBulk: {
    method: 'POST',
    path: '/v1/companies',
    summary: 'Details of up to 100 companies, one result item per requested company',
    scope: 'companies:read',
    storage: { BatchGetItem: [partitions.company] },
    request: getCompanyBulkRequest,
    response: v.array(bulkDetailsItemSchema),
  },
  getCompanyContacts: {
    method: 'GET',
    path: '/v1/companies/{countryCode}/{companyNumber}/contacts',
    summary: "A company's contacts, by last name",
    scope: 'companies:read',
    storage: { GetItem: [partitions.company] },
    request: getCompanyContactsRequest,
    response: companyContactsSchema,
  },
  getCompanyFinancials: {
    method: 'GET',
    path: '/v1/companies/{countryCode}/{companyNumber}/financials',
    summary: "A company's annual financial periods, newest first",
    scope: 'companies:read',
    storage: { GetItem: [partitions.company] },
    request: getCompanyFinancialsRequest,
    response: companyFinancialsSchema,
  },
  getCompanyFinancialsBulk: {
    method: 'POST',
    path: '/v1/companies/financials',
    summary: 'Financial periods of up to 100 companies, one result item per requested company',
    scope: 'companies:read',
    storage: { BatchGetItem: [partitions.company] },
    request: getCompanyFinancialsBulkRequest,
    response: v.array(bulkFinancialsItemSchema),
  },
  getCompanyRelationships: {
    method: 'GET',
    path: '/v1/companies/{countryCode}/{companyNumber}/relationships',
    summary: "A company's shareholders (parents) and the companies it holds shares in (children)",
    scope: 'companies:read',
    storage: { GetItem: [partitions.company] },
    request: getCompanyRelationshipsRequest,
    response: companyRelationshipsSchema,
  },
  getCompanyRelationshipsBulk: {
    method: 'POST',
    path: '/v1/companies/relationships',
    summary: 'Relationships of up to 100 companies, one result item per requested company',
    scope: 'companies:read',
    storage: { BatchGetItem: [partitions.company] },
    request: getCompanyRelationshipsBulkRequest,
    response: v.array(bulkRelationshipsItemSchema),
  },
} as const satisfies Record<string, Route>;
