/**
 * The stage's REST API: access logs, throttling, the token authorizer, one Lambda integration per route of
 * the route table, and on production stages a per-IP rate rule (WAF). The gateway's own answers are in
 * gateway-responses.ts.
 */
import { Duration, RemovalPolicy, Size, Validations } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { MIN_COMPRESSION_BYTES } from '../lib/http/endpoint';
import { handlerEntry, type HttpMethod, type Route } from '../lib/http/route';
import { authorizer, routes } from '../lib/routes';
import { BEARER_HEADER_PATTERN } from '../lib/tokens/token-format';
import { ApiFunction } from './function';
import { acknowledgePublicMethod, addGatewayResponses, addMethodNotAllowed } from './gateway-responses';

const API_GATEWAY_LOGS_POLICY_ARN =
  'arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs';
export const DEFAULT_THROTTLE_RATE = 50;
export const DEFAULT_THROTTLE_BURST = 100;
/** Routes without a token (health): limits of their own, so anonymous traffic cannot eat the stage's. */
const PUBLIC_THROTTLE_RATE = 5;
const PUBLIC_THROTTLE_BURST = 10;
/** Requests one IP may make in 5 minutes on a production stage before WAF answers 429 (20 a second). */
export const DEFAULT_WAF_RATE_LIMIT = 6000;
/** Kept for the authorizer alone: a flood on the routes cannot starve the check every call needs first. */
export const DEFAULT_AUTHORIZER_CONCURRENCY = 10;

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

/** The REST API of a stage, its access logs and the gateway's own answers. */
export function createStageApi(
  scope: Stack,
  {
    stage,
    removalPolicy,
    throttleRate,
    throttleBurst,
  }: { stage: string; removalPolicy: RemovalPolicy; throttleRate: number; throttleBurst: number },
): RestApi {
  const accessLogs = new LogGroup(scope, 'AccessLogs', {
    retention: RetentionDays.ONE_MONTH,
    removalPolicy,
  });

  const api = new RestApi(scope, 'Api', {
    restApiName: `company-data-${stage}`,
    description: `Company data and lists API (${stage})`,
    // Consumers are server-side integrations; a regional endpoint avoids an extra CloudFront hop.
    endpointConfiguration: { types: [EndpointType.REGIONAL] },
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
      methodOptions: Object.fromEntries(
        Object.values(routes)
          .filter((route: Route) => route.scope === null)
          .map((route) => [
            `${route.path}/${route.method}`,
            { throttlingRateLimit: PUBLIC_THROTTLE_RATE, throttlingBurstLimit: PUBLIC_THROTTLE_BURST },
          ]),
      ),
    },
    // Execution logging needs the account-wide API Gateway CloudWatch role; other stages in the
    // account may rely on it, so deleting this stack must not delete it.
    cloudWatchRole: true,
    cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
  });
  // RestApi adds an `Endpoint` output of its own; ApiUrl below is the one documented.
  api.node.tryRemoveChild('Endpoint');
  addGatewayResponses(api);
  return api;
}

/** The TOKEN authorizer and its function; API Gateway caches its answer per token for 5 minutes. */
export function addTokenAuthorizer(
  scope: Stack,
  {
    table,
    removalPolicy,
    concurrency,
  }: { table: TableV2; removalPolicy: RemovalPolicy; concurrency: number },
): { authorizerFunction: IFunction; tokenAuthorizer: TokenAuthorizer } {
  const authorizerFunction = new ApiFunction(scope, 'AuthorizerFunction', {
    entry: authorizer.entry,
    table,
    storage: authorizer.storage,
    // It runs before every uncached call: a slow authorizer should fail fast, not hold the request
    // (its storage calls give up within storageBudgetMs(REQUEST_PATH_TIMEOUTS), under this).
    timeout: Duration.seconds(5),
    requestPath: true,
    removalPolicy,
    reservedConcurrentExecutions: concurrency,
  });
  const tokenAuthorizer = new TokenAuthorizer(scope, 'TokenAuthorizer', {
    handler: authorizerFunction.function,
    identitySource: IdentitySource.header('Authorization'),
    validationRegex: BEARER_HEADER_PATTERN,
    resultsCacheTtl: Duration.seconds(300),
  });
  return { authorizerFunction: authorizerFunction.function, tokenAuthorizer };
}

/**
 * One function per route of the route table behind its method, with the token authorizer unless the route
 * is public. The functions are added to `functions`; the methods each path has are returned, for its 405s.
 */
export function addRoutes(
  scope: Stack,
  api: RestApi,
  {
    table,
    tokenAuthorizer,
    removalPolicy,
    functions,
  }: {
    table: TableV2;
    tokenAuthorizer: TokenAuthorizer;
    removalPolicy: RemovalPolicy;
    functions: Record<string, IFunction>;
  },
): Map<string, HttpMethod[]> {
  const methodsByPath = new Map<string, HttpMethod[]>();
  for (const [routeId, route] of Object.entries(routes) as [string, Route][]) {
    const { function: handler } = new ApiFunction(scope, `${routeId}Function`, {
      entry: handlerEntry(routeId),
      table,
      storage: route.storage,
      requestPath: true,
      removalPolicy,
    });
    functions[routeId] = handler;
    const authorization =
      route.scope === null
        ? { authorizationType: AuthorizationType.NONE }
        : { authorizationType: AuthorizationType.CUSTOM, authorizer: tokenAuthorizer };
    const resource = api.root.resourceForPath(route.path);
    const method = resource.addMethod(route.method, new LambdaIntegration(handler), authorization);
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

/**
 * The API's cdk-nag findings that are choices, with their reasons; on a production stage (a `wafRateLimit`)
 * the per-IP rate rule, on the others the reason it is left out.
 */
export function protectApi(
  scope: Stack,
  api: RestApi,
  { wafRateLimit }: { wafRateLimit: number | null },
): void {
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
  if (wafRateLimit !== null) {
    addRateLimit(scope, api, wafRateLimit);
  } else {
    Validations.of(api.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'Not a production stage: no web ACL (it costs per month and per rule). Every non-public route ' +
        'needs a valid bearer token and the stage is throttled; production stages get the per-IP rate rule.',
    });
  }
}

/** A regional web ACL on the stage with one rule: an IP over `limit` requests in 5 minutes is refused (429). */
function addRateLimit(scope: Stack, api: RestApi, limit: number): void {
  const visibility = (metricName: string) => ({
    cloudWatchMetricsEnabled: true,
    metricName,
    sampledRequestsEnabled: true,
  });
  const acl = new CfnWebACL(scope, 'WebAcl', {
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: visibility(`company-data-${api.deploymentStage.stageName}`),
    rules: [
      {
        name: 'RatePerIp',
        priority: 0,
        action: { block: {} },
        statement: { rateBasedStatement: { aggregateKeyType: 'IP', limit, evaluationWindowSec: 300 } },
        visibilityConfig: visibility('RatePerIp'),
      },
    ],
  });
  new CfnWebACLAssociation(scope, 'WebAclAssociation', {
    resourceArn: api.deploymentStage.stageArn,
    webAclArn: acl.attrArn,
  });
}
