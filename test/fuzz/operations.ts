/**
 * What the fuzzer works from: the operations of the published document (every route, so a route merged
 * tomorrow is fuzzed with no change here) and what it knows of the stage it fuzzes.
 */
import type { Country } from '../../lib/companies/identifiers';
import {
  FULL_ID_SPACE,
  legalEntityIdCandidate,
  LOCAL_LEGAL_ENTITY_SECRET,
} from '../../lib/legal-entities/ids';
import type { OpenApiDocument } from '../../infra/openapi/document';

export type Schema = Record<string, unknown>;

export interface Operation {
  routeId: string;
  method: string;
  /** The path template, `{name}` per parameter. */
  path: string;
  pathParameters: Array<{ name: string; schema: Schema }>;
  queryParameters: Array<{ name: string; schema: Schema }>;
  body: Schema | null;
  public: boolean;
}

/** A company of the stage; what else is known of it makes realistic searches and match entries. */
export interface FuzzCompany {
  country: string;
  companyNumber: string;
  name?: string;
  vatNumber?: string | null;
  website?: string | null;
  place?: string | null;
}

/** What the fuzzer takes of a company record (a demo record has all of it). */
export const fuzzCompany = (r: FuzzCompany): FuzzCompany => ({
  country: r.country,
  companyNumber: r.companyNumber,
  name: r.name,
  vatNumber: r.vatNumber,
  website: r.website,
  place: r.place,
});

/** What the generator may use of the stage it fuzzes: known companies, lists, tokens. */
export interface FuzzContext {
  companies: FuzzCompany[];
  listIds: string[];
  /** Webhook endpoints of the token's account (the path `id` of /v1/webhooks/{id} is drawn from both). */
  webhookIds?: string[];
  /** The legal entity ids of `companies` (their own entities). */
  legalEntityIds: string[];
  /** A token with every scope; the others are tokens with fewer scopes (403s). */
  token: string;
  otherTokens: string[];
}

/**
 * The own legal entity ids of companies on the local stage (the first candidate of the local stage's
 * key: among a few dozen companies no two collide).
 */
export function legalEntityIdsOf(companies: Array<{ country: string; companyNumber: string }>): string[] {
  const scheme = { secret: LOCAL_LEGAL_ENTITY_SECRET, space: FULL_ID_SPACE };
  return companies.map((c) =>
    legalEntityIdCandidate({ country: c.country as Country, companyNumber: c.companyNumber }, 0, scheme),
  );
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = (operation.parameters ?? []) as Array<{ name: string; in: string; schema: Schema }>;
      const content = (operation.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)
        ?.content;
      operations.push({
        routeId: operation.operationId as string,
        method: method.toUpperCase(),
        path,
        pathParameters: parameters.filter((p) => p.in === 'path'),
        queryParameters: parameters.filter((p) => p.in === 'query'),
        body: content?.['application/json']?.schema ?? null,
        public: Array.isArray(operation.security) && operation.security.length === 0,
      });
    }
  }
  return operations;
}
