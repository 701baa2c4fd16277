/**
 * The web ACL in front of every deployed stage (contract §13: unauthenticated traffic is limited per
 * client address before it reaches any function). Rules, in order:
 *
 * - AWS managed rule groups that fit a JSON API: the common rule set (OWASP-style probes), known bad
 *   inputs (Log4j, exploit paths), the Amazon IP reputation list. The common set's body size rule counts
 *   instead of blocking: bodies up to 1 MiB are the contract's (§1), beyond WAF's 8 KB inspection window;
 *   so does its missing User-Agent rule, since callers are server-side integrations that may send none.
 * - a per-address rate rule over all requests (a ceiling above any plan's rate: one address cannot take
 *   the stage), and a much lower one for requests without an Authorization header (nobody needs many).
 *
 * Every request WAF blocks is logged to a log group of its own (`aws-waf-logs-…`, as WAF requires),
 * without the Authorization header.
 */
import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/** Requests one address may make in 5 minutes (100 a second: about the largest plan's steady rate). */
export const DEFAULT_WAF_RATE_LIMIT = 30_000;
/** Requests without an Authorization header one address may make in 5 minutes (health checks, docs). */
export const DEFAULT_WAF_ANONYMOUS_RATE_LIMIT = 600;

export const MANAGED_RULE_GROUPS = [
  'AWSManagedRulesCommonRuleSet',
  'AWSManagedRulesKnownBadInputsRuleSet',
  'AWSManagedRulesAmazonIpReputationList',
] as const;

/** Rules of the common rule set that only count (see the module comment). */
const COUNTED_COMMON_RULES = ['SizeRestrictions_BODY', 'NoUserAgent_HEADER'];

export interface StageWafProps {
  api: RestApi;
  rateLimit: number;
  anonymousRateLimit: number;
  removalPolicy: RemovalPolicy;
}

export class StageWaf extends Construct {
  readonly webAcl: CfnWebACL;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: StageWafProps) {
    super(scope, id);
    const stage = props.api.deploymentStage.stageName;
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    // The rate rules come first: a flood is refused before the managed groups inspect it.
    const managed = MANAGED_RULE_GROUPS.map((name, i) => ({
      name,
      priority: 2 + i,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name,
          ...(name === 'AWSManagedRulesCommonRuleSet'
            ? {
                ruleActionOverrides: COUNTED_COMMON_RULES.map((rule) => ({
                  name: rule,
                  actionToUse: { count: {} },
                })),
              }
            : {}),
        },
      },
      visibilityConfig: visibility(name),
    }));
    const rate = (name: string, priority: number, limit: number, scopeDown?: object) => ({
      name,
      priority,
      action: { block: {} },
      statement: {
        rateBasedStatement: {
          aggregateKeyType: 'IP',
          limit,
          evaluationWindowSec: 300,
          ...(scopeDown ? { scopeDownStatement: scopeDown } : {}),
        },
      },
      visibilityConfig: visibility(name),
    });
    const withoutAuthorization = {
      notStatement: {
        statement: {
          sizeConstraintStatement: {
            fieldToMatch: { singleHeader: { Name: 'authorization' } },
            comparisonOperator: 'GT',
            size: 0,
            textTransformations: [{ priority: 0, type: 'NONE' }],
          },
        },
      },
    };
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(`company-data-${stage}`),
      rules: [
        rate('RatePerIpAnonymous', 0, props.anonymousRateLimit, withoutAuthorization),
        rate('RatePerIp', 1, props.rateLimit),
        ...managed,
      ],
    });
    new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.api.deploymentStage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });

    this.logGroup = new LogGroup(this, 'Logs', {
      // WAF delivers only to log groups whose name starts with this.
      logGroupName: `aws-waf-logs-company-data-${Stack.of(this).stackName}`,
      retention: RetentionDays.ONE_YEAR,
      removalPolicy: props.removalPolicy,
    });
    new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: this.logGroup.logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      // The token is never written to a log.
      redactedFields: [{ singleHeader: { Name: 'authorization' } }],
    });
  }
}
