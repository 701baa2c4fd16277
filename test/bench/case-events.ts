/**
 * The events the bench cases (cases.ts) are built of: requests to a route as API Gateway hands them
 * over, from the bench data (`BenchData`: the demo companies, lists and tokens on a fresh table).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { routes, type RouteId } from '../../lib/routes';
import type { Country } from '../../lib/companies/identifiers';
import { legalEntityIdCandidate, stageIdScheme } from '../../lib/legal-entities/ids';
import { SCOPES } from '../../lib/tokens/scopes';
import { proxyEvent, type EventSpec } from '../support/events';
import { generateDemoData } from '../fixtures/demo-data/companies';
import { BULK_SIZE, type BenchData } from './bench-case';

/** Alice, every scope: the caller of the API events unless a case says otherwise. */
export const benchCaller = { accountId: 'acme', userEmail: 'alice@acme.example', scopes: [...SCOPES] };

/** A request to a route, as API Gateway hands it over (caller: Alice, unless the spec says otherwise). */
export const request = (id: RouteId, spec: Omit<EventSpec, 'method' | 'resource'> = {}) =>
  proxyEvent({ method: routes[id].method, resource: routes[id].path, ...spec });

/** The match case's events: three sets of 100 demo names with their places. */
export function matchEvents(): APIGatewayProxyEvent[] {
  const entries = generateDemoData({ companies: 3 * BULK_SIZE }).map(({ name, place }) => ({ name, place }));
  return [0, 1, 2].map((set) =>
    request('matchCompanies', { body: { companies: entries.slice(set * BULK_SIZE, (set + 1) * BULK_SIZE) } }),
  );
}

/** What the search case asks: a demo name's first word and the start of its second, as a user types them. */
export const searchQueries = () =>
  generateDemoData({ companies: 50 }).map(({ name }) => {
    const [first = '', second = ''] = name.split(' ');
    return `${first} ${second.slice(0, 2)}`.trim();
  });

/** A GET per company in the path, over the first 50 companies. */
export const singleGets = (id: RouteId, companies: BenchData['companies']) =>
  companies.slice(0, 50).map((pathParameters) => request(id, { pathParameters }));

/** Three calls of `BULK_SIZE` distinct companies each, disjoint sets. */
export const bulkSets = (companies: BenchData['companies']) => {
  const sets = [0, 1, 2].map((set) => companies.slice(set * BULK_SIZE, (set + 1) * BULK_SIZE));
  if (sets.some((set) => set.length < BULK_SIZE)) throw new Error(`need ${3 * BULK_SIZE} demo companies`);
  return sets;
};
export const bulkPosts = (
  id: RouteId,
  companies: BenchData['companies'],
  extra: Record<string, unknown> = {},
) => bulkSets(companies).map((set) => request(id, { body: { companies: set, ...extra } }));

/** A demo company's legal entity id, as the import assigned it (its first candidate). */
export const legalEntityIdOf = (c: BenchData['companies'][number]) =>
  legalEntityIdCandidate(
    { country: c.countryCode as Country, companyNumber: c.companyNumber },
    0,
    stageIdScheme(),
  );

/** For functions whose events name no company: the single-company floor's own events. */
export const companyFloorEvents = ({ companies }: BenchData) => singleGets('getCompanyFinancials', companies);
