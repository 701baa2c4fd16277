import { CfnOutput, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { tableDefinition } from '../lib/storage/table';
import { StageAlarms } from './alarms';
import {
  addMethodsNotAllowed,
  addRoutes,
  addTokenAuthorizer,
  createStageApi,
  DEFAULT_AUTHORIZER_CONCURRENCY,
  DEFAULT_THROTTLE_BURST,
  DEFAULT_THROTTLE_RATE,
  addUsagePlans,
  protectApi,
} from './api';
import { DEFAULT_WAF_ANONYMOUS_RATE_LIMIT, DEFAULT_WAF_RATE_LIMIT, StageWaf } from './waf';
import { ImportEngine } from './import-engine';
import { WebhookDelivery } from './webhooks';
import { addWorkers } from './workers';

export interface CompanyDataStackProps extends StackProps {
  /** The deployment stage (`dev`, `prod`, a developer's name…): one stack, table and API each. */
  stage: string;
  /**
   * A stage whose data may go with it (`-c disposable=true`): its table and logs are deleted with the
   * stack and the table has no deletion protection. Every other stage keeps them.
   */
  disposable?: boolean;
  /**
   * A stage that serves customers (`prod`, or `-c production=true`): it refuses to synthesise without an
   * explicit account and region, and without an address its alarms reach (`-c alarmEmail=`).
   */
  production?: boolean;
}

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
    const alarmEmail: unknown = this.node.tryGetContext('alarmEmail');
    if (alarmEmail !== undefined && (typeof alarmEmail !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(alarmEmail)))
      throw new Error(`Context alarmEmail must be an e-mail address, got ${JSON.stringify(alarmEmail)}`);
    if (production && alarmEmail === undefined) {
      throw new Error(
        `Stage ${stage} is a production stage: give the address its alarms go to ` +
          '(-c alarmEmail=ops@example.com), so an alarm reaches someone',
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

    const { api, accessLogs } = createStageApi(this, {
      stage,
      removalPolicy,
      throttleRate: this.numberFromContext('throttleRate', DEFAULT_THROTTLE_RATE),
      throttleBurst: this.numberFromContext('throttleBurst', DEFAULT_THROTTLE_BURST),
    });
    const { authorizerFunction, tokenAuthorizer } = addTokenAuthorizer(this, {
      table,
      removalPolicy,
      concurrency: this.numberFromContext('authorizerConcurrency', DEFAULT_AUTHORIZER_CONCURRENCY),
    });
    const functions: Record<string, IFunction> = { authorizer: authorizerFunction };
    const methodsByPath = addRoutes(this, api, { table, tokenAuthorizer, removalPolicy, functions });

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

    const workerFunctions = addWorkers(this, { table, removalPolicy, functions });

    const importEngine = new ImportEngine(this, 'ImportEngine', {
      split: workerFunctions.importSplit,
      partition: workerFunctions.importPartition,
      complete: workerFunctions.importComplete,
      lookalikesPlan: workerFunctions.lookalikesPlan,
      lookalikesShard: workerFunctions.lookalikesShard,
      lookalikesFinish: workerFunctions.lookalikesFinish,
      // Weekly, as a safety net: the import already recomputes what it touches before it returns.
      lookalikesSchedule: { weekDay: 'SUN', hour: '3', minute: '0' },
      legalEntitySecret,
      maxConcurrency: this.numberFromContext('importConcurrency', 16),
      removalPolicy,
    });
    new CfnOutput(this, 'ImportBucketName', {
      value: importEngine.bucket.bucketName,
      description:
        'Drop JSON Lines files (gzip or not) under incoming/YYYY-MM-DD/; reports appear under reports/',
    });
    new CfnOutput(this, 'LookalikesStateMachineArn', {
      value: importEngine.lookalikesStateMachine.stateMachineArn,
      description:
        'Recompute every lookalike list now: aws stepfunctions start-execution --state-machine-arn <this>',
    });
    new CfnOutput(this, 'LegalEntitySecretArn', {
      value: legalEntitySecret.secretArn,
      description: 'LEGAL_ENTITY_SECRET_ARN for npm run import -- FILE --table <TableName>',
    });

    // The 405 methods come after the route methods: the API deployment's logical id hashes the methods in
    // the order they are added.
    addMethodsNotAllowed(api, methodsByPath);
    addUsagePlans(this, api, { table, usageFunction: functions['getUsage']! });
    protectApi(api);
    // Every deployed stage, production or not: its URL is public either way.
    new StageWaf(this, 'Waf', {
      api,
      rateLimit: this.numberFromContext('wafRateLimit', DEFAULT_WAF_RATE_LIMIT),
      anonymousRateLimit: this.numberFromContext('wafAnonymousRateLimit', DEFAULT_WAF_ANONYMOUS_RATE_LIMIT),
      removalPolicy,
    });

    const alarms = new StageAlarms(this, 'Alarms', {
      stage,
      api,
      table,
      functions,
      accessLogs,
      ...(typeof alarmEmail === 'string' ? { alarmEmail } : {}),
      imports: { stateMachine: importEngine.stateMachine, undeliveredEvents: importEngine.undeliveredEvents },
    });
    new WebhookDelivery(this, 'Webhooks', {
      stage,
      deliver: workerFunctions.deliverWebhooks,
      producers: [workerFunctions.fanOutWebhookEvents, functions['testWebhook']!],
      fanOut: workerFunctions.fanOutWebhookEvents,
      announcers: [workerFunctions.importPartition],
      sealers: [functions['createWebhook']!, functions['rotateWebhookSecret']!],
      alarmTopic: alarms.topic,
      removalPolicy,
    });

    new CfnOutput(this, 'ApiUrl', { value: api.url, description: 'Stage base URL; paths start with v1/' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
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
