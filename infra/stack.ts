import { CfnOutput, Duration, RemovalPolicy, Size, Stack, Token, Validations } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  ResponseType,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import type { IResource, Method } from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import {
  type ApiError,
  ForbiddenError,
  InternalError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  RouteNotFoundError,
  ThrottledError,
  UnauthorizedError,
  UnavailableError,
  GATEWAY_RETRY_AFTER_SECONDS,
  UnsupportedMediaTypeError,
} from '../lib/http/errors';
import { BEARER_HEADER_PATTERN } from '../lib/tokens/token-format';
import { StageAlarms } from './alarms';
import { ApiFunction } from './function';
import { ANSWER_HEADERS, MIN_COMPRESSION_BYTES } from '../lib/http/endpoint';
import { handlerEntry, type HttpMethod, type Route } from '../lib/http/route';
import { authorizer, routes, workers, type Worker, type WorkerId } from '../lib/routes';
import { ImportEngine } from './import-engine';
import { tableDefinition } from '../lib/storage/table';

export interface CompanyDataStackProps extends StackProps {
  /** The deployment stage (`dev`, `prod`, a developer's name…): one stack, table and API each. */
  stage: string;
  /**
   * A stage whose data may go with it (`-c disposable=true`): its table and logs are deleted with the
   * stack and the table has no deletion protection. Every other stage keeps them.
   */
  disposable?: boolean;
  /**
   * A stage that serves customers (`prod`, or `-c production=true`): it has a per-IP rate-based WAF rule
   * and refuses to synthesise without an explicit account and region.
   */
  production?: boolean;
}

/**
 * Answers API Gateway produces itself, in the contract's error shape (contract §2.1), so a client sees
 * one error format whichever layer answered. They are the same error classes the handlers throw
 * (lib/http/errors.ts): status, code, message and headers come from there.
 */
const gatewayErrors: Array<[ResponseType, ApiError]> = [
  [ResponseType.UNAUTHORIZED, new UnauthorizedError()],
  [ResponseType.ACCESS_DENIED, new ForbiddenError()],
  // A REST API answers an unknown route with MISSING_AUTHENTICATION_TOKEN (403); the contract says 404.
  [ResponseType.MISSING_AUTHENTICATION_TOKEN, new RouteNotFoundError()],
  [ResponseType.RESOURCE_NOT_FOUND, new RouteNotFoundError()],
  [ResponseType.THROTTLED, new ThrottledError()],
  [ResponseType.QUOTA_EXCEEDED, new ThrottledError()],
  // The gateway's own limit is 10 MB; the handlers enforce the contract's 1 MiB below that.
  [ResponseType.REQUEST_TOO_LARGE, new PayloadTooLargeError()],
  [ResponseType.UNSUPPORTED_MEDIA_TYPE, new UnsupportedMediaTypeError()],
  [ResponseType.INTEGRATION_TIMEOUT, new UnavailableError(GATEWAY_RETRY_AFTER_SECONDS)],
  // The function could not be invoked (Lambda throttled it, or the invoke failed): try again shortly.
  [ResponseType.INTEGRATION_FAILURE, new UnavailableError(GATEWAY_RETRY_AFTER_SECONDS)],
  // The only WAF rule is the per-IP rate limit (production stages), judged over the last 5 minutes: an IP
  // over it stays refused until its rate falls, so it is told to wait a minute, not a second.
  [ResponseType.WAF_FILTERED, new ThrottledError(60)],
  [ResponseType.AUTHORIZER_FAILURE, new UnavailableError(GATEWAY_RETRY_AFTER_SECONDS)],
  [ResponseType.AUTHORIZER_CONFIGURATION_ERROR, new UnavailableError(GATEWAY_RETRY_AFTER_SECONDS)],
  [ResponseType.DEFAULT_5XX, new InternalError()],
];

/**
 * Any other 4xx the gateway produces. Without request validators or API keys, what is left are refusals
 * of the caller's credentials (a SigV4 signature, an expired or invalid key): 403 FORBIDDEN.
 */
const otherClientError = new ForbiddenError();

/** The contract's error body; API Gateway fills in `$context.requestId`. */
function errorBodyTemplate({ message, code }: { message: string; code: string }): string {
  return JSON.stringify({ message, code, requestId: '$context.requestId' });
}

function addErrorResponse(
  api: RestApi,
  type: ResponseType,
  body: { message: string; code: string },
  statusCode?: string,
  headers: Record<string, string> = {},
): void {
  api.addGatewayResponse(`${type.responseType}Response`, {
    type,
    ...(statusCode ? { statusCode } : {}),
    templates: { 'application/json': errorBodyTemplate(body) },
    responseHeaders: {
      'x-request-id': 'context.requestId',
      'Cache-Control': `'${ANSWER_HEADERS['Cache-Control']}'`,
      // Static header values are quoted literals in API Gateway mappings.
      ...Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`])),
    },
  });
}

const API_GATEWAY_LOGS_POLICY_ARN =
  'arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs';
const DEFAULT_THROTTLE_RATE = 50;
const DEFAULT_THROTTLE_BURST = 100;
/** Routes without a token (health): limits of their own, so anonymous traffic cannot eat the stage's. */
const PUBLIC_THROTTLE_RATE = 5;
const PUBLIC_THROTTLE_BURST = 10;
/** Requests one IP may make in 5 minutes on a production stage before WAF answers 429 (20 a second). */
const DEFAULT_WAF_RATE_LIMIT = 6000;
/** Kept for the authorizer alone: a flood on the routes cannot starve the check every call needs first. */
const DEFAULT_AUTHORIZER_CONCURRENCY = 10;

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

/** One stage of the company-data API: its table, its functions and its REST API. */
export class CompanyDataStack extends Stack {
  constructor(scope: Construct, id: string, props: CompanyDataStackProps) {
    super(scope, id, props);
    const { stage, disposable = false, production = stage === 'prod' } = props;
    if (production && disposable)
      throw new Error(`Stage ${stage} is a production stage: it cannot be disposable`);
    if (production && (Token.isUnresolved(this.account) || Token.isUnresolved(this.region))) {
      throw new Error(
        `Stage ${stage} is a production stage: give its account and region explicitly ` +
          '(-c account=123456789012 -c region=eu-west-1), so it never lands where the shell happens to point',
      );
    }
    // Data and logs outlive the stack unless the stage says it is disposable.
    const removalPolicy = disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    const table = new TableV2(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      globalSecondaryIndexes: tableDefinition.indexes.map((index) => ({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      })),
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: !disposable,
      removalPolicy,
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy,
    });

    const api = new RestApi(this, 'Api', {
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
        throttlingRateLimit: this.numberFromContext('throttleRate', DEFAULT_THROTTLE_RATE),
        throttlingBurstLimit: this.numberFromContext('throttleBurst', DEFAULT_THROTTLE_BURST),
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

    for (const [type, error] of gatewayErrors) {
      addErrorResponse(api, type, error, String(error.status), error.headers);
    }
    addErrorResponse(api, ResponseType.DEFAULT_4XX, otherClientError, String(otherClientError.status));

    const authorizerFunction = new ApiFunction(this, 'AuthorizerFunction', {
      entry: authorizer.entry,
      table,
      storage: authorizer.storage,
      // It runs before every uncached call: a slow authorizer should fail fast, not hold the request
      // (its storage calls give up within storageBudgetMs(REQUEST_PATH_TIMEOUTS), under this).
      timeout: Duration.seconds(5),
      requestPath: true,
      removalPolicy,
      reservedConcurrentExecutions: this.numberFromContext(
        'authorizerConcurrency',
        DEFAULT_AUTHORIZER_CONCURRENCY,
      ),
    });
    const functions: Record<string, IFunction> = { authorizer: authorizerFunction.function };
    const tokenAuthorizer = new TokenAuthorizer(this, 'TokenAuthorizer', {
      handler: authorizerFunction.function,
      identitySource: IdentitySource.header('Authorization'),
      validationRegex: BEARER_HEADER_PATTERN,
      resultsCacheTtl: Duration.seconds(300),
    });

    const methodsByPath = new Map<string, HttpMethod[]>();
    for (const [routeId, route] of Object.entries(routes) as [string, Route][]) {
      const { function: handler } = new ApiFunction(this, `${routeId}Function`, {
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

    /*
     * The key of the legal entity ids (contract §6.4): generated once per stage and never rotated, since
     * every id is a keyed hash under it and ids must not change on a re-import or a redeploy. Read once per
     * process by whatever assigns ids (lib/legal-entities/ids.ts): the import engine's partition workers,
     * and `npm run import -- --table` run with LEGAL_ENTITY_SECRET_ARN set to the output below.
     */
    const legalEntitySecret = new Secret(this, 'LegalEntitySecret', {
      description: `Key of the legal entity ids of stage ${stage}: never rotate or replace it`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
    Validations.of(legalEntitySecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A hash key, not a credential: every legal entity id is derived from it, so rotating it would ' +
        'change ids that customers store (contract §6.4). It is read only by the import.',
    });

    // Background workers: no route invokes them (scheduled jobs and the steps of the import engine).
    const workerFunctions = {} as Record<WorkerId, NodejsFunction>;
    for (const [workerId, worker] of Object.entries(workers) as [WorkerId, Worker][]) {
      const { function: job } = new ApiFunction(this, `${workerId}Function`, {
        entry: worker.entry,
        table,
        storage: worker.storage,
        memorySize: worker.memoryMb,
        timeout: Duration.minutes(worker.timeoutMinutes),
        removalPolicy,
      });
      workerFunctions[workerId] = job;
      functions[workerId] = job;
      if (!worker.schedule) continue;
      const rule = new Rule(this, `${workerId}Schedule`, {
        schedule: Schedule.cron(worker.schedule),
        targets: [new LambdaFunction(job, { retryAttempts: 2 })],
      });
      Validations.of(rule).acknowledge({
        id: 'Serverless-EventBusDLQ',
        reason:
          'A schedule of an idempotent job: an event EventBridge could not deliver after its retries is ' +
          'the same run as the next one, and a failed run raises the function Errors alarm.',
      });
      new CfnOutput(this, `${workerId}FunctionName`, {
        value: job.functionName,
        description: `Run it now: aws lambda invoke --function-name <this> --invocation-type Event /dev/null`,
      });
    }

    const importEngine = new ImportEngine(this, 'ImportEngine', {
      split: workerFunctions.importSplit,
      partition: workerFunctions.importPartition,
      complete: workerFunctions.importComplete,
      legalEntitySecret,
      maxConcurrency: this.numberFromContext('importConcurrency', 16),
      removalPolicy,
    });
    new CfnOutput(this, 'ImportBucketName', {
      value: importEngine.bucket.bucketName,
      description:
        'Drop JSON Lines files (gzip or not) under incoming/YYYY-MM-DD/; reports appear under reports/',
    });
    new CfnOutput(this, 'LegalEntitySecretArn', {
      value: legalEntitySecret.secretArn,
      description: 'LEGAL_ENTITY_SECRET_ARN for npm run import -- FILE --table <TableName>',
    });

    for (const [routePath, methods] of methodsByPath) {
      addMethodNotAllowed(api.root.resourceForPath(routePath), methods);
    }

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
    if (production) {
      this.addRateLimit(api, this.numberFromContext('wafRateLimit', DEFAULT_WAF_RATE_LIMIT));
    } else {
      Validations.of(api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'Not a production stage: no web ACL (it costs per month and per rule). Every non-public route ' +
          'needs a valid bearer token and the stage is throttled; production stages get the per-IP rate rule.',
      });
    }

    new StageAlarms(this, 'Alarms', {
      stage,
      api,
      table,
      functions,
      imports: { stateMachine: importEngine.stateMachine, undeliveredEvents: importEngine.undeliveredEvents },
    });

    new CfnOutput(this, 'ApiUrl', { value: api.url, description: 'Stage base URL; paths start with v1/' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
  }

  /** A regional web ACL on the stage with one rule: an IP over `limit` requests in 5 minutes is refused (429). */
  private addRateLimit(api: RestApi, limit: number): void {
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    const acl = new CfnWebACL(this, 'WebAcl', {
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
    new CfnWebACLAssociation(this, 'WebAclAssociation', {
      resourceArn: api.deploymentStage.stageArn,
      webAclArn: acl.attrArn,
    });
  }

  /** A positive number from `-c name=value`, or the default; a typo fails the synth instead of deploying. */
  private numberFromContext(name: string, fallback: number): number {
    const raw: unknown = this.node.tryGetContext(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) {
      throw new Error(`Context ${name} must be a positive number, got ${JSON.stringify(raw)}`);
    }
    return value;
  }
}

/**
 * Contract §2.1: a known path with another method answers 405. API Gateway prefers an explicit method
 * over ANY, so this mock only answers the methods the path does not have. It reveals nothing, so it
 * needs no token.
 */
function addMethodNotAllowed(resource: IResource, methods: HttpMethod[]): void {
  const error = new MethodNotAllowedError(methods);
  const method = resource.addMethod(
    'ANY',
    new MockIntegration({
      requestTemplates: { 'application/json': JSON.stringify({ statusCode: error.status }) },
      // A non-JSON body gets the contract's 415 (UNSUPPORTED_MEDIA_TYPE) instead of reaching the mock.
      passthroughBehavior: PassthroughBehavior.NEVER,
      integrationResponses: [
        {
          statusCode: String(error.status),
          responseTemplates: {
            'application/json': errorBodyTemplate(error),
          },
          responseParameters: {
            'method.response.header.Allow': `'${error.headers['Allow']}'`,
            'method.response.header.Content-Type': "'application/json'",
            'method.response.header.Cache-Control': `'${ANSWER_HEADERS['Cache-Control']}'`,
            'method.response.header.x-request-id': 'context.requestId',
          },
        },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      methodResponses: [
        {
          statusCode: String(error.status),
          responseParameters: {
            'method.response.header.Allow': true,
            'method.response.header.Content-Type': true,
            'method.response.header.Cache-Control': true,
            'method.response.header.x-request-id': true,
          },
        },
      ],
    },
  );
  acknowledgePublicMethod(
    method,
    `the 405 answer for ${resource.path} calls no function and returns no data`,
  );
}

function acknowledgePublicMethod(method: Method, why: string): void {
  Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason: `No authorization: ${why}.` });
}
