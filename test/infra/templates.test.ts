/**
 * Room to grow: a stage is its stack and nested stacks (infra/stack.ts), none over 300 resources (60 %
 * of CloudFormation's 500 a template), and a route adds a known number of resources to known templates.
 * Routes are added here to a copy of the route table, reusing existing handlers (an entry must exist).
 */
import { App, cx_api as cxapi } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { Route } from '../../lib/http/route';
import { routes, routesByDomain, workers } from '../../lib/routes';
import { ROUTE_RESOURCES } from '../../infra/route-functions';
import { CompanyDataStack, type RouteTable } from '../../infra/stack';
import { stageTemplates } from './stage-template';

/** The most resources a template of the stage may hold: 60 % of CloudFormation's 500. */
const TEMPLATE_CEILING = 300;
/** Routes the stage must have room for beyond today's. */
const HEADROOM_ROUTES = 20;

/** Every template holds CDK's metadata resource (the construct library's version, as `cdk` reports it). */
const METADATA = 1;
/**
 * The stage's own template besides what the route table adds to it: the table, the secret, the key,
 * the queues, the bucket, the topic, the REST API with its stage, deployment, gateway responses, usage
 * plans, web ACL and stage alarms (with the contact pages per account: a metric filter, a Contributor
 * Insights rule and its alarm), the authorizer and its function, and the workers' nested stack.
 */
const STAGE_OWN_RESOURCES = 67 + METADATA;
/** The workers' template: ten functions and their alarms, three schedules, the import's state machines. */
const WORKERS_RESOURCES = 74 + METADATA;

const STAGE = 'CompanyData-dev';

function synth(routeTable: RouteTable = routesByDomain): Map<string, Template> {
  // Version reporting on, as `cdk synth` and `cdk deploy` have it: its metadata resource counts too.
  const app = new App({
    context: { 'aws:cdk:bundling-stacks': [], [cxapi.ANALYTICS_REPORTING_ENABLED_CONTEXT]: true },
  });
  return stageTemplates(new CompanyDataStack(app, STAGE, { stage: 'dev', routeTable }));
}

function counts(routeTable: RouteTable = routesByDomain, templates = synth(routeTable)): Map<string, number> {
  return new Map(
    [...templates].map(([path, template]) => [
      path,
      Object.keys(template.toJSON().Resources as object).length,
    ]),
  );
}

/** The path of a domain's nested stack: `legal-entities` → `CompanyData-dev/LegalEntitiesRoutes`. */
function domainStack(domain: string): string {
  return `${STAGE}/${domain.replace(/(^|-)([a-z])/g, (_, __: string, c: string) => c.toUpperCase())}Routes`;
}

/** Every distinct prefix of the routes' paths: an API Gateway resource each (`/v1`, `/v1/lists`, …). */
function pathResources(table: RouteTable): number {
  const prefixes = new Set<string>();
  for (const route of allRoutes(table)) {
    const segments = route.path.split('/').slice(1);
    segments.forEach((_, i) => prefixes.add(segments.slice(0, i + 1).join('/')));
  }
  return prefixes.size;
}

function allRoutes(table: RouteTable): Route[] {
  return Object.values(table as Record<string, Record<string, Route>>).flatMap((d) => Object.values(d));
}

/** What each template should hold for a route table. */
function expectedCounts(table: RouteTable): Map<string, number> {
  const domains = Object.entries(table as Record<string, Record<string, Route>>);
  const list = allRoutes(table);
  const stage =
    STAGE_OWN_RESOURCES +
    list.length + // a method per route
    new Set(list.map((r) => r.path)).size + // a 405 answer per path
    pathResources(table) +
    domains.length; // a nested stack per domain
  return new Map([
    [STAGE, stage],
    ...domains.map(([domain, domainRoutes]): [string, number] => [
      domainStack(domain),
      METADATA + ROUTE_RESOURCES * Object.keys(domainRoutes).length,
    ]),
    [`${STAGE}/Workers`, WORKERS_RESOURCES],
  ]);
}

/** Routes with ids of existing handlers (outside `lists`), at new paths under `/v1/lists/{id}/`. */
function extraRoutes(count: number, depth: 1 | 2): Record<string, Route> {
  const ids = Object.keys(routes).filter((id) => !(id in routesByDomain.lists));
  expect(ids.length).toBeGreaterThanOrEqual(count);
  return Object.fromEntries(
    ids.slice(0, count).map((id, i) => [
      id,
      {
        ...routesByDomain.lists.getList,
        path: `/v1/lists/{id}/extra${i}${depth === 2 ? '/{item}' : ''}`,
      },
    ]),
  );
}

function withLists(extra: Record<string, Route>): RouteTable {
  return { ...routesByDomain, lists: { ...routesByDomain.lists, ...extra } };
}

function growth(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  return Object.fromEntries(
    [...after]
      .map(([path, count]) => [path, count - (before.get(path) ?? 0)] as const)
      .filter(([, grown]) => grown !== 0),
  );
}

/**
 * What a deployed stage keeps in its own template under the same logical ids, so an update neither
 * replaces its data (the table, the legal entity id key, the webhook key, the queues, the bucket) nor its
 * REST API, stage and authorizer (the URL), nor the topic its alarms are subscribed at.
 */
const KEPT: Array<[string, string]> = [
  ['AWS::DynamoDB::GlobalTable', 'TableCD117FA1'],
  ['AWS::SecretsManager::Secret', 'LegalEntitySecretED81812D'],
  ['AWS::KMS::Key', 'WebhooksSecretsKeyD20F1394'],
  ['AWS::SQS::Queue', 'WebhooksDeliveries78486319'],
  ['AWS::SQS::Queue', 'WebhooksDeadLettersA656B8E7'],
  ['AWS::SQS::Queue', 'WebhooksFanOutFFC4485A'],
  ['AWS::SQS::Queue', 'ImportEngineUndeliveredEvents216B318A'],
  ['AWS::S3::Bucket', 'ImportEngineBucket0EC4D64D'],
  ['AWS::SNS::Topic', 'AlarmsTopic3A2DFEBA'],
  ['AWS::ApiGateway::RestApi', 'ApiF70053CD'],
  ['AWS::ApiGateway::Stage', 'ApiDeploymentStagedev51EE5D56'],
  ['AWS::ApiGateway::Authorizer', 'TokenAuthorizer82AECDDC'],
  ['AWS::WAFv2::WebACL', 'WafWebAclBE24253C'],
  ['AWS::Logs::LogGroup', 'AccessLogs8B620ECA'],
];

describe('a deployed stage keeps its data and its URL', () => {
  const templates = synth();
  const own = templates.get(STAGE)!.toJSON().Resources as Record<string, { Type: string }>;

  it.each(KEPT)('keeps its %s under the logical id %s', (type, logicalId) => {
    expect(own[logicalId]?.Type).toBe(type);
  });

  it("keeps the API's methods and path resources on its REST API (API Gateway refuses a method moved)", () => {
    for (const [path, template] of templates) {
      if (path === STAGE) continue;
      template.resourceCountIs('AWS::ApiGateway::Method', 0);
      template.resourceCountIs('AWS::ApiGateway::Resource', 0);
    }
    const methods = Object.values(own).filter((r) => r.Type === 'AWS::ApiGateway::Method');
    expect(methods.length).toBeGreaterThan(Object.keys(routes).length);
  });
});

describe('the stage has room to grow', () => {
  const today = counts();

  it('counts every template: the stage, one per domain of the route table, the workers', () => {
    expect(Object.fromEntries(today)).toEqual(Object.fromEntries(expectedCounts(routesByDomain)));
    expect(Object.keys(workers)).toHaveLength(10);
  });

  it(`keeps every template at or under ${TEMPLATE_CEILING} resources`, () => {
    for (const [path, count] of today) expect([path, count <= TEMPLATE_CEILING]).toEqual([path, true]);
  });

  it(`a route on an existing path adds ${ROUTE_RESOURCES} resources to its domain and a method to the stage`, () => {
    // POST on a path the lists already serve (GET, PUT, PATCH).
    const route = { ...routesByDomain.lists.addListCompanies, method: 'POST' as const };
    const table = withLists({ getHealth: route });
    const grown = counts(table);
    expect(growth(today, grown)).toEqual({ [domainStack('lists')]: ROUTE_RESOURCES, [STAGE]: 1 });
    expect(Object.fromEntries(grown)).toEqual(Object.fromEntries(expectedCounts(table)));
  });

  it('a route on a new path also adds its path and the 405 answer of that path to the stage', () => {
    expect(growth(today, counts(withLists(extraRoutes(1, 1))))).toEqual({
      [domainStack('lists')]: ROUTE_RESOURCES,
      [STAGE]: 1 + 2,
    });
  });

  it(`has room for ${HEADROOM_ROUTES} more routes, each on two new path segments, in the largest domain`, () => {
    const largest = Math.max(
      ...Object.values(routesByDomain as Record<string, object>).map((d) => Object.keys(d).length),
    );
    expect(Object.keys(routesByDomain.lists)).toHaveLength(largest);
    const grown = counts(withLists(extraRoutes(HEADROOM_ROUTES, 2)));
    expect(growth(today, grown)).toEqual({
      [domainStack('lists')]: HEADROOM_ROUTES * ROUTE_RESOURCES,
      // Its method, the two path resources, the 405 answer of its path (not of the new middle segment).
      [STAGE]: HEADROOM_ROUTES * (1 + 2 + 1),
    });
    for (const [path, count] of grown) expect([path, count <= TEMPLATE_CEILING]).toEqual([path, true]);
  });
});
