import { App } from 'aws-cdk-lib';
import { ATTEMPTS_PER_ENDPOINT } from '../../lib/webhooks/attempts';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { ALARM_THRESHOLDS } from '../../infra/alarms';
import {
  DEFAULT_AUTHORIZER_CONCURRENCY,
  DEFAULT_THROTTLE_BURST,
  DEFAULT_THROTTLE_RATE,
} from '../../infra/api';
import {
  DEFAULT_WAF_ANONYMOUS_RATE_LIMIT,
  DEFAULT_WAF_PUBLIC_RATE_LIMIT,
  DEFAULT_WAF_RATE_LIMIT,
  MANAGED_RULE_GROUPS,
} from '../../infra/waf';
import { PLAN_TIERS } from '../../lib/plans/plans';
import { CompanyDataStack, type CompanyDataStackProps } from '../../infra/stack';
import { stageTemplate } from './stage-template';
import { MIN_COMPRESSION_BYTES } from '../../lib/http/endpoint';
import type { Route } from '../../lib/http/route';
import {
  ACCESS_ENFORCED_BY_IAM,
  type Partition,
  type StorageAccess,
  type StorageAction,
} from '../../lib/storage/access';
import { deniedPartitions } from '../../lib/storage/access-check';
import * as partitions from '../../lib/storage/partitions';
import { REQUEST_PATH_TIMEOUTS, storageBudgetMs, TIMEOUT_VARIABLES } from '../../lib/storage/client';
import { authorizer, routes, workers, type Worker } from '../../lib/routes';
import { tableDefinition } from '../../lib/storage/table';
import { REQUEST_LOG_SAMPLE_RATE } from '../../lib/config';
import { BEARER_HEADER_PATTERN } from '../../lib/tokens/token-format';

interface CfnResource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

const allRoutes: Route[] = Object.values(routes);

/** Functions are not bundled here: the tests read the template only, and bundling is slow. */
function synthStack(
  stage = 'dev',
  context: Record<string, unknown> = {},
  props: Partial<CompanyDataStackProps> = {},
): { app: App; stack: CompanyDataStack } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new CompanyDataStack(app, `CompanyData-${stage}`, { stage, ...props });
  return { app, stack };
}

const PROD_ENV = { env: { account: '123456789012', region: 'eu-west-1' } };
/** A production stage needs an address its alarms go to. */
const PROD_CONTEXT = { alarmEmail: 'ops@example.com' };

/** Both cdk-nag packs, as `npm run synth` runs them: every finding that is not acknowledged. */
function nagFindings(stack: CompanyDataStack): string[] {
  return [
    new AwsSolutionsChecks(undefined, { verbose: true }),
    new ServerlessChecks(undefined, { verbose: true }),
  ]
    .flatMap((pack) => pack.validateScope(stack).violations)
    .map((v) => `${v.ruleName} ${v.violatingResources[0]?.constructPath}`);
}

function resourcesOfType(template: Template, type: string): [string, CfnResource][] {
  return Object.entries(template.findResources(type) as Record<string, CfnResource>);
}

/** Logical id → full path (`/v1/health`) of every API Gateway resource, by following the ParentId chain. */
function resourcePaths(template: Template): Map<string, string> {
  const resources = new Map(resourcesOfType(template, 'AWS::ApiGateway::Resource'));
  const paths = new Map<string, string>();
  const pathOf = (logicalId: string): string => {
    const resource = resources.get(logicalId);
    if (!resource) throw new Error(`No API resource ${logicalId}`);
    const parent = resource.Properties.ParentId as { Ref?: string };
    const parentPath = parent.Ref ? pathOf(parent.Ref) : '';
    return `${parentPath}/${String(resource.Properties.PathPart)}`;
  };
  for (const logicalId of resources.keys()) paths.set(logicalId, pathOf(logicalId));
  return paths;
}

function methodsOn(template: Template, path: string): CfnResource[] {
  const paths = resourcePaths(template);
  return resourcesOfType(template, 'AWS::ApiGateway::Method')
    .map(([, method]) => method)
    .filter((method) => paths.get((method.Properties.ResourceId as { Ref: string }).Ref) === path);
}

function routeMethod(template: Template, route: Route): CfnResource {
  const matching = methodsOn(template, route.path).filter((m) => m.Properties.HttpMethod === route.method);
  expect(matching).toHaveLength(1);
  return matching[0] as CfnResource;
}

/** The Lambda function a route's method invokes, found through its integration URI. */
function routeFunctionId(template: Template, route: Route): string {
  const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'));
  const uri = JSON.stringify((routeMethod(template, route).Properties.Integration as { Uri: unknown }).Uri);
  const id = functionIds.find((functionId) => uri.includes(`"Fn::GetAtt":["${functionId}","Arn"]`));
  if (!id) throw new Error(`No function behind ${route.method} ${route.path}`);
  return id;
}

function authorizerFunctionId(template: Template): string {
  const [authorizerResource] = resourcesOfType(template, 'AWS::ApiGateway::Authorizer');
  const uri = JSON.stringify(authorizerResource?.[1].Properties.AuthorizerUri);
  const id = Object.keys(template.findResources('AWS::Lambda::Function')).find((functionId) =>
    uri.includes(`"Fn::GetAtt":["${functionId}","Arn"]`),
  );
  if (!id) throw new Error('No authorizer function');
  return id;
}

function workerFunctionId(template: Template, workerId: string): string {
  const id = Object.keys(template.findResources('AWS::Lambda::Function')).find((functionId) =>
    functionId.startsWith(`${workerId}Function`),
  );
  if (!id) throw new Error(`No function for worker ${workerId}`);
  return id;
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, string[]>>;
}

/** Every statement of a function's role: its inline policies and any AWS::IAM::Policy attached to it. */
function statementsOf(template: Template, functionId: string): Statement[] {
  const fn = template.findResources('AWS::Lambda::Function')[functionId] as CfnResource;
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const role = template.findResources('AWS::IAM::Role')[roleId] as CfnResource;
  const inline = (role.Properties.Policies as { PolicyDocument: unknown }[] | undefined) ?? [];
  const attached = resourcesOfType(template, 'AWS::IAM::Policy')
    .map(([, policy]) => policy.Properties)
    .filter((policy) => (policy.Roles as { Ref: string }[]).some((r) => r.Ref === roleId));
  return [...inline, ...attached].flatMap(
    (policy) => (policy.PolicyDocument as { Statement: Statement[] }).Statement,
  );
}

function actionsOf(template: Template, functionId: string): string[] {
  return statementsOf(template, functionId).flatMap((statement) => [statement.Action].flat());
}

/**
 * What a function's role lets it do to the table, as `action on resource where pk is like pattern`
 * lines (`dynamodb:GetItem table COMPANY#*#*`, `dynamodb:Query index/gsi1 TOKENS`). A DynamoDB statement
 * without a LeadingKeys condition, or on any other resource, shows as `… <table or resource> ANY KEY`.
 */
function tableGrantsOf(template: Template, functionId: string): string[] {
  const [tableId] = Object.keys(template.findResources('AWS::DynamoDB::GlobalTable'));
  const tableArn = JSON.stringify({ 'Fn::GetAtt': [tableId, 'Arn'] });
  const grants: string[] = [];
  for (const statement of statementsOf(template, functionId)) {
    const actions = [statement.Action].flat().filter((a) => a.startsWith('dynamodb:'));
    if (actions.length === 0) continue;
    // Allow: every key must match (ForAllValues); Deny: any key matching refuses (ForAnyValue).
    const deny = statement.Effect === 'Deny';
    expect(statement.Effect).toBe(deny ? 'Deny' : 'Allow');
    const operator = deny ? 'ForAnyValue:StringLike' : 'ForAllValues:StringLike';
    for (const resource of [statement.Resource].flat()) {
      const text = JSON.stringify(resource);
      const index = /"\/index\/([^"]+)"/.exec(text)?.[1];
      const where =
        text === tableArn ? 'table' : index && text.includes(tableArn) ? `index/${index}` : `other ${text}`;
      const patterns = statement.Condition?.[operator]?.['dynamodb:LeadingKeys'];
      const conditionKeys = Object.keys(statement.Condition ?? {});
      const keyed = patterns && conditionKeys.length === 1 ? patterns : ['ANY KEY'];
      for (const action of actions)
        for (const p of keyed) grants.push(`${deny ? 'DENY ' : ''}${action} ${where} ${p}`);
    }
  }
  return grants.sort();
}

/**
 * The same lines, from a storage declaration (a route row, the authorizer's, a worker's): what it
 * declares, and the families its patterns also match that it does not declare (denied).
 */
function declaredGrants(storage: StorageAccess): string[] {
  const line = (action: string, p: Partition) =>
    `dynamodb:${action} ${p.index ? `index/${p.index}` : 'table'} ${p.pattern}`;
  return Object.entries(storage)
    .flatMap(([action, partitions]) => [
      ...(partitions ?? []).map((p) => line(action, p)),
      ...deniedPartitions(storage, action as StorageAction).map((p) => `DENY ${line(action, p)}`),
    ])
    .sort();
}

describe('CompanyDataStack (dev)', () => {
  const { stack } = synthStack();
  const template = stageTemplate(stack);

  describe('routes', () => {
    it.each(allRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('serves %s', (_, route) => {
      const method = routeMethod(template, route);
      expect(method.Properties.Integration).toMatchObject({
        Type: 'AWS_PROXY',
        IntegrationHttpMethod: 'POST',
      });
    });

    it('serves no method that is not in the route table, besides the 405 answers', () => {
      const methods = resourcesOfType(template, 'AWS::ApiGateway::Method').map(([, m]) => m);
      const routeMethods = methods.filter((m) => m.Properties.HttpMethod !== 'ANY');
      expect(routeMethods).toHaveLength(allRoutes.length);
    });

    it('puts the token authorizer in front of every route that needs a scope', () => {
      const authorizerIds = Object.keys(template.findResources('AWS::ApiGateway::Authorizer'));
      expect(authorizerIds).toHaveLength(1);
      for (const route of allRoutes.filter((r) => r.scope !== null)) {
        expect(routeMethod(template, route).Properties).toMatchObject({
          AuthorizationType: 'CUSTOM',
          AuthorizerId: { Ref: authorizerIds[0] },
        });
      }
    });

    it('leaves public routes open', () => {
      const publicRoutes = allRoutes.filter((r) => r.scope === null);
      expect(publicRoutes.length).toBeGreaterThan(0);
      for (const route of publicRoutes) {
        const { Properties } = routeMethod(template, route);
        expect(Properties.AuthorizationType).toBe('NONE');
        expect(Properties.AuthorizerId).toBeUndefined();
      }
    });

    it("lets only its route's method on this stage invoke each route's function (no test invoke)", () => {
      const permissions = resourcesOfType(template, 'AWS::Lambda::Permission').map(([, p]) => p.Properties);
      for (const route of allRoutes) {
        const functionId = routeFunctionId(template, route);
        const own = permissions.filter(
          (p) => JSON.stringify(p.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }),
        );
        expect(own).toHaveLength(1);
        const sourceArn = JSON.stringify(own[0]!.SourceArn);
        const [restApiId] = Object.keys(template.findResources('AWS::ApiGateway::RestApi'));
        expect(sourceArn).toContain(JSON.stringify({ Ref: restApiId }));
        expect(sourceArn).toContain(`"/dev/${route.method}${route.path.replace(/\{[^}]+\}/g, '*')}"`);
      }
    });

    it('gives every route its own function', () => {
      const functionIds = allRoutes.map((route) => routeFunctionId(template, route));
      expect(new Set(functionIds).size).toBe(allRoutes.length);
      expect(functionIds).not.toContain(authorizerFunctionId(template));
    });
  });

  describe('token authorizer', () => {
    it('reads the Authorization header, pre-checks its shape and caches answers under 5 seconds', () => {
      template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
      template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
        Type: 'TOKEN',
        IdentitySource: 'method.request.header.Authorization',
        IdentityValidationExpression: BEARER_HEADER_PATTERN,
        AuthorizerResultTtlInSeconds: authorizer.cacheTtlSeconds,
      });
      // Contract §13: a revoked token stops working within 5 seconds.
      expect(authorizer.cacheTtlSeconds).toBeLessThan(5);
    });

    it('has concurrency reserved for it alone, so the routes cannot starve it', () => {
      const fn = template.findResources('AWS::Lambda::Function')[
        authorizerFunctionId(template)
      ] as CfnResource;
      expect(fn.Properties.ReservedConcurrentExecutions).toBe(DEFAULT_AUTHORIZER_CONCURRENCY);
    });

    it('may only GetItem token items: TOKEN#* on the table, nothing else', () => {
      expect(tableGrantsOf(template, authorizerFunctionId(template))).toEqual([
        `dynamodb:GetItem table ${partitions.token.pattern}`,
      ]);
      expect(partitions.token.pattern).toBe('TOKEN#*');
    });
  });

  describe('functions', () => {
    const functions = resourcesOfType(template, 'AWS::Lambda::Function');

    it('has one function per route plus the authorizer and the workers', () => {
      expect(functions).toHaveLength(allRoutes.length + 1 + Object.keys(workers).length);
    });

    it('runs every function on Node.js 24 arm64 with explicit memory and timeout and the table name', () => {
      for (const [, fn] of functions) {
        expect(fn.Properties).toMatchObject({
          Runtime: 'nodejs24.x',
          Architectures: ['arm64'],
          MemorySize: expect.any(Number),
          Timeout: expect.any(Number),
          Environment: { Variables: { TABLE_NAME: { Ref: expect.any(String) } } },
        });
      }
    });

    it('tells every function that IAM enforces its storage declaration (no in-process check on AWS)', () => {
      for (const [, fn] of functions) {
        const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
        expect(variables[ACCESS_ENFORCED_BY_IAM]).toBe('true');
      }
    });

    it('gives the route functions and the authorizer storage timeouts that answer 503 before theirs', () => {
      const budget = storageBudgetMs(REQUEST_PATH_TIMEOUTS);
      expect(budget).toBe(3 * 1200 + 200 + 400);
      const answering = [
        ...allRoutes.map((r) => routeFunctionId(template, r)),
        authorizerFunctionId(template),
      ];
      for (const id of answering) {
        const fn = template.findResources('AWS::Lambda::Function')[id] as CfnResource;
        const variables = (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
        expect(variables).toMatchObject({
          [TIMEOUT_VARIABLES.connectionMs]: String(REQUEST_PATH_TIMEOUTS.connectionMs),
          [TIMEOUT_VARIABLES.requestMs]: String(REQUEST_PATH_TIMEOUTS.requestMs),
        });
        expect((fn.Properties.Timeout as number) * 1000).toBeGreaterThan(budget);
      }
    });

    it('has each route function log the line of 1 in 100 answered requests (every failed or slow one)', () => {
      for (const route of allRoutes) {
        const fn = template.findResources('AWS::Lambda::Function')[
          routeFunctionId(template, route)
        ] as CfnResource;
        const variables = (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
        expect(variables[REQUEST_LOG_SAMPLE_RATE]).toBe('0.01');
      }
    });

    it('does not enable source maps at run time (NODE_OPTIONS), which slows cold starts', () => {
      for (const [, fn] of functions) {
        const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
        expect(variables).not.toHaveProperty('NODE_OPTIONS');
      }
    });

    it('gives every function its own log group with a retention', () => {
      const logGroups = template.findResources('AWS::Logs::LogGroup');
      const used = functions.map(
        ([, fn]) => (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref,
      );
      expect(new Set(used).size).toBe(functions.length);
      for (const logGroupId of used) {
        expect((logGroups[logGroupId] as CfnResource).Properties.RetentionInDays).toBe(30);
      }
    });

    it('lets each function write only to its own log group, with no AWS-managed policy', () => {
      const roles = template.findResources('AWS::IAM::Role');
      for (const [, fn] of functions) {
        const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
        const logGroupId = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
        const role = roles[roleId] as CfnResource;
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
        const policies = role.Properties.Policies as { PolicyName: string }[];
        expect(policies.filter((p) => p.PolicyName !== 'storage')).toEqual([
          {
            PolicyName: 'logs',
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
                  Effect: 'Allow',
                  Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
                },
              ],
            },
          },
        ]);
      }
    });

    it.each(Object.entries(routes).map(([id, r]) => [`${r.method} ${r.path}`, id, r] as const))(
      'gives the function of %s exactly the table access its route row declares',
      (_, _id, route) => {
        expect(tableGrantsOf(template, routeFunctionId(template, route))).toEqual(
          declaredGrants(route.storage),
        );
      },
    );

    it('gives each worker exactly the table access it declares', () => {
      const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'));
      for (const [workerId, worker] of Object.entries(workers)) {
        const id = functionIds.find((f) => f.startsWith(`${workerId}Function`));
        expect(id).toBeDefined();
        expect(tableGrantsOf(template, id!)).toEqual(declaredGrants(worker.storage));
      }
    });

    it('grants no function Scan, and every table grant is bound to declared partitions', () => {
      for (const functionId of Object.keys(template.findResources('AWS::Lambda::Function'))) {
        const grants = tableGrantsOf(template, functionId);
        expect(grants.filter((g) => g.includes('Scan'))).toEqual([]);
        expect(grants.filter((g) => g.endsWith('ANY KEY') || g.includes(' other '))).toEqual([]);
        expect(actionsOf(template, functionId)).not.toContain('dynamodb:*');
      }
    });

    it('lets read-only routes write nothing and public routes touch nothing', () => {
      for (const route of allRoutes) {
        const grants = tableGrantsOf(template, routeFunctionId(template, route));
        if (route.method === 'GET') {
          expect(grants.filter((g) => /(Put|Update|Delete|BatchWrite|ConditionCheck)Item /.test(g))).toEqual(
            [],
          );
        }
        if (route.scope === null) expect(grants).toEqual([]);
      }
    });
  });

  describe('table', () => {
    it('is built from the shared table definition, on demand, with point-in-time recovery', () => {
      template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
      template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
        TableName: Match.absent(),
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: tableDefinition.indexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
        TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
        Replicas: [
          Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
        ],
      });
    });

    it('is kept and protected from deletion by default, on every stage', () => {
      template.hasResource('AWS::DynamoDB::GlobalTable', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: { Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })] },
      });
      for (const [, logGroup] of resourcesOfType(template, 'AWS::Logs::LogGroup')) {
        expect(logGroup.DeletionPolicy).toBe('Retain');
      }
    });

    it('is deleted with the stack, like the logs, only on a stage marked disposable', () => {
      const disposable = stageTemplate(synthStack('scratch', {}, { disposable: true }).stack);
      disposable.hasResource('AWS::DynamoDB::GlobalTable', {
        DeletionPolicy: 'Delete',
        Properties: { Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })] },
      });
      for (const [, logGroup] of resourcesOfType(disposable, 'AWS::Logs::LogGroup')) {
        expect(logGroup.DeletionPolicy).toBe('Delete');
      }
    });
  });

  describe('stage', () => {
    it('compresses answers of 1 KB or more for callers that accept it (as the local gateway)', () => {
      template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        MinimumCompressionSize: MIN_COMPRESSION_BYTES,
      });
      expect(MIN_COMPRESSION_BYTES).toBe(1024);
    });

    it('is named after the CDK stage, throttled, with JSON access logs and error execution logs', () => {
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: 'dev',
        AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('"requestId"') },
        TracingEnabled: true,
        MethodSettings: Match.arrayWith([
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            LoggingLevel: 'ERROR',
            MetricsEnabled: true,
            ThrottlingRateLimit: DEFAULT_THROTTLE_RATE,
            ThrottlingBurstLimit: DEFAULT_THROTTLE_BURST,
          }),
        ]),
      });
    });

    it('logs each request as JSON with the caller, authorizer errors, integration latency and error type', () => {
      const [[, stageResource]] = resourcesOfType(template, 'AWS::ApiGateway::Stage') as [
        [string, CfnResource],
      ];
      const format = JSON.parse(
        (stageResource.Properties.AccessLogSetting as { Format: string }).Format,
      ) as Record<string, string>;
      expect(format).toMatchObject({
        requestId: '$context.requestId',
        caller: '$context.authorizer.principalId',
        status: '$context.status',
        integrationLatencyMs: '$context.integration.latency',
        errorType: '$context.error.responseType',
        authorizerError: '$context.authorizer.error',
      });
      expect(JSON.stringify(format)).not.toMatch(/authorization|identity\.apiKey\b/i);
    });

    it('gives the public routes no ceiling the whole world shares (the WAF limits them per address)', () => {
      const [[, stageResource]] = resourcesOfType(template, 'AWS::ApiGateway::Stage') as [
        [string, CfnResource],
      ];
      const settings = stageResource.Properties.MethodSettings as Record<string, unknown>[];
      expect(settings.map((m) => m.ResourcePath)).toEqual(['/*']);
    });

    it('traces the API and every function with X-Ray', () => {
      for (const [, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
        expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      }
    });

    it('takes its throttling limits from -c throttleRate / throttleBurst', () => {
      const { stack: throttled } = synthStack('dev', { throttleRate: '5', throttleBurst: '10' });
      stageTemplate(throttled).hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: Match.arrayWith([
          Match.objectLike({ ResourcePath: '/*', ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 }),
        ]),
      });
    });

    it('refuses a throttling limit that is not a positive number', () => {
      expect(() => synthStack('dev', { throttleRate: 'fast' })).toThrow(/throttleRate/);
    });

    it('names the API after the stage', () => {
      template.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'company-data-dev' });
    });
  });

  describe('gateway responses', () => {
    const unavailable = {
      status: '503',
      message: 'Service unavailable, retry later',
      code: 'UNAVAILABLE',
      retryAfter: "'3'",
    };
    interface Expected {
      type: string;
      status: string;
      message: string;
      code: string;
      retryAfter?: string;
      wwwAuthenticate?: boolean;
    }
    const expected: Expected[] = [
      {
        type: 'UNAUTHORIZED',
        status: '401',
        message: 'Unauthorized',
        code: 'UNAUTHORIZED',
        wwwAuthenticate: true,
      },
      { type: 'ACCESS_DENIED', status: '403', message: 'Forbidden', code: 'FORBIDDEN' },
      { type: 'MISSING_AUTHENTICATION_TOKEN', status: '404', message: 'Route not found', code: 'NOT_FOUND' },
      {
        type: 'THROTTLED',
        status: '429',
        message: 'Too many requests',
        code: 'THROTTLED',
        retryAfter: "'1'",
      },
      // A fixed hour: a gateway response computes nothing (contract §13).
      {
        type: 'QUOTA_EXCEEDED',
        status: '429',
        message: 'Too many requests',
        code: 'THROTTLED',
        retryAfter: "'3600'",
      },
      // The managed rules' refusals: asking again is refused again (the rate rules answer 429 themselves).
      { type: 'WAF_FILTERED', status: '403', message: 'Forbidden', code: 'FORBIDDEN' },
      {
        type: 'REQUEST_TOO_LARGE',
        status: '413',
        message: 'Request body must be at most 1 MiB',
        code: 'PAYLOAD_TOO_LARGE',
      },
      {
        type: 'UNSUPPORTED_MEDIA_TYPE',
        status: '415',
        message: 'Content-Type must be application/json',
        code: 'UNSUPPORTED_MEDIA_TYPE',
      },
      ...[
        'INTEGRATION_TIMEOUT',
        'INTEGRATION_FAILURE',
        'AUTHORIZER_FAILURE',
        'AUTHORIZER_CONFIGURATION_ERROR',
      ].map((type) => ({ type, ...unavailable })),
      { type: 'DEFAULT_4XX', status: '403', message: 'Forbidden', code: 'FORBIDDEN' },
      { type: 'DEFAULT_5XX', status: '500', message: 'Internal server error', code: 'INTERNAL' },
    ];

    it.each(expected.map((e) => [e.type, e] as const))(
      'answers %s in the contract error shape, never cached',
      (type, { status, message, code, retryAfter, wwwAuthenticate }) => {
        const matches = resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse').filter(
          ([, r]) => r.Properties.ResponseType === type,
        );
        expect(matches).toHaveLength(1);
        const { Properties } = (matches[0] as [string, CfnResource])[1];
        expect(Properties.StatusCode).toBe(status);
        const body = (Properties.ResponseTemplates as Record<string, string>)['application/json'] ?? '';
        expect(JSON.parse(body)).toEqual({ message, code, requestId: '$context.requestId' });
        const headers = Properties.ResponseParameters as Record<string, string>;
        expect(headers['gatewayresponse.header.x-request-id']).toBe('context.requestId');
        expect(headers['gatewayresponse.header.Cache-Control']).toBe("'no-store'");
        expect(headers['gatewayresponse.header.Retry-After']).toBe(retryAfter);
        expect(headers['gatewayresponse.header.WWW-Authenticate']).toBe(
          wwwAuthenticate ? "'Bearer'" : undefined,
        );
      },
    );

    it('uses only codes the contract lists', () => {
      const contractCodes = ['INVALID_JSON', 'VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'];
      contractCodes.push('METHOD_NOT_ALLOWED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'THROTTLED');
      contractCodes.push('INTERNAL', 'UNAVAILABLE');
      for (const [, response] of resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse')) {
        const body =
          (response.Properties.ResponseTemplates as Record<string, string>)['application/json'] ?? '';
        expect(contractCodes).toContain((JSON.parse(body) as { code: string }).code);
      }
    });
  });

  describe('alarms', () => {
    const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const [[topicId]] = resourcesOfType(template, 'AWS::SNS::Topic') as [[string, CfnResource]];

    it('has one SNS topic for the stage, in the outputs, that only takes TLS', () => {
      template.resourceCountIs('AWS::SNS::Topic', 1);
      template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    });

    it('tells the topic when any alarm goes off and when it is over', () => {
      expect(alarms.length).toBeGreaterThan(0);
      for (const alarm of alarms) {
        expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
        expect(alarm.OKActions).toEqual([{ Ref: topicId }]);
        expect(alarm.TreatMissingData).toBe('notBreaching');
      }
    });

    it('watches the API: 5xx rate and p99 latency', () => {
      expect(alarms).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            Namespace: 'AWS/ApiGateway',
            MetricName: '5XXError',
            Statistic: 'Average',
            Threshold: ALARM_THRESHOLDS.serverErrorRate,
          }),
          expect.objectContaining({
            Namespace: 'AWS/ApiGateway',
            MetricName: 'Latency',
            ExtendedStatistic: 'p99',
            Threshold: ALARM_THRESHOLDS.p99LatencyMs,
          }),
        ]),
      );
    });

    it('watches every function with one alarm on its errors and throttles that names it', () => {
      const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'));
      const watched = alarms
        .map((alarm) => {
          const metrics = (alarm.Metrics ?? []) as {
            Id: string;
            Expression?: string;
            Label?: string;
            MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: unknown[] } };
          }[];
          const stats = metrics.filter((m) => m.MetricStat?.Metric.Namespace === 'AWS/Lambda');
          if (stats.length === 0) return undefined;
          expect(stats.map((m) => m.MetricStat!.Metric.MetricName).sort()).toEqual(['Errors', 'Throttles']);
          const [fn, other] = new Set(stats.map((m) => JSON.stringify(m.MetricStat!.Metric.Dimensions)));
          expect(other).toBeUndefined();
          expect(metrics.find((m) => m.Expression)).toMatchObject({
            Expression: 'FILL(errors, 0) + FILL(throttles, 0)',
          });
          expect(alarm).toMatchObject({ Threshold: ALARM_THRESHOLDS.count });
          return { fn: (JSON.parse(fn!) as { Value: { Ref: string } }[])[0]!.Value.Ref, alarm };
        })
        .filter((w) => w !== undefined);
      expect(watched.map((w) => w.fn).sort()).toEqual([...functionIds].sort());
      // The notification names the function: its route id, worker id, or the authorizer.
      const names = [...Object.keys(routes), ...Object.keys(workers), 'authorizer'];
      for (const { fn, alarm } of watched) {
        const name = names.find(
          (n) => alarm.AlarmDescription === `dev: function ${n} failed or was throttled`,
        );
        expect([fn, name && (fn.startsWith(`${name}Function`) || name === 'authorizer')]).toEqual([fn, true]);
      }
    });

    it('watches the table for throttled requests and system errors', () => {
      const metricsOf = (alarm: Record<string, unknown>) =>
        ((alarm.Metrics as { MetricStat?: { Metric: { MetricName: string } } }[] | undefined) ?? [])
          .map((m) => m.MetricStat?.Metric.MetricName)
          .filter(Boolean);
      const tableAlarms = alarms.map(metricsOf).filter((names) => names.length > 0);
      expect(tableAlarms).toEqual(
        expect.arrayContaining([
          ['ReadThrottleEvents', 'WriteThrottleEvents'],
          expect.arrayContaining(['SystemErrors']),
        ]),
      );
    });
  });

  describe('405 on a known path with another method', () => {
    const paths = [...new Set(allRoutes.map((r) => r.path))];

    it.each(paths)('answers 405 on %s for methods it does not serve, without a token', (path) => {
      const allowed = allRoutes.filter((r) => r.path === path).map((r) => r.method);
      const anyMethods = methodsOn(template, path).filter((m) => m.Properties.HttpMethod === 'ANY');
      expect(anyMethods).toHaveLength(1);
      const { Properties } = anyMethods[0] as CfnResource;
      expect(Properties.AuthorizationType).toBe('NONE');
      const integration = Properties.Integration as {
        Type: string;
        IntegrationResponses: {
          StatusCode: string;
          ResponseTemplates: Record<string, string>;
          ResponseParameters: Record<string, string>;
        }[];
      };
      expect(integration.Type).toBe('MOCK');
      const [response] = integration.IntegrationResponses;
      expect(response?.StatusCode).toBe('405');
      expect(JSON.parse(response?.ResponseTemplates['application/json'] ?? '')).toEqual({
        message: 'Method not allowed',
        code: 'METHOD_NOT_ALLOWED',
        requestId: '$context.requestId',
      });
      expect(response?.ResponseParameters).toMatchObject({
        'method.response.header.Allow': `'${allowed.join(', ')}'`,
        'method.response.header.Content-Type': "'application/json'",
        'method.response.header.Cache-Control': "'no-store'",
      });
    });
  });

  it('outputs the stage URL and the table name', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('TableName', {});
  });

  describe('legal entity id key', () => {
    it('is generated once per stage, never rotated, and its ARN is an output for the import', () => {
      template.resourceCountIs('AWS::SecretsManager::Secret', 1);
      template.hasResourceProperties('AWS::SecretsManager::Secret', {
        GenerateSecretString: Match.objectLike({ PasswordLength: 64, ExcludePunctuation: true }),
      });
      template.resourceCountIs('AWS::SecretsManager::RotationSchedule', 0);
      template.hasOutput('LegalEntitySecretArn', {});
    });

    it("is readable by the import engine's partition workers only, which are told where it is", () => {
      const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'));
      const readers = functionIds.filter((id) =>
        actionsOf(template, id).some((a) => a.startsWith('secretsmanager:')),
      );
      expect(readers).toEqual([workerFunctionId(template, 'importPartition')]);
      const reader = template.findResources('AWS::Lambda::Function')[readers[0]!] as CfnResource;
      expect(reader.Properties).toMatchObject({
        Environment: {
          Variables: { LEGAL_ENTITY_SECRET_ARN: { Ref: expect.stringMatching(/^LegalEntitySecret/) } },
        },
      });
    });
  });

  describe('import engine (contract §11.2)', () => {
    it('keeps files in a private, encrypted, TLS-only bucket that tells EventBridge and forgets them', () => {
      template.hasResourceProperties('AWS::S3::Bucket', {
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
        LifecycleConfiguration: {
          Rules: [
            Match.objectLike({ Prefix: 'incoming/', ExpirationInDays: 30 }),
            Match.objectLike({ Prefix: 'kbo/', ExpirationInDays: 30 }),
            Match.objectLike({ Prefix: 'sirene/', ExpirationInDays: 30 }),
            Match.objectLike({ Prefix: 'filings/cbso/', ExpirationInDays: 30 }),
            Match.objectLike({ Prefix: 'filings/inpi-ratios/', ExpirationInDays: 30 }),
            Match.objectLike({ Prefix: 'work/', ExpirationInDays: 7 }),
            Match.objectLike({ Prefix: 'reports/', ExpirationInDays: 90 }),
          ],
        },
      });
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    });

    it('starts the state machine for every file created under incoming/, kbo/, sirene/ or filings/', () => {
      template.hasResourceProperties('AWS::Events::Rule', {
        EventPattern: {
          source: ['aws.s3'],
          'detail-type': ['Object Created'],
          detail: {
            object: {
              key: [
                { prefix: 'incoming/' },
                { prefix: 'kbo/' },
                { prefix: 'sirene/' },
                { prefix: 'filings/cbso/' },
                { prefix: 'filings/inpi-ratios/' },
              ],
            },
          },
        },
        Targets: [
          Match.objectLike({
            Arn: { Ref: Match.stringLikeRegexp('^ImportEngineStateMachine') },
            InputTransformer: Match.objectLike({
              InputPathsMap: {
                'detail-bucket-name': '$.detail.bucket.name',
                'detail-object-key': '$.detail.object.key',
              },
            }),
            RetryPolicy: { MaximumRetryAttempts: 24, MaximumEventAgeInSeconds: 86_400 },
            DeadLetterConfig: {
              Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ImportEngineUndeliveredEvents'), 'Arn'] },
            },
          }),
        ],
      });
    });

    it('files an event that started no run in an encrypted, TLS-only queue, and raises an alarm', () => {
      const [[queueId]] = resourcesOfType(template, 'AWS::SQS::Queue') as [[string, CfnResource]];
      expect(queueId).toMatch(/^ImportEngineUndeliveredEvents/);
      template.hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            Match.objectLike({
              Effect: 'Allow',
              Action: 'sqs:SendMessage',
              Principal: { Service: 'events.amazonaws.com' },
            }),
          ]),
        },
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
        Threshold: 1,
      });
    });

    it('raises an alarm when a run fails, times out or is aborted', () => {
      const runAlarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').filter(([id]) =>
        id.startsWith('AlarmsImportRunsFailed'),
      );
      expect(runAlarms).toHaveLength(1);
      const metrics = JSON.stringify(runAlarms[0]![1].Properties.Metrics);
      for (const name of ['ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted']) {
        expect(metrics).toContain(`"MetricName":"${name}"`);
      }
      expect(metrics).toContain('ImportEngineStateMachine');
    });

    const definitionOf = (prefix: string) => {
      const [[, machine]] = resourcesOfType(template, 'AWS::StepFunctions::StateMachine').filter(([id]) =>
        id.startsWith(prefix),
      ) as [[string, CfnResource]];
      expect(machine.Properties).toMatchObject({
        TracingConfiguration: { Enabled: true },
        LoggingConfiguration: { Level: 'ALL' },
      });
      return JSON.stringify(machine.Properties.DefinitionString);
    };

    /** The states of a definition by name (the template holds it as a string joined with references). */
    const statesOf = (prefix: string): Record<string, Record<string, unknown>> => {
      const [[, machine]] = resourcesOfType(template, 'AWS::StepFunctions::StateMachine').filter(([id]) =>
        id.startsWith(prefix),
      ) as [[string, CfnResource]];
      const parts = (machine.Properties.DefinitionString as { 'Fn::Join': [string, unknown[]] })[
        'Fn::Join'
      ][1];
      // A reference always stands inside a JSON string of the definition (an ARN, a bucket name).
      const text = parts.map((part) => (typeof part === 'string' ? part : '<ref>')).join('');
      return (JSON.parse(text) as { States: Record<string, Record<string, unknown>> }).States;
    };

    it('splits, imports the partitions, recomputes the lookalikes in shards, then completes; traced and logged', () => {
      const definition = definitionOf('ImportEngineStateMachine');
      for (const expected of [
        '\\"StartAt\\":\\"Split\\"',
        '\\"Type\\":\\"Map\\"',
        '\\"Mode\\":\\"DISTRIBUTED\\"',
        '\\"ItemsPath\\":\\"$.partitions\\"',
        '\\"MaxConcurrency\\":16',
        '\\"Next\\":\\"LookalikesStart\\"',
        '\\"mode\\":\\"marked\\"',
        '\\"ItemsPath\\":\\"$.lookalikes.shards\\"',
      ]) {
        expect(definition).toContain(expected);
      }
    });

    it('imports what the split cut, asks again a minute later while a SIRENE pair is incomplete, ends when nothing is to import', () => {
      const states = statesOf('ImportEngineStateMachine');
      expect(states['Split']).toMatchObject({
        Parameters: {
          'bucket.$': '$.bucket',
          'key.$': '$.key',
          'run.$': '$$.Execution.Name',
          'startedAt.$': '$$.Execution.StartTime',
        },
        Next: 'SplitAnswer',
      });
      expect(states['SplitAnswer']).toEqual({
        Type: 'Choice',
        Choices: [
          { Variable: '$.status', StringEquals: 'wait', Next: 'WaitForPair' },
          { Variable: '$.status', StringEquals: 'ranges', Next: 'SplitRanges' },
          { Variable: '$.status', StringEquals: 'done', Next: 'NothingToImport' },
        ],
        Default: 'ImportPartitions',
      });
      // SIRENE's ranges: each split by a worker of its own, then gathered by the split, which answers again.
      expect(states['SplitRanges']).toMatchObject({
        Type: 'Map',
        ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED' } },
        ItemsPath: '$.ranges',
        // The split's reserved concurrency (infra/capacity.ts).
        MaxConcurrency: 2,
        ItemSelector: {
          'bucket.$': '$.bucket',
          'key.$': '$.key',
          'run.$': '$.run',
          'startedAt.$': '$.startedAt',
          'establishments.$': '$.establishments',
          'range.$': '$$.Map.Item.Value',
        },
        ResultPath: null,
        Next: 'GatherRanges',
      });
      expect(states['GatherRanges']).toMatchObject({
        Parameters: { gather: true, 'note.$': '$.note', 'run.$': '$.run' },
        Next: 'SplitAnswer',
      });
      expect(states['WaitForPair']).toEqual({ Type: 'Wait', Seconds: 60, Next: 'Split' });
      expect(states['NothingToImport']).toEqual({ Type: 'Succeed' });
      // Each partition knows what it holds: JSON Lines or a registry's units.
      expect(states['ImportPartitions']).toMatchObject({
        ItemSelector: {
          'bucket.$': '$.bucket',
          'run.$': '$.run',
          'asOf.$': '$.asOf',
          'format.$': '$.format',
          'partition.$': '$$.Map.Item.Value',
        },
      });
    });

    it("gives the split Lambda's largest local disk, for a registry's files and its joins' sorted runs", () => {
      const withDisk = resourcesOfType(template, 'AWS::Lambda::Function').filter(
        ([, fn]) => (fn.Properties as { EphemeralStorage?: unknown }).EphemeralStorage !== undefined,
      );
      expect(withDisk.map(([id]) => id)).toEqual([workerFunctionId(template, 'importSplit')]);
      expect(withDisk[0]![1].Properties['EphemeralStorage']).toEqual({ Size: 10_240 });
    });

    it('lets the split read only what is dropped and its work files, list only sirene/, filings/cbso/ and those, write only them and reports', () => {
      // Each action with the key prefixes of its objects (or, for a listing, the prefixes it may list).
      const grants = statementsOf(template, workerFunctionId(template, 'importSplit'))
        .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('s3:')))
        .map((statement) => {
          const listed = statement.Condition?.['StringLike']?.['s3:prefix'];
          const prefixes = listed ?? JSON.stringify(statement.Resource).match(/[a-z]+(\/[a-z-]+)?\/\*/g);
          return `${[statement.Action].flat().join(',')} ${[prefixes].flat().join(' ')}`;
        });
      expect(grants.sort()).toEqual([
        's3:GetObject incoming/* kbo/* sirene/* filings/cbso/* filings/inpi-ratios/* work/*',
        's3:ListBucket filings/cbso/*',
        's3:ListBucket sirene/*',
        's3:ListBucket work/*',
        's3:PutObject work/* reports/*',
      ]);
    });

    it("recomputes an import's lookalikes in rounds under the lease, and completes without them when it is held", () => {
      const states = statesOf('ImportEngineStateMachine');
      expect(states['LookalikesStart']).toMatchObject({
        Type: 'Pass',
        Result: { round: 1 },
        ResultPath: '$.lookalikes',
        Next: 'LookalikesPlan',
      });
      expect(states['LookalikesPlan']).toMatchObject({
        Parameters: { mode: 'marked', 'round.$': '$.lookalikes.round', 'run.$': '$$.Execution.Name' },
        ResultPath: '$.lookalikes',
        Next: 'LookalikesPlanned',
      });
      // Planned: the shards, then the finish; not planned (nothing marked, or the lease held): Complete.
      expect(states['LookalikesPlanned']).toEqual({
        Type: 'Choice',
        Choices: [{ Variable: '$.lookalikes.planned', BooleanEquals: true, Next: 'LookalikesShards' }],
        Default: 'Complete',
      });
      expect(states['LookalikesShards']).toMatchObject({ Next: 'LookalikesFinish' });
      expect(states['LookalikesFinish']).toMatchObject({
        Parameters: { 'round.$': '$.lookalikes.round', 'run.$': '$$.Execution.Name' },
        ResultPath: '$.lookalikes',
        Next: 'LookalikesAgain',
      });
      // Marks left: back to the plan, for the next round.
      expect(states['LookalikesAgain']).toEqual({
        Type: 'Choice',
        Choices: [{ Variable: '$.lookalikes.again', BooleanEquals: true, Next: 'LookalikesPlan' }],
        Default: 'Complete',
      });
      expect(states['Complete']).toMatchObject({ End: true });
    });

    it('runs the full lookalike job as the same fan-out, weekly, and outputs it for an operator', () => {
      const definition = definitionOf('ImportEngineLookalikesStateMachine');
      for (const expected of [
        '\\"StartAt\\":\\"AllLookalikesStart\\"',
        '\\"mode\\":\\"all\\"',
        '\\"Mode\\":\\"DISTRIBUTED\\"',
        '\\"ItemsPath\\":\\"$.lookalikes.shards\\"',
        '\\"Next\\":\\"AllLookalikesFinish\\"',
      ]) {
        expect(definition).toContain(expected);
      }
      const states = statesOf('ImportEngineLookalikesStateMachine');
      // The lease held: wait for it and plan again (the state machine's timeout bounds the wait).
      expect(states['AllLookalikesPlanned']).toEqual({
        Type: 'Choice',
        Choices: [
          { Variable: '$.lookalikes.planned', BooleanEquals: true, Next: 'AllLookalikesShards' },
          { Variable: '$.lookalikes.waitForLease', BooleanEquals: true, Next: 'AllLookalikesWaitForLease' },
        ],
        Default: 'AllLookalikesDone',
      });
      expect(states['AllLookalikesWaitForLease']).toEqual({
        Type: 'Wait',
        Seconds: 300,
        Next: 'AllLookalikesPlan',
      });
      expect(states['AllLookalikesAgain']).toEqual({
        Type: 'Choice',
        Choices: [{ Variable: '$.lookalikes.again', BooleanEquals: true, Next: 'AllLookalikesPlan' }],
        Default: 'AllLookalikesDone',
      });
      expect(states['AllLookalikesDone']).toEqual({ Type: 'Succeed' });
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'cron(0 3 ? * SUN *)',
        Targets: [
          Match.objectLike({
            Arn: { Ref: Match.stringLikeRegexp('^ImportEngineLookalikesStateMachine') },
            RetryPolicy: { MaximumRetryAttempts: 2 },
          }),
        ],
      });
      template.hasOutput('LookalikesStateMachineArn', {});
    });

    it.each([
      ['importSplit', ['s3:GetObject', 's3:PutObject', 's3:ListBucket']],
      [
        'importPartition',
        [
          's3:GetObject',
          's3:PutObject',
          's3:ListBucket',
          'secretsmanager:GetSecretValue',
          'secretsmanager:DescribeSecret',
          // Announcing a batch's events to the webhook fan-out (its FIFO queue).
          'sqs:SendMessage',
          'sqs:GetQueueAttributes',
          'sqs:GetQueueUrl',
        ],
      ],
      ['importComplete', ['s3:GetObject', 's3:DeleteObject', 's3:PutObject', 's3:ListBucket']],
      ['lookalikesPlan', ['s3:PutObject']],
      ['lookalikesShard', ['s3:GetObject']],
      ['lookalikesFinish', ['s3:GetObject', 's3:DeleteObject', 's3:ListBucket']],
    ] as const)('gives %s only the bucket actions it uses, no wildcard', (workerId, expected) => {
      const actions = actionsOf(template, workerFunctionId(template, workerId)).filter(
        (a) => !a.startsWith('dynamodb:') && !a.startsWith('logs:') && !a.startsWith('xray:'),
      );
      expect([...new Set(actions)].sort()).toEqual([...expected].sort());
    });

    it("lets the split step write only a KBO extract's progress and KBO's roster, and read only what a KBO extract asks of the stage", () => {
      const grants = tableGrantsOf(template, workerFunctionId(template, 'importSplit')).filter(
        (grant) => !grant.startsWith('DENY '),
      );
      expect(grants).toEqual(
        [
          `dynamodb:BatchGetItem table ${partitions.company.pattern}`,
          `dynamodb:BatchGetItem table ${partitions.registryLinks.pattern}`,
          `dynamodb:BatchGetItem table ${partitions.registryRoster.pattern}`,
          `dynamodb:BatchWriteItem table ${partitions.registryRoster.pattern}`,
          `dynamodb:GetItem table ${partitions.registryProgress.pattern}`,
          `dynamodb:Query table ${partitions.filterProfiles.pattern}`,
          `dynamodb:Query table ${partitions.registryRoster.pattern}`,
          `dynamodb:UpdateItem table ${partitions.registryProgress.pattern}`,
          `dynamodb:UpdateItem table ${partitions.registryRoster.pattern}`,
        ].sort(),
      );
    });

    it('outputs the bucket for operators', () => {
      template.hasOutput('ImportBucketName', {});
    });
  });

  describe('webhook delivery (contract §12)', () => {
    const queues = () => resourcesOfType(template, 'AWS::SQS::Queue');
    const queueId = (prefix: string) => {
      const found = queues().find(([id]) => id.startsWith(prefix));
      if (!found) throw new Error(`No queue ${prefix}`);
      return found[0];
    };
    const sourcesOf = (workerId: string) =>
      resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').filter(
        ([, mapping]) =>
          JSON.stringify(mapping.Properties.FunctionName) ===
          JSON.stringify({ Ref: workerFunctionId(template, workerId) }),
      );

    it('sends delivery jobs through an encrypted queue to the delivery function, a dead-letter queue after 5 receives', () => {
      const deliveries = queueId('WebhooksDeliveries');
      template.hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [queueId('WebhooksDeadLetters'), 'Arn'] },
          maxReceiveCount: 5,
        },
      });
      const [[, mapping]] = sourcesOf('deliverWebhooks') as [[string, CfnResource]];
      expect(mapping.Properties).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [deliveries, 'Arn'] },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });

    it('keeps accounts apart on AWS: a standard (fair) delivery queue, each job its own delay, and a timeout that outlasts a batch', () => {
      // Jobs are grouped by account (lib/webhooks/sqs-queue.ts): on a standard queue that makes a fair
      // queue. A FIFO queue would take no per-message delay (the retries') and hold a group behind a job.
      const deliveries = queueId('WebhooksDeliveries');
      expect(template.toJSON().Resources[deliveries].Properties.FifoQueue).toBeUndefined();
      const [[, mapping]] = sourcesOf('deliverWebhooks') as [[string, CfnResource]];
      const batch = mapping.Properties.BatchSize as number;
      // A batch of one endpoint's jobs takes its lane in rounds of ATTEMPTS_PER_ENDPOINT, 10 s at most each.
      const rounds = Math.ceil(batch / ATTEMPTS_PER_ENDPOINT);
      const fn = template.toJSON().Resources[workerFunctionId(template, 'deliverWebhooks')];
      expect(fn.Properties.Timeout).toBeGreaterThanOrEqual(rounds * 10 + 10);
    });

    it('announces new events to the fan-out through a FIFO queue the import and the sweep send to', () => {
      const fanOut = queueId('WebhooksFanOut');
      expect(template.toJSON().Resources[fanOut].Properties).toMatchObject({
        FifoQueue: true,
        SqsManagedSseEnabled: true,
      });
      const [[, mapping]] = sourcesOf('fanOutWebhookEvents') as [[string, CfnResource]];
      expect(mapping.Properties).toMatchObject({ EventSourceArn: { 'Fn::GetAtt': [fanOut, 'Arn'] } });
      for (const workerId of ['importPartition', 'fanOutWebhookEvents']) {
        const fn = template.toJSON().Resources[workerFunctionId(template, workerId)];
        expect(fn.Properties.Environment.Variables.FAN_OUT_QUEUE_URL).toEqual({ Ref: fanOut });
        expect(actionsOf(template, workerFunctionId(template, workerId))).toContain('sqs:SendMessage');
      }
    });

    it('raises alarms on a dead-lettered job and on the share of failed attempts', () => {
      const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(([id]) => id);
      expect(alarms.filter((id) => id.startsWith('WebhooksDeliveriesDeadLettered'))).toHaveLength(1);
      expect(alarms.filter((id) => id.startsWith('WebhooksDeliveryFailureRate'))).toHaveLength(1);
    });
  });

  it('runs each worker on its schedule and outputs its name for an operator', () => {
    const scheduled = Object.entries(workers as Record<string, Worker>).filter(([, w]) => w.schedule);
    // The full lookalike job is a state machine on its schedule (the import engine's tests above).
    expect(scheduled.map(([id]) => id)).toEqual([
      'evaluateSmartLists',
      'cleanUpLists',
      'fanOutWebhookEvents',
    ]);
    for (const [workerId, worker] of scheduled) {
      const { weekDay, hour, minute } = worker.schedule!;
      // EventBridge cron: minute hour day-of-month month day-of-week year ('?' in one of the day fields).
      const days = weekDay ? `? * ${weekDay}` : '* * ?';
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: `cron(${minute} ${hour ?? '*'} ${days} *)`,
        Targets: [Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 2 } })],
      });
      template.hasOutput(`${workerId}FunctionName`, {});
    }
  });

  it('passes the cdk-nag AwsSolutions and Serverless checks with no unacknowledged finding', () => {
    expect(nagFindings(stack)).toEqual([]);
  });
});

describe('CompanyDataStack (prod)', () => {
  const { stack } = synthStack('prod', PROD_CONTEXT, PROD_ENV);
  const template = stageTemplate(stack);

  it('refuses to synthesise without an explicit account and region', () => {
    expect(() => synthStack('prod', PROD_CONTEXT)).toThrow(/account and region explicitly/);
    expect(() => synthStack('live', PROD_CONTEXT, { production: true })).toThrow(
      /account and region explicitly/,
    );
    expect(() => synthStack('prod', PROD_CONTEXT, { ...PROD_ENV, disposable: true })).toThrow(
      /cannot be disposable/,
    );
  });

  it('refuses to synthesise without an address for its alarms, saying how to give one', () => {
    expect(() => synthStack('prod', {}, PROD_ENV)).toThrow(/production stage: .*-c alarmEmail=/);
    expect(() => synthStack('prod', { alarmEmail: 'nobody' }, PROD_ENV)).toThrow(
      /alarmEmail must be an e-mail/,
    );
  });

  it('subscribes the address to the alarm topic', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('keeps the table and protects it from deletion', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })] },
    });
  });

  it('keeps the import bucket', () => {
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
  });

  it('keeps the legal entity id key, whatever happens to the stack', () => {
    template.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('keeps its log groups', () => {
    const logGroups = resourcesOfType(template, 'AWS::Logs::LogGroup');
    expect(logGroups.length).toBeGreaterThan(0);
    for (const [, logGroup] of logGroups) expect(logGroup.DeletionPolicy).toBe('Retain');
  });

  it('passes the cdk-nag AwsSolutions and Serverless checks with no unacknowledged finding', () => {
    expect(nagFindings(stack)).toEqual([]);
  });
});

describe('CompanyDataStack: fair use and edge protection (contract §13)', () => {
  const { stack } = synthStack();
  const template = stageTemplate(stack);

  it("takes each request's API key from the authorizer, never from the caller", () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
  });

  it('counts every route that needs a token against a usage plan, and no public route', () => {
    for (const route of allRoutes) {
      expect([route.path, routeMethod(template, route).Properties.ApiKeyRequired ?? false]).toEqual([
        route.path,
        route.scope !== null,
      ]);
    }
  });

  it('has one usage plan per tier on the stage, with its rate, burst and daily quota', () => {
    const plans = resourcesOfType(template, 'AWS::ApiGateway::UsagePlan').map(([, plan]) => plan.Properties);
    expect(plans).toHaveLength(Object.keys(PLAN_TIERS).length);
    for (const [tier, figures] of Object.entries(PLAN_TIERS)) {
      // Named `<table name>:<tier>` (a join of the table's Ref and the tier).
      const plan = plans.find((p) => JSON.stringify(p.UsagePlanName).includes(`"${tier}"`));
      expect(plan).toMatchObject({
        Throttle: { RateLimit: figures.rate, BurstLimit: figures.burst },
        Quota: { Limit: figures.dailyQuota, Period: 'DAY' },
        ApiStages: [expect.objectContaining({ Stage: expect.anything() })],
      });
    }
    expect(PLAN_TIERS.standard).toEqual({ rate: 25, burst: 50, dailyQuota: 100_000 });
  });

  it("lets GET /v1/usage read its plans' usage and nothing else of API Gateway", () => {
    const id = routeFunctionId(template, routes.getUsage);
    const fn = template.findResources('AWS::Lambda::Function')[id] as CfnResource;
    const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables['USAGE_METER']).toBe('api-gateway');
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .flatMap((policy) => (policy as CfnResource).Properties.PolicyDocument as { Statement: unknown[] })
      .flatMap((document) => document.Statement as { Action: unknown; Resource: unknown }[])
      .filter((statement) => JSON.stringify(statement.Action).includes('apigateway'));
    expect(statements).toHaveLength(1);
    expect(statements[0]!.Action).toBe('apigateway:GET');
    expect(statements[0]!.Resource).toHaveLength(Object.keys(PLAN_TIERS).length);
    expect(JSON.stringify(statements[0]!.Resource)).toMatch(/\/usageplans\/.*\/usage/);
  });

  it('puts a web ACL on every stage: rate rules first, then the managed rule groups for a JSON API', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    const [[, acl]] = resourcesOfType(template, 'AWS::WAFv2::WebACL') as [[string, CfnResource]];
    const rules = acl.Properties.Rules as {
      Name: string;
      Priority: number;
      Statement: Record<string, Record<string, unknown>>;
    }[];
    expect(rules.map((r) => r.Name)).toEqual([
      'RatePerIpAnonymous',
      'RatePerIpPublic',
      'RatePerIp',
      ...MANAGED_RULE_GROUPS,
    ]);
    expect(rules.map((r) => r.Priority)).toEqual([0, 1, 2, 3, 4, 5]);
    // Without a header that can be a bearer token: an invented Authorization header lifts no one.
    expect(rules[0]!.Statement['RateBasedStatement']).toMatchObject({
      AggregateKeyType: 'IP',
      Limit: DEFAULT_WAF_ANONYMOUS_RATE_LIMIT,
      EvaluationWindowSec: 300,
      ScopeDownStatement: {
        NotStatement: {
          Statement: {
            RegexMatchStatement: expect.objectContaining({
              FieldToMatch: { SingleHeader: { Name: 'authorization' } },
              RegexString: BEARER_HEADER_PATTERN,
            }),
          },
        },
      },
    });
    expect(rules[1]!.Statement['RateBasedStatement']).toMatchObject({
      AggregateKeyType: 'IP',
      Limit: DEFAULT_WAF_PUBLIC_RATE_LIMIT,
      EvaluationWindowSec: 300,
      ScopeDownStatement: {
        RegexMatchStatement: expect.objectContaining({ FieldToMatch: { UriPath: {} } }),
      },
    });
    expect(rules[2]!.Statement['RateBasedStatement']).toEqual({
      AggregateKeyType: 'IP',
      Limit: DEFAULT_WAF_RATE_LIMIT,
      EvaluationWindowSec: 300,
    });
    for (const rule of rules.slice(3)) {
      expect(rule.Statement['ManagedRuleGroupStatement']).toMatchObject({
        VendorName: 'AWS',
        Name: rule.Name,
      });
    }
    const [[stageId]] = resourcesOfType(template, 'AWS::ApiGateway::Stage') as [[string, CfnResource]];
    const [[, association]] = resourcesOfType(template, 'AWS::WAFv2::WebACLAssociation') as [
      [string, CfnResource],
    ];
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(stageId);
  });

  it('logs what WAF sees to a log group WAF accepts, kept a year, without the Authorization header', () => {
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: Match.stringLikeRegexp('^aws-waf-logs-'),
      RetentionInDays: 365,
    });
    template.hasResourceProperties('AWS::WAFv2::LoggingConfiguration', {
      RedactedFields: [{ SingleHeader: { Name: 'authorization' } }],
    });
  });

  it('raises alarms on spikes of 401/403 answers and of contact pages, counted from the access log', () => {
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ ($.status = "401") || ($.status = "403") }',
      MetricTransformations: [Match.objectLike({ MetricName: 'AuthFailures', MetricValue: '1' })],
    });
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: Match.stringLikeRegexp('/v1/lists/\\{id\\}/contacts'),
      MetricTransformations: [Match.objectLike({ MetricName: 'ContactPages' })],
    });
    for (const [metricName, threshold] of [
      ['AuthFailures', ALARM_THRESHOLDS.authFailures],
      ['ContactPages', ALARM_THRESHOLDS.contactPages],
    ] as const) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: metricName,
        Threshold: threshold,
        AlarmActions: [Match.anyValue()],
      });
    }
  });

  it('subscribes no address unless given one (a development stage may go without)', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const { stack: told } = synthStack('dev', { alarmEmail: 'dev@example.com' });
    stageTemplate(told).hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'dev@example.com',
    });
  });
});
