import * as path from 'node:path';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { CfnGlobalTable, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { bundlingSettings } from './bundling';
import type { TableAccess } from '../lib/http/route';

const projectRoot = path.join(__dirname, '..');

export interface ApiFunctionProps {
  /** The handler file, relative to the project root (as in the route table); it exports `handler`. */
  entry: string;
  table: TableV2;
  access: TableAccess;
  /** @default 1024 MB: more memory is more CPU, and cold starts dominate these short calls. */
  memorySize?: number;
  /** @default 10 s: well under API Gateway's 29 s integration timeout, so the gateway never cuts us off. */
  timeout?: Duration;
  /** For the log group: RETAIN on prod, so logs outlive a stack deletion. */
  removalPolicy: RemovalPolicy;
}

/**
 * One Lambda function with the team's defaults: Node.js 24 on arm64, bundled by the local esbuild with
 * the shared settings, explicit memory and timeout, its own log group, and a role that may write to that
 * log group and touch the table only as far as `access` says.
 */
export class ApiFunction extends Construct {
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);

    const logGroup = new LogGroup(this, 'LogGroup', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy,
    });

    // An explicit role instead of the default one: the default attaches the AWS-managed
    // AWSLambdaBasicExecutionRole, which may write to every log group in the account.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: {
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
      environment: { TABLE_NAME: props.table.tableName },
      bundling: {
        minify: bundlingSettings.minify,
        sourceMap: bundlingSettings.sourceMap,
        target: bundlingSettings.target,
        mainFields: [...bundlingSettings.mainFields],
        externalModules: [...bundlingSettings.externalModules],
        esbuildArgs: {
          '--alias': Object.entries(bundlingSettings.alias).map(
            ([module, replacement]) => `${module}=${replacement}`,
          ),
        },
        format: OutputFormat.CJS,
      },
    });

    this.grantTable(props.table, props.access);
  }

  private grantTable(table: TableV2, access: TableAccess): void {
    if (access === 'none') return;
    if (access === 'read') table.grantReadData(this.function);
    else table.grantReadWriteData(this.function);

    // The grant covers `<table>/index/*`: the function queries the table's secondary index (gsi1).
    const tableLogicalId = Stack.of(table).getLogicalId(table.node.defaultChild as CfnGlobalTable);
    Validations.of(this).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
      reason:
        'The wildcard is over the indexes of this one table only: the storage adapter queries gsi1, ' +
        'and the grant stays right when an index is added to the shared table definition.',
    });
  }
}
