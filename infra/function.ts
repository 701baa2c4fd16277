import * as path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { addFunctionAlarm, type AlarmTarget } from './alarms';
import { bundlingSettings, functionDefine } from './bundling';
import {
  ACCESS_ENFORCED_BY_IAM,
  type Partition,
  type StorageAccess,
  type StorageAction,
} from '../lib/storage/access';
import { deniedPartitions } from '../lib/storage/access-check';
import { REQUEST_PATH_TIMEOUTS, TIMEOUT_VARIABLES } from '../lib/storage/client';
import { REQUEST_LOG_SAMPLE_RATE } from '../lib/config';
import type { Route } from '../lib/http/route';

const projectRoot = path.join(__dirname, '..');

/**
 * What every function's environment holds besides TABLE_NAME; the bench sets the same (test/bench).
 * A function that answers requests gets the request path's storage timeouts, and logs the line of 1
 * in 100 answered requests (every failed or slow one: lib/http/endpoint.ts).
 */
export function functionEnvironment({ requestPath }: { requestPath: boolean }): Record<string, string> {
  return {
    // The role's policy enforces the storage declaration; the client skips its own check.
    [ACCESS_ENFORCED_BY_IAM]: 'true',
    ...(requestPath
      ? {
          [TIMEOUT_VARIABLES.connectionMs]: String(REQUEST_PATH_TIMEOUTS.connectionMs),
          [TIMEOUT_VARIABLES.requestMs]: String(REQUEST_PATH_TIMEOUTS.requestMs),
          [REQUEST_LOG_SAMPLE_RATE]: '0.01',
        }
      : {}),
  };
}

export interface ApiFunctionProps {
  /** What the function is called in its alarm: its route id, worker id, or `authorizer`. */
  name: string;
  /** The handler file, relative to the project root (as in the route table); it exports `handler`. */
  entry: string;
  table: TableV2;
  /** What the function may do to the table, per action and partition (the route's `storage` field). */
  storage: StorageAccess;
  /** The route it answers, if any: its bundle carries only the endpoint's parts the route uses. */
  route?: Route;
  /** @default 1024 MB: more memory is more CPU, and cold starts dominate these short calls. */
  memorySize?: number;
  /** @default 10 s: well under API Gateway's 29 s integration timeout, so the gateway never cuts us off. */
  timeout?: Duration;
  /** For the log group: RETAIN unless the stage is disposable, so logs outlive a stack deletion. */
  removalPolicy: RemovalPolicy;
  /**
   * It answers requests (a route, the authorizer): its storage calls get the request path's timeouts, so
   * they give up (503) within `storageBudgetMs(REQUEST_PATH_TIMEOUTS)`, under its timeout. Jobs wait longer.
   */
  requestPath?: boolean;
  /** Concurrency kept for this function alone (the authorizer: callers are never starved of it). */
  reservedConcurrentExecutions?: number;
  /** Where its alarm (errors or throttles, infra/alarms.ts) goes. */
  alarms: AlarmTarget;
}

/**
 * One Lambda function with the team's defaults: Node.js 24 on arm64, bundled by the local esbuild with
 * the shared settings, explicit memory and timeout, its own log group, a role that may write to that
 * log group and touch the table only as far as `access` says, and one alarm on its errors and throttles.
 */
export class ApiFunction extends Construct {
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);

    const logGroup = new LogGroup(this, 'LogGroup', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy,
    });

    const storageStatements = storagePolicy(props.table, props.storage);
    // An explicit role instead of the default one: the default attaches the AWS-managed
    // AWSLambdaBasicExecutionRole, which may write to every log group in the account.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: {
        ...(storageStatements.length > 0
          ? { storage: new PolicyDocument({ statements: storageStatements }) }
          : {}),
        logs: new PolicyDocument({
          statements: [
            new PolicyStatement({
              actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              // The log group's Arn attribute ends in `:*`, which covers its log streams.
              resources: [logGroup.logGroupArn],
            }),
          ],
        }),
      },
    });

    this.function = new NodejsFunction(this, 'Function', {
      entry: path.join(projectRoot, props.entry),
      handler: 'handler',
      projectRoot,
      depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      role,
      logGroup,
      // X-Ray: every invocation traced by the platform (no tracing SDK in the bundle, so no cold-start cost).
      tracing: Tracing.ACTIVE,
      ...(props.reservedConcurrentExecutions !== undefined
        ? { reservedConcurrentExecutions: props.reservedConcurrentExecutions }
        : {}),
      environment: {
        TABLE_NAME: props.table.tableName,
        ...functionEnvironment({ requestPath: props.requestPath ?? false }),
      },
      bundling: {
        minify: bundlingSettings.minify,
        sourceMap: bundlingSettings.sourceMap,
        target: bundlingSettings.target,
        mainFields: [...bundlingSettings.mainFields],
        externalModules: [...bundlingSettings.externalModules],
        define: functionDefine(props.route),
        // esbuild's `supported` has no field of its own in NodejsFunction's bundling options: passed as its flags.
        esbuildArgs: Object.fromEntries(
          Object.entries(bundlingSettings.supported).map(([feature, on]) => [
            `--supported:${feature}`,
            String(on),
          ]),
        ),
        format: OutputFormat.CJS,
      },
    });

    addFunctionAlarm(this, props.name, this.function, props.alarms);

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which X-Ray does not ' +
        'scope to a resource: "*" is the only resource these actions take.',
    });
    Validations.of(this).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'API functions, the authorizer and the import steps are invoked synchronously (API Gateway, Step ' +
        'Functions), so their caller receives the failure. The scheduled lookalike job is idempotent, ' +
        'retried twice by EventBridge and redone by its next run; its failures raise its alarm.',
    });
  }
}

/**
 * The function's table policy, from its storage declaration: per resource (the table, or one index)
 * and set of partitions, one statement with exactly the declared actions and a `dynamodb:LeadingKeys`
 * condition (`ForAllValues:StringLike`: every partition key the request names must match a pattern);
 * then, where a declared pattern also matches families the declaration does not name (StringLike
 * cannot exclude), a Deny of those (`ForAnyValue:StringLike`: any key of theirs refuses the request).
 * lib/storage/access.ts says how IAM sees each call.
 */
export function storagePolicy(table: TableV2, storage: StorageAccess): PolicyStatement[] {
  const allowed = statements(table, storage, Effect.ALLOW, 'ForAllValues:StringLike');
  const denied = Object.fromEntries(
    (Object.keys(storage) as StorageAction[]).map((action) => [action, deniedPartitions(storage, action)]),
  ) as StorageAccess;
  return [...allowed, ...statements(table, denied, Effect.DENY, 'ForAnyValue:StringLike')];
}

/** One statement per resource and set of patterns, with every action that has exactly that set. */
function statements(
  table: TableV2,
  storage: StorageAccess,
  effect: Effect,
  condition: string,
): PolicyStatement[] {
  const grouped = new Map<string, { index?: string; patterns: string[]; actions: string[] }>();
  for (const [action, partitions] of Object.entries(storage) as [StorageAction, Partition[]][]) {
    const byIndex = new Map<string | undefined, string[]>();
    for (const { index, pattern } of partitions) byIndex.set(index, [...(byIndex.get(index) ?? []), pattern]);
    for (const [index, patterns] of byIndex) {
      const unique = [...new Set(patterns)].sort();
      const id = JSON.stringify([index ?? '', unique]);
      const group = grouped.get(id) ?? { ...(index ? { index } : {}), patterns: unique, actions: [] };
      group.actions.push(`dynamodb:${action}`);
      grouped.set(id, group);
    }
  }
  return [...grouped.values()].map(
    ({ index, patterns, actions }) =>
      new PolicyStatement({
        effect,
        actions: actions.sort(),
        resources: [index ? `${table.tableArn}/index/${index}` : table.tableArn],
        conditions: { [condition]: { 'dynamodb:LeadingKeys': patterns } },
      }),
  );
}
