/**
 * The stage's REST API: access logs, throttling, the token authorizer, one Lambda integration per route of
 * the route table, and a usage plan per plan tier (contract §13). Its web ACL is in waf.ts, the gateway's
 * own answers in gateway-responses.ts, the functions behind it in route-functions.ts (nested stacks).
 */
import { Duration, Fn, RemovalPolicy, Size, Stack as CdkStack, Validations } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  AwsIntegration,
  EndpointType,
  IdentitySource,
  LogGroupLogDestination,
  MethodLoggingLevel,
  Period,
  RestApi,
  TokenAuthorizer,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { MIN_COMPRESSION_BYTES } from '../lib/http/endpoint';
import type { HttpMethod, Route } from '../lib/http/route';
import { authorizer } from '../lib/routes';
import { BEARER_HEADER_PATTERN } from '../lib/tokens/token-format';
import { PLAN_TIERS, type PlanTier } from '../lib/plans/plans';
import { acknowledgePublicMethod, addGatewayResponses, addMethodNotAllowed } from './gateway-responses';

const API_GATEWAY_LOGS_POLICY_ARN =
  'arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs';
/**
 * The stage's ceiling over every account together and the authorizer's reserved executions: sized from
 * the plans sold in capacity.ts. Each account is held to its own plan by the usage plans below; the
 * public routes are limited per address by the WAF (waf.ts), not by a ceiling the whole world shares.
 */
export { DEFAULT_AUTHORIZER_CONCURRENCY, DEFAULT_THROTTLE_BURST, DEFAULT_THROTTLE_RATE } from './capacity';

/**
 * One JSON line per request in the access log: who called (the authorizer's principalId is the token id,
 * never the token), what, the answer, how long the function took, and why the gateway refused or failed
 * (error type and message, the authorizer's error) when it did.
 */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTimeEpoch',
  ip: '$context.identity.sourceIp',
  caller: '$context.authorizer.principalId',
  accountId: '$context.authorizer.accountId',
  method: '$context.httpMethod',
  resource: '$context.resourcePath',
  path: '$context.path',
  status: '$context.status',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integration.latency',
  integrationStatus: '$context.integration.status',
  integrationError: '$context.integration.error',
  errorType: '$context.error.responseType',
  errorMessage: '$context.error.message',
  authorizerError: '$context.authorizer.error',
  authorizerLatencyMs: '$context.authorizer.latency',
  wafStatus: '$context.waf.status',
  xrayTraceId: '$context.xrayTraceId',
};

/** The REST API of a stage, its access logs (returned, for the alarms' metrics) and the gateway's own answers. */
export function createStageApi(
  scope: Stack,
  {
    stage,
    removalPolicy,
    throttleRate,
    throttleBurst,
  }: {
    stage: string;
    removalPolicy: RemovalPolicy;
    throttleRate: number;
    throttleBurst: number;
  },
): { api: RestApi; accessLogs: LogGroup } {
  const accessLogs = new LogGroup(scope, 'AccessLogs', {
    retention: RetentionDays.ONE_MONTH,
    removalPolicy,
  });

  const api = new RestApi(scope, 'Api', {
    restApiName: `company-data-${stage}`,
    description: `Company data and lists API (${stage})`,
    // Consumers are server-side integrations; a regional endpoint avoids an extra CloudFront hop.
    endpointConfiguration: { types: [EndpointType.REGIONAL] },
    // The account's API key comes from the authorizer (usageIdentifierKey), never from a caller's header:
    // it only says whose usage plan a request counts against.
    apiKeySourceType: ApiKeySourceType.AUTHORIZER,
    // Answers of 1 KB or more are compressed for callers that accept gzip or deflate.
    minCompressionSize: Size.bytes(MIN_COMPRESSION_BYTES),
    // The contract's paths already start with /v1, so the API Gateway stage is named after the CDK stage.
    deployOptions: {
      stageName: stage,
      accessLogDestination: new LogGroupLogDestination(accessLogs),
      accessLogFormat: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      loggingLevel: MethodLoggingLevel.ERROR,
      metricsEnabled: true,
      tracingEnabled: true,
      throttlingRateLimit: throttleRate,
      throttlingBurstLimit: throttleBurst,
    },
    // Execution logging needs the account-wide API Gateway CloudWatch role; other stages in the
    // account may rely on it, so deleting this stack must not delete it.
    cloudWatchRole: true,
    cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
  });
  // RestApi adds an `Endpoint` output of its own; ApiUrl below is the one documented.
  api.node.tryRemoveChild('Endpoint');
  addGatewayResponses(api);
  return { api, accessLogs };
}

/** The TOKEN authorizer over its function; API Gateway caches its answer per token for `authorizer.cacheTtlSeconds`. */
export function addTokenAuthorizer(scope: Stack, handler: IFunction): TokenAuthorizer {
  return new TokenAuthorizer(scope, 'TokenAuthorizer', {
    handler,
    identitySource: IdentitySource.header('Authorization'),
    validationRegex: BEARER_HEADER_PATTERN,
    // Short, so a revoked token stops working within 5 seconds (contract §13; lib/routes.ts says why).
    resultsCacheTtl: Duration.seconds(authorizer.cacheTtlSeconds),
  });
}

/**
 * Each route's method, behind its function (a Lambda proxy integration), with the token authorizer unless
 * the route is public. The function's permission to be invoked is beside it (route-functions.ts). The
 * methods each path has are returned, for its 405s.
 */
export function addRoutes(
  api: RestApi,
  {
    routes,
    tokenAuthorizer,
  }: { routes: Array<{ route: Route; handler: IFunction }>; tokenAuthorizer: TokenAuthorizer },
): Map<string, HttpMethod[]> {
  const methodsByPath = new Map<string, HttpMethod[]>();
  for (const { route, handler } of routes) {
    const authorization =
      route.scope === null
        ? { authorizationType: AuthorizationType.NONE }
        : {
            authorizationType: AuthorizationType.CUSTOM,
            authorizer: tokenAuthorizer,
            // Counted against the usage plan of the account's key, which the authorizer names.
            apiKeyRequired: true,
          };
    // What LambdaIntegration sends, without the permission it would add beside the method.
    const integration = new AwsIntegration({
      proxy: true,
      service: 'lambda',
      path: `2015-03-31/functions/${handler.functionArn}/invocations`,
    });
    const method = api.root.resourceForPath(route.path).addMethod(route.method, integration, authorization);
    if (route.scope === null) {
      acknowledgePublicMethod(method, `${route.method} ${route.path} is public (contract §1)`);
    }
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  }
  return methodsByPath;
}

/** Answers 405 for the methods a route's path does not have (see addMethodNotAllowed). */
export function addMethodsNotAllowed(api: RestApi, methodsByPath: Map<string, HttpMethod[]>): void {
  for (const [routePath, methods] of methodsByPath) {
    addMethodNotAllowed(api.root.resourceForPath(routePath), methods);
  }
}

/** The API's cdk-nag findings that are choices, with their reasons (its web ACL is in waf.ts). */
export function protectApi(api: RestApi): void {
  Validations.of(api).acknowledge({
    id: 'AwsSolutions-COG4',
    reason:
      'Callers are server-side integrations holding opaque API tokens issued per account ' +
      '(contract §1, §5); a TOKEN authorizer checks them against the table. There are no end users ' +
      'to keep in a Cognito user pool.',
  });
  Validations.of(api).acknowledge({
    id: 'AwsSolutions-APIG2',
    reason:
      'Requests are validated in the handlers against the route table schemas, so failures answer 400 ' +
      'VALIDATION_ERROR with per-field details (contract §2.1); a gateway validator would answer first ' +
      'with a different body and repeat the schemas as API Gateway models.',
  });
  Validations.of(api.node.findChild('CloudWatchRole')).acknowledge({
    id: `AwsSolutions-IAM4[Policy::${API_GATEWAY_LOGS_POLICY_ARN}]`,
    reason:
      'This is the account-wide role API Gateway uses to write execution logs for every REST API in the ' +
      'region; AWS maintains this policy for exactly that, and a narrower one would break the other APIs.',
  });
}

/**
 * One usage plan per plan tier (contract §13: rate, burst, daily quota), on the stage. An account's API
 * key is filed under its tier's plan by the operator CLIs (infra/cli/usage-plans.ts), which find the plans
 * by name: `<table name>:<tier>`. `GET /v1/usage` reads today's count from them.
 */
export function addUsagePlans(
  scope: CdkStack,
  api: RestApi,
  { table, usageFunction }: { table: TableV2; usageFunction: IFunction },
): Record<PlanTier, UsagePlan> {
  const plans = {} as Record<PlanTier, UsagePlan>;
  for (const [tier, plan] of Object.entries(PLAN_TIERS) as [PlanTier, (typeof PLAN_TIERS)[PlanTier]][]) {
    plans[tier] = api.addUsagePlan(`UsagePlan${tier[0]!.toUpperCase()}${tier.slice(1)}`, {
      name: Fn.join(':', [table.tableName, tier]),
      description: `Plan tier ${tier}: ${plan.rate}/s, burst ${plan.burst}, ${plan.dailyQuota} requests a UTC day`,
      throttle: { rateLimit: plan.rate, burstLimit: plan.burst },
      quota: { limit: plan.dailyQuota, period: Period.DAY },
      apiStages: [{ api, stage: api.deploymentStage }],
    });
  }
  // Today's usage of a key, per plan (GetUsage): read only, these plans only. A policy of its own, not the
  // role's default one: the function must not wait for the plans, which wait for the stage and so for the
  // function's own method (a cycle). The plan and key ids come from the account's plan item (the CLIs).
  const usage = usageFunction as IFunction & { addEnvironment(key: string, value: string): void };
  usage.addEnvironment('USAGE_METER', 'api-gateway');
  new Policy(scope, 'UsageFunctionReadsUsagePlans', {
    roles: [usageFunction.role!],
    statements: [
      new PolicyStatement({
        actions: ['apigateway:GET'],
        resources: Object.values(plans).map(
          (plan) =>
            `arn:${scope.partition}:apigateway:${scope.region}::/usageplans/${plan.usagePlanId}/usage`,
        ),
      }),
    ],
  });
  return plans;
}
