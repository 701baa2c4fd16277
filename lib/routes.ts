/**
 * The route table: the one list of endpoints. The CDK stack (routes, functions, grants), the local
 * gateway (routing, 404/405, auth), each handler (scope check, validation) and the OpenAPI document
 * all read it. Adding an endpoint = one row here plus its file in functions/.
 *
 * Pure data: importing it pulls in no AWS library, so handlers can import it cheaply.
 */
import type { GenericSchema } from 'valibot';
import * as v from 'valibot';
import type { Scope } from '../lib/tokens/scopes';
import { healthSchema } from '../lib/schemas/health';
import {
  bulkFinancialsItemSchema,
  companyFinancialsSchema,
  getCompanyFinancialsBulkRequest,
  getCompanyFinancialsRequest,
} from '../lib/schemas/financials';

/** Schemas of the request parts, each an object schema (lib/schemas). */
export interface RequestSchemas {
  params?: GenericSchema;
  query?: GenericSchema;
  body?: GenericSchema;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** API Gateway path template, `{name}` for a path parameter. */
  path: string;
  /** The handler file, relative to the project root; it exports `handler`. */
  entry: string;
  summary: string;
  /** The scope the caller's token needs; `null` = public (no token). */
  scope: Scope | null;
  /** The table access the function gets: least privilege is the default. */
  table: 'none' | 'read' | 'write';
  request: RequestSchemas;
  /** The success body (status 200). */
  response: GenericSchema;
}

export const routes = {
  getHealth: {
    method: 'GET',
    path: '/v1/health',
    entry: 'functions/get-health.ts',
    summary: 'Liveness',
    scope: null,
    table: 'none',
    request: {},
    response: healthSchema,
  },
  getCompanyFinancials: {
    method: 'GET',
    path: '/v1/companies/{countryCode}/{companyNumber}/financials',
    entry: 'functions/get-company-financials.ts',
    summary: "A company's annual financial periods, newest first",
    scope: 'companies:read',
    table: 'read',
    request: getCompanyFinancialsRequest,
    response: companyFinancialsSchema,
  },
  getCompanyFinancialsBulk: {
    method: 'POST',
    path: '/v1/companies/financials',
    entry: 'functions/get-company-financials-bulk.ts',
    summary: 'Financial periods of up to 100 companies, one result item per requested company',
    scope: 'companies:read',
    table: 'read',
    request: getCompanyFinancialsBulkRequest,
    response: v.array(bulkFinancialsItemSchema),
  },
} as const satisfies Record<string, Route>;

export type RouteId = keyof typeof routes;

/** The authorizer is not a route: the gateway runs it before every route whose `scope` is set. */
export const authorizer = { entry: 'functions/authorize.ts', table: 'read', cacheTtlSeconds: 300 } as const;
