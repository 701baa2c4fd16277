/** Financial periods (contract §6.1): the stored shape, the answer shapes and the request bodies. */
import * as v from 'valibot';
import {
  bulkCompanies,
  companyPathParams,
  failedIdentifierSchema,
  identifierSchema,
  jsonObject,
  paginationBody,
  paginationQuery,
  paginationSchema,
} from './common';

const isoDate = v.pipe(v.string(), v.isoDate());
/** EUR, at most 2 decimals; null when the filing does not disclose it. */
const amount = v.nullable(v.number());
/** A plain decimal (currentRatio 1.2345). */
const ratio = v.nullable(v.number());

export const financialPeriodSchema = v.object({
  startDate: isoDate,
  endDate: isoDate,
  dateReceived: v.nullable(isoDate),
  profitability: v.object({
    revenue: amount,
    grossMargin: amount,
    ebitda: amount,
    operatingProfit: amount,
    netProfit: amount,
  }),
  liquidity: v.object({
    currentAssets: amount,
    inventory: amount,
    cash: amount,
    currentLiabilities: amount,
    currentRatio: ratio,
    quickRatio: ratio,
  }),
  solvency: v.object({
    totalAssets: amount,
    equity: amount,
    debt: amount,
  }),
  people: v.object({
    employees: v.nullable(v.number()),
    personnelCosts: amount,
    employeeCostRatio: ratio,
    employeeGrowthRatio: ratio,
  }),
  healthIndicator: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10))),
  jointCommitteeCodes: v.array(v.string()),
});
export type FinancialPeriod = v.InferOutput<typeof financialPeriodSchema>;

export const companyFinancialsSchema = v.object({
  identifier: identifierSchema,
  data: v.array(financialPeriodSchema),
  pagination: paginationSchema,
});

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
