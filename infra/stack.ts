import { CfnOutput, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { Route } from '../lib/http/route';
import { routesByDomain } from '../lib/routes';
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
import { ImportStore } from './import-engine';
import { addAuthorizerFunction, DomainRoutes } from './route-functions';
import {
  DEFAULT_WAF_ANONYMOUS_RATE_LIMIT,
  DEFAULT_WAF_PUBLIC_RATE_LIMIT,
  DEFAULT_WAF_RATE_LIMIT,
  StageWaf,
} from './waf';
import { WebhookDelivery } from './webhooks';
import { Workers } from './workers';

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
  /**
   * The routes, by domain: the route table (lib/routes.ts). Only the stack's tests pass another (the table
   * and extra rows), to measure what a route adds.
   */
  routeTable?: RouteTable;
}

/** Routes by domain, as `routesByDomain`: a domain's functions are one nested stack. */
export type RouteTable = Record<keyof typeof routesByDomain, Record<string, Route>> &
  Record<string, Record<string, Route>>;

/** `legal-entities` → `LegalEntities`: a domain's nested stack is `<Domain>Routes`. */
function pascalCase(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, __: string, c: string) => c.toUpperCase());
}

/**
 * One stage of the company-data API. Its own template keeps what the stage must not lose (the table, the
 * legal entity secret, the webhook key and queues, the import bucket, the alarm topic) and the REST API
 * with every method, under the logical ids deployed stages have; the functions are in nested stacks, one
 * per domain of the route table and one for the workers, so that no template passes 300 resources.
 */
export class CompanyDataStack extends Stack {
  constructor(scope: Construct, id: string, props: CompanyDataStackProps) {
    super(scope, id, props);
    const { stage, disposable = false, production = stage === 'prod', routeTable = routesByDomain } = props;
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
    const importStore = new ImportStore(this, 'ImportEngine', { removalPolicy });

    const tableDomains = Object.entries(routeTable) as Array<[string, Record<string, Route>]>;
    const routeList = tableDomains.flatMap(([, domainRoutes]) => Object.values(domainRoutes));
    const { api, accessLogs } = createStageApi(this, {
      stage,
      removalPolicy,
      throttleRate: this.numberFromContext('throttleRate', DEFAULT_THROTTLE_RATE),
      throttleBurst: this.numberFromContext('throttleBurst', DEFAULT_THROTTLE_BURST),
    });
    const stageAlarms = new StageAlarms(this, 'Alarms', {
      stage,
      api,
      table,
      accessLogs,
      ...(typeof alarmEmail === 'string' ? { alarmEmail } : {}),
    });
    const webhooks = new WebhookDelivery(this, 'Webhooks', {
      stage,
      alarms: stageAlarms.target,
      removalPolicy,
    });

    // The routes' functions, each domain's in a nested stack of its own (infra/route-functions.ts).
    const functionProps = { stage, table, removalPolicy, alarms: stageAlarms.target };
    const authorizerFunction = addAuthorizerFunction(this, {
      ...functionProps,
      concurrency: this.numberFromContext('authorizerConcurrency', DEFAULT_AUTHORIZER_CONCURRENCY),
    });
    const tokenAuthorizer = addTokenAuthorizer(this, authorizerFunction);
    const domains = Object.fromEntries(
      tableDomains.map(([domain, domainRoutes]) => [
        domain,
        new DomainRoutes(this, `${pascalCase(domain)}Routes`, {
          ...functionProps,
          domain,
          routes: domainRoutes,
          api,
        }),
      ]),
    );
    const methodsByPath = addRoutes(api, {
      routes: tableDomains.flatMap(([domain, domainRoutes]) =>
        Object.entries(domainRoutes).map(([routeId, route]) => ({
          route,
          handler: domains[domain]!.functions[routeId]!,
        })),
      ),
      tokenAuthorizer,
    });
    const routeFunction = (domain: keyof typeof routesByDomain, routeId: string) => {
      const fn = domains[domain]?.functions[routeId];
      if (!fn) throw new Error(`The route table has no route ${routeId} in ${domain}`);
      return fn;
    };

    const workers = new Workers(this, 'Workers', {
      ...functionProps,
      importStore,
      legalEntitySecret,
      importConcurrency: this.numberFromContext('importConcurrency', 16),
    });
    stageAlarms.watchImports({
      stateMachine: workers.importEngine.stateMachine,
      undeliveredEvents: importStore.undeliveredEvents,
    });
    webhooks.connect({
      deliver: workers.functions.deliverWebhooks,
      producers: [workers.functions.fanOutWebhookEvents, routeFunction('webhooks', 'testWebhook')],
      fanOut: workers.functions.fanOutWebhookEvents,
      announcers: [workers.functions.importPartition],
      sealers: [routeFunction('webhooks', 'createWebhook'), routeFunction('webhooks', 'rotateWebhookSecret')],
    });

    // The 405 methods come after the route methods: the API deployment's logical id hashes the methods in
    // the order they are added.
    addMethodsNotAllowed(api, methodsByPath);
    addUsagePlans(this, api, { table, usageFunction: routeFunction('usage', 'getUsage') });
    protectApi(api);
    // Every deployed stage, production or not: its URL is public either way.
    new StageWaf(this, 'Waf', {
      api,
      rateLimit: this.numberFromContext('wafRateLimit', DEFAULT_WAF_RATE_LIMIT),
      anonymousRateLimit: this.numberFromContext('wafAnonymousRateLimit', DEFAULT_WAF_ANONYMOUS_RATE_LIMIT),
      publicRateLimit: this.numberFromContext('wafPublicRateLimit', DEFAULT_WAF_PUBLIC_RATE_LIMIT),
      publicPaths: routeList.filter((route) => route.scope === null).map((route) => route.path),
      removalPolicy,
    });

    new CfnOutput(this, 'ImportBucketName', {
      value: importStore.bucket.bucketName,
      description:
        'Drop JSON Lines files (gzip or not) under incoming/YYYY-MM-DD/; reports appear under reports/',
    });
    new CfnOutput(this, 'LegalEntitySecretArn', {
      value: legalEntitySecret.secretArn,
      description: 'LEGAL_ENTITY_SECRET_ARN for npm run import -- FILE --table <TableName>',
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
